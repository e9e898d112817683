"""The plan menu of a tap on the board (``combat.presenters.plans``): what the viewer's acting
combatant can do to a token or on a square this turn, each with its plan. Read-only: a plan is played
by posting its steps to ``battle_act``, one ordinary action each."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.views.decorators.http import require_GET

from combat.access import battle_for
from combat.presenters import plans
from combat.table import load_table
from vtt.models import Role

MAX_ID = 16  # a combatant id ("c12") is far shorter


@login_required
@require_GET
def battle_plans(request: HttpRequest, pk: int) -> HttpResponse:
    """``?target=<combatant id>`` or ``?at=<x>,<y>``: the menu by that token or square."""
    battle, role = battle_for(request, pk)
    target = request.GET.get("target") or None
    at = request.GET.get("at")
    if (target is None and at is None) or (target is not None and len(target) > MAX_ID):
        return _answer(plans.Menu(400, {"message": "Tap a token or a square of the board."}))
    table = load_table(battle.pk, battle)
    if table is None:
        return _answer(plans.Menu(404, {"message": "This battle is gone."}))
    user_id = None if role == Role.GM else str(request.user.pk)
    return _answer(plans.menu(table, role, user_id, target, at))


def _answer(found: plans.Menu) -> HttpResponse:
    return HttpResponse(render_to_string(plans.TEMPLATE, found.context), status=found.status)
