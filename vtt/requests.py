"""The request types the views are checked against.

``HtmxRequest`` is Django's request as the middleware leaves it (django-htmx's ``request.htmx``,
the way django-htmx's docs type it); ``MemberRequest`` is one that passed ``login_required``, so its
``user`` is an account, never the anonymous user.
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.http import HttpRequest
from django_htmx.middleware import HtmxDetails


class HtmxRequest(HttpRequest):
    htmx: HtmxDetails


class MemberRequest(HtmxRequest):
    user: User
