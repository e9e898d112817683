"""Battle pages and their HTMX endpoints. Views call services and render partials; no rule lives here.

Every view starts with ``combat.access.battle_for(request, pk)``: a battle of a campaign
the user is not a member of does not exist for them (404). Writes answer an HTMX
request with a message for ``#battle-messages`` plus the viewer's regions swapped
out of band; a refusal is a 4xx with its reason (battle.js tells htmx to swap
4xx responses into ``#battle-messages``). Without JavaScript, forms post and redirect.
"""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import HttpResponse
from django.middleware.csrf import get_token
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from combat import campaign_push, marks, odds, presenters, services, setup
from combat.access import battle_for
from combat.engine.actions import RefusalCode
from combat.engine.rulesets import get_ruleset
from combat.engine.told import Teller, told
from combat.engine.view import Viewer
from combat.forms import (
    AddCombatantsForm,
    BadInput,
    NewBattleForm,
    action_from_post,
    ascii_int,
    client_token,
    page_seq,
)
from combat.models import BattleEvent
from combat.outcome import outcome_for
from combat.presenters import gm, plans
from combat.presenters.log import log_entries
from combat.presenters.memo import battle_urls
from combat.setup import numbered_names
from combat.table import LOG_WINDOW, load_table
from vtt import chat
from vtt.access import campaign_for
from vtt.content import bestiary, template_slug
from vtt.forms import BattleMapForm
from vtt.models import Character, CharacterKind, MapImage, Role
from vtt.requests import HtmxRequest

LIVE_HEADER = "X-VTT-Live"  # battle.js sets it while the socket is open: regions arrive by push
# The tag of a site message meant for the battle page (it shows no other: one left from an earlier page is stale).
FOR_THE_BATTLE = "battle-page"


def _viewer(request: HtmxRequest, role: str) -> str | None:
    return None if role == Role.GM else str(request.user.pk)


#: The HTTP status of each kind of refusal: 409 for a stale page, 403 for someone acting beyond their
#: role or characters, 404 for a battle that is gone, 422 for input or a rule's refusal.
HTTP_STATUS: dict[RefusalCode, int] = {
    RefusalCode.STALE: 409,
    RefusalCode.NOT_YOURS: 403,
    RefusalCode.NOT_FOUND: 404,
    RefusalCode.NOT_YOUR_TURN: 422,
    RefusalCode.WAITING: 422,
    RefusalCode.OUT_OF_RANGE: 422,
    RefusalCode.NOT_ALLOWED: 422,
    RefusalCode.BAD_INPUT: 422,
}


def _status_for(result: services.Result) -> int:
    return HTTP_STATUS[result.code or RefusalCode.NOT_ALLOWED]


def _message(text: str, ok: bool, seq: int | None = None) -> str:
    """A message; ``seq``: the change it tells of (table-flow.js clears it once the battle moves past it)."""
    if seq is None:
        return format_html('<p class="msg {}">{}</p>', "ok outcome" if ok else "bad", text)
    return format_html('<p class="msg {}" data-seq="{}">{}</p>', "ok outcome" if ok else "bad", seq, text)


def _reply(
    request: HtmxRequest,
    battle_id: int,
    role: str,
    ok: bool,
    text: str,
    status: int = 200,
    seq: int | None = None,
) -> HttpResponse:
    """HTMX: the message plus the viewer's fresh regions (unless the socket brings them). Else: redirect."""
    if not request.htmx:
        (messages.success if ok else messages.error)(request, text, extra_tags=FOR_THE_BATTLE)
        return redirect("battle", battle_id)
    body = _message(text, ok, seq)
    if not ok or request.headers.get(LIVE_HEADER) != "1":
        table = load_table(battle_id)
        if table is not None:
            body += presenters.regions_for(table, role, _viewer(request, role))
    response = HttpResponse(body, status=status)
    if not ok:
        response["HX-Retarget"] = "#battle-messages"
        response["HX-Reswap"] = "innerHTML"
    return response


def _result(
    request: HtmxRequest, battle_id: int, role: str, result: services.Result, done: str
) -> HttpResponse:
    if result.ok:
        text = "Already done: that tap was counted once." if result.duplicate else done
        return _reply(request, battle_id, role, True, text, seq=result.seq)
    reason = result.reason
    if result.state is not None:  # the rules' refusal names no one the viewer may not know of
        reason = told(result.state, Viewer(role=role, user_id=_viewer(request, role))).sentence(reason)
    return _reply(request, battle_id, role, False, reason, _status_for(result))


@login_required
@require_http_methods(["GET", "POST"])
def battle_new(request: HtmxRequest, pk: int) -> HttpResponse:
    campaign, _ = campaign_for(request, pk, roles=[Role.GM])
    characters = list(
        Character.objects.filter(campaign=campaign).select_related("owner").order_by("name", "pk")
    )
    party = [c for c in characters if c.kind == CharacterKind.PC]
    foes = [c for c in characters if c.kind != CharacterKind.PC]
    names = {c.name for c in foes}
    # The bestiary's monsters the campaign has no character of yet (one is made when a battle takes it).
    beasts = [b for b in bestiary(campaign) if b["name"] not in names]
    templates = {f"tpl_{template_slug(b['name'])}": (b["name"], b["sheet"]) for b in beasts}
    monsters = [(f"count_{c.pk}", c.name) for c in foes] + [(k, n) for k, (n, _) in templates.items()]
    board = campaign.ruleset_class.board
    fought = campaign.battles.count()
    initial: dict[str, Any] = {"name": f"Battle {fought + 1}"}
    if not fought and monsters:  # a first battle: the party against one of the first monster, ready to go
        initial[monsters[0][0]] = 1
    form = NewBattleForm(request.POST or None, initial=initial, monsters=monsters, rows_board=board == "rows")
    if request.method == "POST" and form.is_valid():
        result = _setup(request, campaign, form, party, foes, templates)
        if result.ok:
            campaign_push.battles_changed(campaign)
            return redirect("battle", result.battle_id)
        form.add_error(None, result.reason)
    rules = campaign.ruleset_class()
    for name in form.monster_fields:  # each count is described by what its monster is and its HP
        form.fields[name].widget.attrs["aria-describedby"] = f"id_{name}-note"
    own = [
        {"field": form[f"count_{c.pk}"], "kind": c.get_kind_display(), "max_hp": _max_hp(rules, c)}
        for c in foes
    ]
    shelf = [
        {"field": form[f"tpl_{template_slug(b['name'])}"], "homebrew": b["homebrew"], "max_hp": b["max_hp"]}
        for b in beasts
    ]
    context = {
        "campaign": campaign,
        "form": form,
        "party": party,
        "board_kind": board,
        "own_monsters": own,
        "bestiary": shelf,
    }
    return render(request, "combat/battle_new.html", context)


def _max_hp(rules: Any, character: Character) -> int | None:
    """A campaign monster's HP as its sheet gives it (None for a sheet the ruleset cannot read)."""
    sheet, errors = rules.validate_sheet(rules.sheet_schema.defaults() | dict(character.sheet or {}))
    return None if errors else rules.init_combatant(sheet).get("max_hp")


def _setup(
    request: HtmxRequest,
    campaign: Any,
    form: NewBattleForm,
    party: list[Any],
    foes: list[Any],
    templates: dict[str, tuple[str, dict[str, Any]]],
) -> services.Result:
    """Create the battle with the chosen party and monsters (starter monsters become campaign monsters)."""
    counts = form.monster_counts()
    width, height = form.board_size()
    with transaction.atomic():
        recruits = [setup.Recruit(c) for c in party] if form.cleaned_data["party"] else []
        recruits += [setup.Recruit(c, counts[f"count_{c.pk}"]) for c in foes if counts.get(f"count_{c.pk}")]
        for field_name, (name, sheet) in templates.items():
            if counts.get(field_name):
                made = Character.objects.create(
                    campaign=campaign, name=name, kind=CharacterKind.MONSTER, sheet=sheet
                )
                recruits.append(setup.Recruit(made, counts[field_name]))
        result = setup.setup_battle(
            campaign, request.user, form.cleaned_data["name"], width, height, recruits
        )
        if not result.ok:
            transaction.set_rollback(True)  # no starter monster copied for a battle that was not made
    return result


@login_required
@require_GET
def battle_page(request: HtmxRequest, pk: int) -> HttpResponse:
    battle, role = battle_for(request, pk)
    table = load_table(battle.pk, battle)
    assert table is not None
    ctx = presenters.context_for(table, role, _viewer(request, role), get_token(request))
    ctx["viewer_id"] = str(request.user.pk)
    ctx["viewer_colour"] = marks.colour(ctx["viewer_id"], table.members)  # the colour of their pings
    ctx.update(chat.panel_context(battle.campaign, request.user, role))
    if role == Role.GM:
        ctx["characters"] = list(
            Character.objects.filter(campaign_id=battle.campaign_id).order_by("kind", "name")
        )
        if table.state.phase == "setup":
            ctx["odds_html"] = odds.panel_html(
                odds.job_for(table.state, battle.pk), battle.pk, request=request
            )
    return render(request, "combat/battle.html", ctx)


@login_required
@require_POST
def battle_act(request: HtmxRequest, pk: int) -> HttpResponse:
    """Any action: a turn action, an answer, a setup or GM action (services check who may).

    The service's locking read is also the access check: it brings the caller's role, and a
    battle that does not exist or of a campaign the caller is not a member of is a 404 here,
    as ``battle_for`` would answer. Only refusals that come before that read (malformed
    input) ask ``battle_for`` first.
    """
    try:
        posted = action_from_post(request.POST)
    except BadInput as exc:
        battle, member_role = battle_for(request, pk)
        return _reply(request, battle.pk, member_role, False, str(exc), 400)
    service = services.gm_override if posted.payload["kind"].startswith("gm.") else services.submit_action
    result = service(pk, request.user, posted.payload, posted.expected_seq, posted.client_token)
    role = result.role
    if role is None:  # no battle, not a member, or refused before the battle was read
        battle, role = battle_for(request, pk)
        return _result(request, battle.pk, role, result, "")
    return _result(
        request, pk, role, result, _outcome(result, Viewer(role=role, user_id=_viewer(request, role)))
    )


def _outcome(result: services.Result, viewer: Viewer) -> str:
    """The actor's outcome line, with only what this viewer may see (nothing of a combatant in fog)."""
    state = result.state
    if not result.ok or state is None:
        return "Done."
    return outcome_for([(e.type, e.data) for e in result.events], state, viewer)


@login_required
@require_POST
def battle_start(request: HtmxRequest, pk: int) -> HttpResponse:
    battle, role = battle_for(request, pk)
    try:
        seq, token = page_seq(request.POST), client_token(request.POST)
    except BadInput as exc:
        return _reply(request, battle.pk, role, False, str(exc), 400)
    result = services.start_battle(battle.pk, request.user, seq, token)
    if result.ok and not result.duplicate:
        campaign_push.battles_changed(battle.campaign, started=battle)
    first = result.state.current() if result.ok and result.state is not None else None
    return _result(
        request,
        battle.pk,
        role,
        result,
        f"The battle has begun: {first.name} acts first." if first else "The battle has begun.",
    )


@login_required
@require_POST
def battle_undo(request: HtmxRequest, pk: int) -> HttpResponse:
    battle, role = battle_for(request, pk)
    try:
        seq = page_seq(request.POST)
    except BadInput as exc:
        return _reply(request, battle.pk, role, False, str(exc), 400)
    result = services.undo(battle.pk, request.user, seq)
    return _result(request, battle.pk, role, result, "The last event was undone.")


@login_required
@require_POST
def battle_add(request: HtmxRequest, pk: int) -> HttpResponse:
    """Add one or several copies of a campaign character (GM); copies get numbered names."""
    battle, role = battle_for(request, pk)
    if role != Role.GM:
        return _reply(request, battle.pk, role, False, services.GM_ONLY, 403)
    form = AddCombatantsForm(request.POST)
    if not form.is_valid():
        return _reply(request, battle.pk, role, False, "Choose a character and 1 to 20 copies.", 400)
    data = form.cleaned_data
    character = Character.objects.filter(pk=data["character"], campaign_id=battle.campaign_id).first()
    if character is None:
        return _reply(request, battle.pk, role, False, "That character is not in this campaign.", 400)
    character.campaign = battle.campaign
    problem = setup.sheet_problem(character)
    if problem:
        return _add_reply(request, battle.pk, role, False, problem, 422)
    table = load_table(battle.pk, battle)
    assert table is not None
    state = table.state
    params = services.character_params(character)
    side = data["side"] or params["side"]
    names = numbered_names(character.name, [c.name for c in state.combatants.values()], data["count"] or 1)
    token = data["client_token"] or None
    for i, name in enumerate(names):
        place = setup.place_for(state, side, params["sheet"])
        result = services.add_combatant(
            battle.pk,
            request.user,
            character,
            params={"name": name, "side": side},
            **place,
            client_token=f"{token}:{i}" if token else None,
        )
        if not result.ok:
            return _add_reply(request, battle.pk, role, False, result.reason, _status_for(result))
        state = result.state or state
    return _add_reply(request, battle.pk, role, True, f"Added {', '.join(names)}.")


def _add_reply(
    request: HtmxRequest, battle_id: int, role: str, ok: bool, text: str, status: int = 200
) -> HttpResponse:
    """Adding answers beside the Add button, not under the board."""
    response = _reply(request, battle_id, role, ok, text, status)
    if request.htmx:
        response["HX-Retarget"] = "#add-messages"
        response["HX-Reswap"] = "innerHTML"
    return response


@login_required
@require_GET
def battle_log(request: HtmxRequest, pk: int) -> HttpResponse:
    """Older log entries, newest first, before ``?before=<seq>``."""
    battle, role = battle_for(request, pk)
    raw = request.GET.get("before", "")
    # "window": before the newest LOG_WINDOW events, which the battle page shows (its link never changes).
    before = max(1, battle.seq - LOG_WINDOW + 1) if raw == "window" else ascii_int(raw)
    if before is None:
        return HttpResponse(_message("Which entries? The request is malformed.", False), status=400)
    rows = list(
        BattleEvent.objects.filter(battle_id=battle.pk, seq__lt=before)
        .order_by("-seq")
        .values_list("seq", "type", "data")[:LOG_WINDOW]
    )
    state = services.load_state(battle)
    ctx = {
        "log": log_entries(rows, Teller(state, Viewer(role=role))),
        "urls": battle_urls(battle.pk),
        "log_more": len(rows) == LOG_WINDOW and rows[-1][0] > 1,
        "log_oldest": rows[-1][0] if rows else 0,
    }
    html = render_to_string("combat/battle.html#log_older", ctx)
    if not request.htmx:
        return render(request, "combat/battle_log.html", {**ctx, "battle": battle, "older": html})
    return HttpResponse(html)


@login_required
@require_GET
def battle_menu(request: HtmxRequest, pk: int, cid: str) -> HttpResponse:
    """The GM's menu of one token (``combat/token_menu.html``), fetched when it opens."""
    battle, role = battle_for(request, pk)
    if role != Role.GM:
        return HttpResponse(_message(services.GM_ONLY, False), status=403)
    table = load_table(battle.pk, battle)
    html = gm.menu_html(table, cid, get_token(request)) if table is not None else None
    if table is None or html is None:
        return HttpResponse(_message("That combatant is no longer in the battle.", False), status=404)
    return HttpResponse(plans.in_token_menu(html, table, cid))


@login_required
@require_http_methods(["GET", "POST"])
def battle_map(request: HtmxRequest, pk: int) -> HttpResponse:
    """The GM picks the battle's map (a new upload joins the campaign's library) and lays the grid over it."""
    battle, role = battle_for(request, pk)
    if role != Role.GM:
        raise PermissionDenied(services.GM_ONLY)
    maps = list(MapImage.objects.filter(campaign_id=battle.campaign_id))
    initial = {
        "fit": battle.grid_cols == 0,
        "grid_cols": battle.grid_cols or None,
        "grid_offset_x": battle.grid_offset_x,
        "grid_offset_y": battle.grid_offset_y,
    }
    form = BattleMapForm(
        request.POST or None, request.FILES or None, maps=maps, current=battle.map, initial=initial
    )
    status = 200
    if request.method == "POST":
        if form.is_valid():
            data = form.cleaned_data
            fit = data["fit"]
            with transaction.atomic():
                chosen = data["library"]
                if data["image"] is not None:  # a new upload joins the library with the board
                    chosen = MapImage.create_from(battle.campaign, f"{battle.name} map", data["image"])
                result = services.set_map(
                    battle.pk,
                    request.user,
                    chosen,
                    0 if fit else data["grid_cols"] or 0,
                    0 if fit else data["grid_offset_x"] or 0,
                    0 if fit else data["grid_offset_y"] or 0,
                )
                if not result.ok:
                    transaction.set_rollback(True)  # no upload kept for a board that did not change
            if result.ok:
                messages.success(
                    request,
                    "The map is on the board." if chosen else "The board has no map now.",
                    extra_tags=FOR_THE_BATTLE,
                )
                return redirect("battle", battle.pk)
            form.add_error(None, result.reason)
        status = 400
    context = {"battle": battle, "form": form, "maps": maps, "board_kind": get_ruleset(battle.ruleset).board}
    return render(request, "combat/battle_map.html", context, status=status)
