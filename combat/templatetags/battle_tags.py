"""Small template helpers for the battle page.

Everything a viewer may see is decided before rendering (``combat.live``
builds the context from the engine's ``view_for``); these helpers only format.
"""

from __future__ import annotations

import base64
import json
import secrets
import threading
from collections.abc import Mapping
from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe

from combat.engine.words import square_name

register = template.Library()


TOKEN_BYTES = 12  # as secrets.token_urlsafe(12): 16 characters
_random = bytearray()
_random_lock = threading.Lock()


def fresh_token_values(count: int) -> list[str]:
    """``count`` client tokens (URL-safe, 96 random bits each, from the system's random source).

    Read 4 KB at a time: every read of the random source lets go of the GIL, and under load
    getting it back took up to a switch interval (5 ms) per read, per form.
    """
    size = TOKEN_BYTES * count
    with _random_lock:
        if len(_random) < size:
            _random.extend(secrets.token_bytes(max(4096, size)))
        raw = bytes(_random[:size])
        del _random[:size]
    return [
        base64.urlsafe_b64encode(raw[i : i + TOKEN_BYTES]).decode("ascii")
        for i in range(0, size, TOKEN_BYTES)
    ]


@register.simple_tag(takes_context=True)
def client_token(context: template.Context) -> str:
    """A fresh idempotency key for one rendered form: a double tap posts it twice, it acts once."""
    return fresh_token_values(1)[0]


@register.filter
def tojson(value: Any) -> str:
    """JSON for a data attribute (autoescaping makes it attribute-safe)."""
    return json.dumps(value, separators=(",", ":"), sort_keys=True)


# Inside a JSON string these characters may be written as \uXXXX; outside strings JSON has none of them.
_ATTR_SAFE = str.maketrans({"&": "\\u0026", "'": "\\u0027", "<": "\\u003c", ">": "\\u003e"})


def tojson_single_quoted(value: Any) -> SafeString:
    """JSON for a data attribute written in single quotes (``data-x='{{ v|tojson_sq }}'``): its double
    quotes stay as they are, one byte each instead of the five of ``&#34;``, and every ``'``, ``&``,
    ``<`` and ``>`` is written as a JSON escape, so nothing in it can end the attribute."""
    return mark_safe(tojson(value).translate(_ATTR_SAFE))  # noqa: S308 - escaped above


ABBREVIATIONS = {"mp", "lp", "ap", "hp", "pdr", "sdr"}


def _resource_words(name: str, amount: int | None = None) -> str:
    words = name.replace("_", " ")
    if words in ABBREVIATIONS:
        return words.upper()
    if amount == 1 and words.endswith("s") and not words.endswith("ss"):
        return words[:-1]
    return words


@register.filter
def cost_text(cost: dict[str, int] | None) -> str:
    """``{"actions": 1, "mp": 5}`` -> ``"1 action, 5 MP"``."""
    parts = [f"{amount} {_resource_words(name, amount)}" for name, amount in (cost or {}).items() if amount]
    return ", ".join(parts) or "free"


@register.filter
def resource_name(name: str) -> str:
    """A resource's label: ``mp`` -> ``MP``, ``actions`` -> ``Actions``."""
    words = _resource_words(name)
    return words if words.isupper() else words[:1].upper() + words[1:]


@register.filter
def square_label(square: list[int] | tuple[int, int]) -> str:
    """A square as the board labels it ("C1"); the engine counts from 0."""
    return square_name(square[0], square[1])


@register.filter
def square_value(square: list[int] | tuple[int, int]) -> str:
    return f"{square[0]},{square[1]}"


@register.simple_tag(takes_context=True)
def form_csrf(context: template.Context | Mapping[str, Any]) -> str:
    """The CSRF field on the first render; nothing in pushed renders (htmx sends the page's token header)."""
    token = context.get("csrf_token")
    if not token or token == "NOTPROVIDED":
        return ""
    return format_html('<input type="hidden" name="csrfmiddlewaretoken" value="{}">', token)
