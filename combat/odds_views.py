"""The GM's odds of a battle's set-up (``combat.odds``): ask, watch, cancel. Players get a 403."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_http_methods, require_POST

from combat import odds
from combat.access import battle_for
from combat.engine.state import BattleState
from vtt.models import Role


def _gm_battle_id(request: HttpRequest, pk: int) -> int:
    battle, role = battle_for(request, pk)
    if role != Role.GM:
        raise PermissionDenied("Only the GM sees the odds.")
    return battle.pk


@login_required
@require_http_methods(["GET", "POST"])
def battle_odds(request: HttpRequest, pk: int) -> HttpResponse:
    """GET: the odds panel as it is now (the page polls it while a job runs); POST: check the odds
    of the set-up (or retry a failed check)."""
    battle_id = _gm_battle_id(request, pk)
    if request.method == "GET":
        battle, _ = battle_for(request, pk)
        job = odds.job_for(BattleState.from_dict(battle.snapshot), battle_id)
        return HttpResponse(odds.panel_html(job, battle_id, request=request))
    job, message = odds.check(battle_id, request.user)
    return HttpResponse(odds.panel_html(job, battle_id, message, request), status=400 if message else 200)


@login_required
@require_POST
def battle_odds_cancel(request: HttpRequest, pk: int) -> HttpResponse:
    battle_id = _gm_battle_id(request, pk)
    job, message = odds.cancel(battle_id, request.user)
    return HttpResponse(odds.panel_html(job, battle_id, message, request))
