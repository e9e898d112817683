"""The commands around a battle's play: making it (``create_battle``), laying a picture under its
board (``set_map``), keeping one played elsewhere (``store_imported_battle``) and writing what it did
to the sheets (``apply_after_battle``). Each is one transaction of ``combat.store``'s statements.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from typing import Any

from combat import store
from combat.command_base import GM_ONLY, MAX_BOARD, Result, lock_for_gm, on_commit, refused
from combat.engine.actions import Refusal, RefusalCode
from combat.engine.core import new_battle_event, replay
from combat.engine.events import Event
from combat.engine.rulesets import UnknownRuleset, get_ruleset
from combat.engine.state import BattleState
from combat.store import role_of
from vtt.homebrew import battle_content
from vtt.models import Campaign, MapImage, Role


def create_battle(
    campaign: Any,
    user: Any,
    name: str,
    width: int,
    height: int,
    blocked: Iterable[Any] = (),
    *,
    ruleset: str | None = None,
    options: dict[str, Any] | None = None,
    seed: int | None = None,
    content: dict[str, Any] | None = None,
) -> Result:
    """Create a battle (GM only); its log starts with the "battle.created" event (seq 1).

    ``ruleset`` defaults to the campaign's; ``options`` are the house rules
    (validated, defaults filled in), ``content`` an optional custom content
    pack (ENG-10) checked by the ruleset; by default the campaign's own content
    (``vtt.homebrew.battle_content``), so a battle keeps the version of each
    homebrew entry it started with.
    """
    campaign_id = getattr(campaign, "pk", campaign)
    if ruleset is None:
        ruleset = getattr(campaign, "ruleset", None) or (store.campaign_ruleset(campaign_id))
    name = name.strip() if isinstance(name, str) else ""
    if not name or len(name) > 120:
        return refused("Give the battle a name (up to 120 characters).", code=RefusalCode.BAD_INPUT)
    try:
        rules = get_ruleset(ruleset) if isinstance(ruleset, str) else None
    except UnknownRuleset:
        rules = None
    if rules is None:
        return refused(f"Unknown ruleset {ruleset!r}.", code=RefusalCode.BAD_INPUT)
    options, errors = rules.validate_options(options)
    if errors:
        return refused(
            "; ".join(f"{k}: {' '.join(v)}" for k, v in errors.items()), code=RefusalCode.BAD_INPUT
        )
    if not all(type(n) is int and 1 <= n <= MAX_BOARD for n in (width, height)):
        return refused(f"The board is 1 to {MAX_BOARD} squares on each side.", code=RefusalCode.BAD_INPUT)
    squares = _squares(blocked, width, height)
    if isinstance(squares, Refusal):
        return refused(squares)
    if seed is None:
        seed = secrets.randbits(48)
    with store.writing():
        if role_of(user, campaign_id) != Role.GM:
            return refused(GM_ONLY, code=RefusalCode.NOT_YOURS)
        if content is None:
            content = battle_content(campaign_id) or None
        try:
            event = new_battle_event(rules.key, options, seed, width, height, squares, content)
        except ValueError as exc:
            return refused(str(exc), code=RefusalCode.BAD_INPUT)
        state = replay([event])
        battle = store.new_battle(campaign_id, name, rules.key, seed, state, [event], actor_id=user.pk)
        on_commit(battle.pk, 1)
    return Result(ok=True, events=[event], seq=1, state=state, battle_id=battle.pk)


def _squares(blocked: Iterable[Any], width: int, height: int) -> list[list[int]] | Refusal:
    squares: list[list[int]] = []
    try:
        for square in blocked:
            x, y = square
            if not (type(x) is int and type(y) is int and 0 <= x < width and 0 <= y < height):
                return Refusal("A blocked square lies outside the board.", RefusalCode.BAD_INPUT)
            if [x, y] not in squares:
                squares.append([x, y])
    except (TypeError, ValueError):
        return Refusal("Blocked squares are [x, y] pairs.", RefusalCode.BAD_INPUT)
    return squares


def set_map(
    battle_id: Any,
    user: Any,
    image: MapImage | None,
    grid_cols: int = 0,
    grid_offset_x: int = 0,
    grid_offset_y: int = 0,
) -> Result:
    """Lay a picture of the campaign's map library under the board (None: no picture) and the grid
    over it (GM only): ``grid_cols`` squares across the picture from the offsets, 0 to stretch it.

    Not an event (the log tells the battle, the picture is the table's), but a new board: the
    version goes up, so nothing rendered before it is shown after, and the table is pushed.
    """
    with store.writing():
        battle = lock_for_gm(battle_id, user)
        if isinstance(battle, Result):
            return battle
        if image is not None and image.campaign_id != battle.campaign_id:
            return refused("That map is not in this campaign's library.", battle, code=RefusalCode.BAD_INPUT)
        store.set_board_picture(battle, image, grid_cols, grid_offset_x, grid_offset_y)
        on_commit(battle.pk, battle.seq)
    return Result(ok=True, seq=battle.seq, battle_id=battle.pk, role=battle.role)


def store_imported_battle(
    campaign: Campaign, user: Any, name: str, state: BattleState, events: list[Event]
) -> Result:
    """Keep a battle played elsewhere (GM only): its whole log and the state it replays to, as
    ``combat.archive.import_battle`` checked them. Kept as it was: it is replayed, never played on."""
    with store.writing():
        if role_of(user, campaign.pk) != Role.GM:
            return refused(GM_ONLY, code=RefusalCode.NOT_YOURS)
        battle = store.new_battle(campaign.pk, name, state.ruleset, state.seed, state, events, imported=True)
    return Result(ok=True, seq=battle.seq, state=state, battle_id=battle.pk, role=Role.GM)


ALREADY_APPLIED = "This battle's summary was already applied to the sheets."


def apply_after_battle(battle_id: Any, user: Any, sheets: list[tuple[int, dict[str, Any]]]) -> Result:
    """Write what a battle did to its campaign's characters (GM only, once per battle): each
    (character id, sheet) of ``sheets``, checked by ``combat.aftermath.apply``, all or none."""
    with store.writing():
        battle = lock_for_gm(battle_id, user)
        if isinstance(battle, Result):
            return battle
        if battle.applied is not None:
            return refused(ALREADY_APPLIED, battle)
        store.apply_sheets(battle, sheets)
    return Result(ok=True, seq=battle.seq, battle_id=battle.pk, role=battle.role)
