"""Battle pages and their HTMX endpoints. Views call services and render partials; no rule lives here.

Every view starts with ``_battle_for(request, pk)``: a battle of a campaign the
user is not a member of does not exist for them (404). Writes answer an HTMX
request with a message for ``#battle-messages`` plus the viewer's regions swapped
out of band; a refusal is a 4xx with its reason (battle.js tells htmx to swap
4xx responses into ``#battle-messages``). Without JavaScript, forms post and redirect.
"""

from __future__ import annotations

import re
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from combat import live, services
from combat.engine.rulesets import get_ruleset
from combat.forms import AddCombatantsForm, BadInput, NewBattleForm, action_from_post
from combat.models import Battle, BattleEvent
from vtt.access import campaign_for
from vtt.models import Character, Role

LIVE_HEADER = "X-VTT-Live"  # battle.js sets it while the socket is open: regions arrive by push


def _battle_for(request: HttpRequest, pk: int) -> tuple[Battle, str]:
    battle = Battle.objects.select_related("campaign").filter(pk=pk).first()
    if battle is None:
        raise Http404("No such battle.")
    _, membership = campaign_for(request, battle.campaign_id)
    return battle, membership.role


def _viewer(request: HttpRequest, role: str) -> str | None:
    return None if role == Role.GM else str(request.user.pk)


FORBIDDEN = {services.NOT_YOURS, services.GM_ONLY, services.NOT_MEMBER, "That decision is not yours to make."}


def _status_for(reason: str) -> int:
    """409 for a stale page, 403 for someone acting beyond their role, 422 for a rule's refusal."""
    if reason == services.STALE:
        return 409
    if reason in FORBIDDEN or reason.startswith("Observers"):
        return 403
    return 422


def _message(text: str, ok: bool) -> str:
    return format_html('<p class="msg {}">{}</p>', "ok" if ok else "bad", text)


def _reply(request: HttpRequest, battle: Battle, role: str, ok: bool, text: str, status: int = 200) -> HttpResponse:
    """HTMX: the message plus the viewer's fresh regions (unless the socket brings them). Else: redirect."""
    if not request.htmx:
        (messages.success if ok else messages.error)(request, text)
        return redirect("battle", battle.pk)
    body = _message(text, ok)
    if not ok or request.headers.get(LIVE_HEADER) != "1":
        table = live.load_table(battle.pk)
        if table is not None:
            body += live.regions_for(table, role, _viewer(request, role))
    response = HttpResponse(body, status=status)
    if not ok:
        response["HX-Retarget"] = "#battle-messages"
        response["HX-Reswap"] = "innerHTML"
    return response


def _result(request: HttpRequest, battle: Battle, role: str, result: services.Result, done: str) -> HttpResponse:
    if result.ok:
        text = "Already done: that tap was counted once." if result.duplicate else done
        return _reply(request, battle, role, True, text)
    return _reply(request, battle, role, False, result.reason, _status_for(result.reason))


@login_required
@require_http_methods(["GET", "POST"])
def battle_new(request: HttpRequest, pk: int) -> HttpResponse:
    campaign, _ = campaign_for(request, pk, roles=[Role.GM])
    form = NewBattleForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        result = services.create_battle(
            campaign, request.user, form.cleaned_data["name"], form.cleaned_data["width"],
            form.cleaned_data["height"], ruleset=campaign.ruleset, options=campaign.house_rules(),
        )
        if result.ok:
            return redirect("battle", result.battle_id)
        form.add_error(None, result.reason)
    return render(request, "combat/battle_new.html", {"campaign": campaign, "form": form})


@login_required
@require_GET
def battle_page(request: HttpRequest, pk: int) -> HttpResponse:
    battle, role = _battle_for(request, pk)
    table = live.load_table(battle.pk, battle)
    assert table is not None
    ctx = live.context_for(table, role, _viewer(request, role))
    ctx["viewer_id"] = str(request.user.pk)
    if role == Role.GM:
        ctx["characters"] = list(Character.objects.filter(campaign_id=battle.campaign_id).order_by("kind", "name"))
    return render(request, "combat/battle.html", ctx)


@login_required
@require_POST
def battle_act(request: HttpRequest, pk: int) -> HttpResponse:
    """Any action: a turn action, an answer, a setup or GM action (services check who may)."""
    battle, role = _battle_for(request, pk)
    try:
        posted = action_from_post(request.POST)
    except BadInput as exc:
        return _reply(request, battle, role, False, str(exc), 400)
    kind = posted.payload["kind"]
    if kind.startswith("gm."):
        result = services.gm_override(battle.pk, request.user, posted.payload, posted.expected_seq,
                                      posted.client_token)
    else:
        result = services.submit_action(battle.pk, request.user, posted.payload, posted.expected_seq,
                                        posted.client_token)
    return _result(request, battle, role, result, "Done.")


@login_required
@require_POST
def battle_start(request: HttpRequest, pk: int) -> HttpResponse:
    battle, role = _battle_for(request, pk)
    seq = request.POST.get("expected_seq") or None
    result = services.start_battle(battle.pk, request.user, seq, request.POST.get("client_token") or None)
    return _result(request, battle, role, result, "The battle begins: initiative is in the log.")


@login_required
@require_POST
def battle_undo(request: HttpRequest, pk: int) -> HttpResponse:
    battle, role = _battle_for(request, pk)
    result = services.undo(battle.pk, request.user, request.POST.get("expected_seq") or None)
    return _result(request, battle, role, result, "The last event was undone.")


_NUMBERED = re.compile(r"^(?P<base>.*?)(?: (?P<n>\d+))?$")


def numbered_names(base: str, existing: list[str], count: int) -> list[str]:
    """Names for ``count`` copies of ``base``: "Goblin", or "Goblin 1", "Goblin 2"... after those present."""
    taken = 0
    for name in existing:
        m = _NUMBERED.match(name)
        if m and m.group("base") == base:
            taken = max(taken, int(m.group("n") or 1))
        elif name == base:
            taken = max(taken, 1)
    if count == 1 and taken == 0:
        return [base]
    return [f"{base} {taken + i + 1}" for i in range(count)]


def free_square(state: Any, side: str) -> list[int] | None:
    """Where a new token starts: party from the left edge, enemies from the right, column by column."""
    taken = {tuple(c.pos) for c in state.combatants.values() if c.pos is not None and c.alive}
    taken |= {tuple(b) for b in state.blocked}
    columns = range(state.width) if side == "party" else range(state.width - 1, -1, -1)
    for x in columns:
        for y in range(state.height):
            if (x, y) not in taken:
                return [x, y]
    return None


@login_required
@require_POST
def battle_add(request: HttpRequest, pk: int) -> HttpResponse:
    """Add one or several copies of a campaign character (GM); copies get numbered names."""
    battle, role = _battle_for(request, pk)
    if role != Role.GM:
        return _reply(request, battle, role, False, services.GM_ONLY, 403)
    form = AddCombatantsForm(request.POST)
    if not form.is_valid():
        return _reply(request, battle, role, False, "Choose a character and 1 to 20 copies.", 400)
    data = form.cleaned_data
    character = Character.objects.filter(pk=data["character"], campaign_id=battle.campaign_id).first()
    if character is None:
        return _reply(request, battle, role, False, "That character is not in this campaign.", 400)
    table = live.load_table(battle.pk, battle)
    assert table is not None
    state = table.state
    params = services.character_params(character)
    side = data["side"] or params["side"]
    names = numbered_names(character.name, [c.name for c in state.combatants.values()], data["count"] or 1)
    token = data["client_token"] or None
    for i, name in enumerate(names):
        place: dict[str, Any] = {}
        if get_ruleset(state.ruleset).board == "rows":
            place["row"] = "front"
        else:
            place["pos"] = free_square(state, side)
        result = services.add_combatant(
            battle.pk, request.user, character, params={"name": name, "side": side}, **place,
            client_token=f"{token}:{i}" if token else None,
        )
        if not result.ok:
            return _reply(request, battle, role, False, result.reason, _status_for(result.reason))
        state = result.state or state
    return _reply(request, battle, role, True, f"Added {', '.join(names)}.")


@login_required
@require_GET
def battle_log(request: HttpRequest, pk: int) -> HttpResponse:
    """Older log entries, newest first, before ``?before=<seq>``."""
    battle, role = _battle_for(request, pk)
    try:
        before = int(request.GET.get("before", ""))
    except ValueError:
        return HttpResponse(_message("Which entries? The request is malformed.", False), status=400)
    rows = list(
        BattleEvent.objects.filter(battle_id=battle.pk, seq__lt=before)
        .order_by("-seq")
        .values_list("seq", "type", "data")[: live.LOG_WINDOW]
    )
    state = services.load_state(battle)
    hidden = set()
    if role != Role.GM and state.options.get("hide_enemy_hp", True):
        hidden = {cid for cid, c in state.combatants.items() if c.side == "enemy"}
    names = {cid: c.name for cid, c in state.combatants.items()}
    ctx = {
        "log": live.log_entries(rows, names, hidden),
        "urls": live.battle_urls(battle.pk),
        "log_more": len(rows) == live.LOG_WINDOW and rows[-1][0] > 1,
        "log_oldest": rows[-1][0] if rows else 0,
    }
    html = render_to_string("combat/battle.html#log_older", ctx)
    if not request.htmx:
        return render(request, "combat/battle_log.html", {**ctx, "battle": battle, "older": html})
    return HttpResponse(html)
