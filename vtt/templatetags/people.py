"""How pages name people: ``{{ user|display_name }}`` (the name they gave, else their username) and
``{% if user|is_guest %}`` (an account made from a name alone, not kept yet)."""

from __future__ import annotations

from typing import Any

from django import template

from vtt import guests

register = template.Library()


@register.filter
def display_name(user: Any) -> str:
    return guests.display_name(user) if user is not None else ""


@register.filter
def is_guest(user: Any) -> bool:
    return guests.is_guest(user)
