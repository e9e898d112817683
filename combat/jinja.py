"""The Jinja2 environment of the battle's small pieces, rendered on every change.

A token, a tracker row, a GM row, the GM's override forms, a log entry and the acting combatant's
option forms are rendered anew for every change that alters them, for every table, so they are
Jinja2 templates (``templates/jinja2/combat/``): the same markup as Django's template language,
compiled to Python, ~3x faster on the option forms (see ``combat.presenters.render`` and
docs/performance.md). The page and the regions around them stay Django templates and take these
pieces as rendered HTML.

Autoescaping is on (Django's ``SafeString`` passes as safe); a missing value renders empty, as in
Django's templates, whatever ``DEBUG`` says.
"""

from __future__ import annotations

from typing import Any

import jinja2

from combat.templatetags import battle_tags


def client_token() -> str:
    """A fresh idempotency key for one form."""
    return battle_tags.fresh_token_values(1)[0]


def form_csrf(token: Any) -> str:
    """The CSRF field when the render has the page's token; nothing in pushed renders."""
    return battle_tags.form_csrf({"csrf_token": token or None})


def environment(**options: Any) -> jinja2.Environment:
    """The environment of the ``jinja2`` entry of ``TEMPLATES``."""
    options.update(undefined=jinja2.Undefined, keep_trailing_newline=True, autoescape=True)
    env = jinja2.Environment(**options)  # noqa: S701 - autoescape is on (above)
    env.filters.update(
        tojson=battle_tags.tojson, tojson_sq=battle_tags.tojson_single_quoted, cost_text=battle_tags.cost_text
    )
    env.globals.update(client_token=client_token, form_csrf=form_csrf)
    return env
