"""Text no form of the site accepts, refused before any view with one message (400).

A NUL character anywhere in a query or a posted form (a name, a value, an
uploaded file's name): PostgreSQL refuses it in text and SQLite would store
it, so a form that saved it answered 500 on one database and kept it on the
other. A value longer than any field of the site (``MAX_FIELD_CHARS``, the
action form's details) or a field name longer than ``MAX_NAME_CHARS``: only a
forged request sends one. A form whose own check finds a value that no page
could send (the log-in name longer than any account's, which the lockout
table could not store) raises ``InputRefused`` and gets the same answer.

Browsers never send either from the site's pages (its inputs carry
``maxlength``), so the answer is the site's 400 page saying why.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import BadRequest
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

MAX_FIELD_CHARS = 4000  # combat.forms.MAX_PARAMS_TEXT: an action's details, the longest field posted
MAX_NAME_CHARS = 100
REFUSED = "A value in the form is too long or holds a character that is not allowed (NUL). Nothing was saved."


class InputRefused(BadRequest):
    """A value no page of the site sends (raised by a form's own check)."""


def input_problem(request: HttpRequest) -> bool:
    """True when the query or the posted form holds a NUL or an over-long name or value."""
    sources: list[Any] = [request.GET]
    if request.method == "POST":
        sources.append(request.POST)
        sources.append({name: [f.name or "" for f in files] for name, files in request.FILES.lists()})
    for data in sources:
        items = data.lists() if hasattr(data, "lists") else data.items()
        for name, values in items:
            if "\x00" in name or len(name) > MAX_NAME_CHARS:
                return True
            if any("\x00" in value or len(value) > MAX_FIELD_CHARS for value in values):
                return True
    return False


def refused(request: HttpRequest) -> HttpResponse:
    return render(request, "400.html", {"reason": REFUSED}, status=400)


class FormInputMiddleware:
    """Answers 400 (``refused``) for a request with text no form accepts, and for ``InputRefused``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if input_problem(request):
            return refused(request)
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return refused(request) if isinstance(exception, InputRefused) else None
