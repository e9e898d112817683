""" "Try a battle" from the home page: one click makes the visitor's throwaway table (``combat.trial``) and
opens its running battle. The home page (``vtt``) links here by the URL's name."""

from __future__ import annotations

import logging

from django.contrib import messages
from django.contrib.auth import login
from django.http import HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from combat import trial
from combat.engine.rulesets import RULESETS
from vtt.requests import HtmxRequest
from vtt.throttle import signup_allowed

log = logging.getLogger(__name__)


@require_POST
def trial_start(request: HtmxRequest) -> HttpResponse:
    if request.user.is_authenticated and not trial.is_visitor(request.user):
        messages.info(request, "You are logged in: start a battle from one of your campaigns.")
        return redirect("campaigns")
    key = request.POST.get("ruleset", "")
    if key not in RULESETS:
        messages.error(request, "Choose one of the rulesets to try.")
        return redirect("home")
    if not signup_allowed(request):  # each table is an account: counted as sign-ups are
        messages.error(request, "Too many tables from your network. Try again in an hour.")
        return redirect("home")
    try:
        made = trial.start_trial(key)
    except trial.TrialFailed as exc:
        log.warning("trial table for %s not made: %s", key, exc)
        messages.error(request, f"The table could not be made: {exc}")
        return redirect("home")
    login(request, made.user, backend="django.contrib.auth.backends.ModelBackend")
    return redirect("battle", made.battle_id)
