"""Kept battles: replay an ended battle step by step, export it as JSON, import one.

Replay renders the board, tracker and log regions of the battle page from the
engine's replay of the first N stored events, as the viewer's role sees them.
Export and import are the GM's (a player gets 403, a stranger 404).
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.text import slugify
from django.views.decorators.http import require_GET, require_http_methods

from combat import aftermath, archive, presenters
from combat.access import battle_for
from combat.models import Battle
from combat.table import LOG_WINDOW, Table, members_of, vclass_of
from combat.views import FOR_THE_BATTLE
from vtt.access import campaign_for
from vtt.models import Role
from vtt.requests import HtmxRequest


@login_required
@require_GET
def battle_replay(request: HtmxRequest, pk: int) -> HttpResponse:
    battle, role = battle_for(request, pk)
    if battle.status != Battle.Status.ENDED:
        messages.error(request, "Only an ended battle can be replayed.", extra_tags=FOR_THE_BATTLE)
        return redirect("battle", battle.pk)
    events = archive.events_of(battle)
    total = len(events)
    try:
        step = int(request.GET.get("step", "1"))
    except ValueError:
        step = 1
    step = max(1, min(step, total))
    state = archive.state_at(events, step)
    rows = [(i + 1, e.type, e.data) for i, e in enumerate(events[:step])][::-1][:LOG_WINDOW]
    table = Table(battle, state, rows, members_of(battle.campaign_id))
    ctx = presenters.shared_context(table, vclass_of(role))
    ctx.update(
        {
            "step": step,
            "total": total,
            "role": role,
            "viewer_id": str(request.user.pk),
            "log_more": False,
            "replay": True,
        }
    )
    if request.htmx:
        return render(request, "combat/replay.html#replay_regions", ctx)
    return render(request, "combat/replay.html", ctx)


@login_required
@require_GET
def battle_export(request: HttpRequest, pk: int) -> HttpResponse:
    battle, role = battle_for(request, pk)
    if role != Role.GM:
        return HttpResponse("Only the GM can export a battle.", status=403)
    body = json.dumps(archive.export_battle(battle), ensure_ascii=False)
    response = HttpResponse(body, content_type="application/json; charset=utf-8")
    response["Content-Disposition"] = (
        f'attachment; filename="{slugify(battle.name) or "battle"}-{battle.pk}.json"'
    )
    return response


@login_required
@require_http_methods(["GET", "POST"])
def battle_import(request: HttpRequest, pk: int) -> HttpResponse:
    campaign, membership = campaign_for(request, pk, roles=[Role.GM])
    context: dict[str, Any] = {"campaign": campaign, "membership": membership}
    if request.method == "POST":
        upload = request.FILES.get("file")
        if upload is None:
            context["reason"] = "Choose a battle file (.json)."
        elif (upload.size or 0) > archive.MAX_BYTES:
            context["reason"] = "The file is too large (at most 2 MB)."
        else:
            done = archive.import_battle(campaign, upload.read(), request.user)
            if done.ok:
                assert done.battle is not None  # an imported battle is there
                messages.success(request, f"{done.battle.name} imported; its replay is ready.")
                return redirect("battle_replay", done.battle.pk)
            context["reason"] = done.reason
        return render(request, "combat/battle_import.html", context, status=400)
    return render(request, "combat/battle_import.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def battle_summary(request: HttpRequest, pk: int) -> HttpResponse:
    """The end-of-battle summary per character; applied to the sheets only when the GM confirms."""
    battle, role = battle_for(request, pk)
    if role != Role.GM:
        return HttpResponse("Only the GM applies a battle's results.", status=403)
    ended = battle.status == Battle.Status.ENDED
    rows = aftermath.summary(battle) if ended else []
    problem = aftermath.can_apply(battle)
    context = {
        "battle": battle,
        "rows": rows,
        "problem": problem,
        "campaign": battle.campaign,
        "outcome": aftermath.outcome(battle) if ended else None,
    }
    if request.method == "POST":
        if problem:
            messages.error(request, problem)
            return redirect("battle_summary", battle.pk)
        ok, text = aftermath.apply(battle, rows, request.POST, request.user)
        if ok:
            messages.success(request, text)
            return redirect("campaign", battle.campaign_id)
        context["error"] = text
        return render(request, "combat/summary.html", context, status=400)
    return render(request, "combat/summary.html", context)
