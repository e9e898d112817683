"""One-screen battle setup: a new battle with the party and monsters, each placed where a phone sees it.

A new battle's grid places the two sides facing each other across the middle of
the board, as far apart as the shortest move in the battle (``Ruleset.move_squares``):
each combatant can reach a foe with one move and strike on its first turn
(``board.facing_lines``). On a rows board everyone starts in the sheet's starting
row (the front, unless the sheet says otherwise). ``place_for`` places one more
combatant into a battle beside its own side. The GM may move anyone before the start.

``setup_battle`` creates the battle and adds everyone in one transaction:
either the whole battle exists, or (with the reason) nothing does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from combat import services
from combat.engine import board
from combat.engine.rulesets import get_ruleset
from vtt.content import campaign_content, check_sheet

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


@dataclass
class Recruit:
    """A campaign character to add ``count`` times (copies get numbered names); ``side``: another side
    than its kind's (an NPC fighting with the party)."""

    character: Any
    count: int = 1
    side: str | None = None


def _taken(state: Any) -> set[tuple[int, int]]:
    taken = {(c.pos[0], c.pos[1]) for c in state.combatants.values() if c.pos is not None and c.alive}
    return taken | {(b[0], b[1]) for b in state.blocked}


def free_square(state: Any, side: str) -> list[int] | None:
    """A free square beside the side's line (below its last member), else where the side's line
    would stand in a new battle."""
    taken = _taken(state)
    own = [c.pos for c in state.combatants.values() if c.side == side and c.pos is not None and c.alive]
    if own:
        column = round(sum(p[0] for p in own) / len(own))
        lowest = max(p[1] for p in own if p[0] == column) if any(p[0] == column for p in own) else own[-1][1]
        want = (column, min(state.height - 1, lowest + 1))
    else:
        gap = get_ruleset(state.ruleset).move_squares({})
        lines = board.facing_lines(state.width, state.height, (1, 1), gap)
        want = lines[0][0] if side == "party" else lines[1][0]
    sq = board.nearest_free(want, state.width, state.height, taken, -1 if side == "party" else 1)
    return list(sq) if sq is not None else None


def place_for(state: Any, side: str, sheet: dict[str, Any]) -> dict[str, Any]:
    """Where one more combatant starts: its starting row, or a square beside its side's line."""
    ruleset = get_ruleset(state.ruleset)
    if ruleset.board == "rows":
        return {"row": ruleset.starting_row(sheet)}
    return {"pos": free_square(state, side)}


def formation(state: Any, newcomers: list[tuple[str, dict[str, Any]]]) -> list[dict[str, Any]]:
    """Where each of ``newcomers`` ((side, sheet) in order) starts in a new battle: the two sides facing
    each other one move apart (``board.facing_lines``), or each sheet's starting row."""
    ruleset = get_ruleset(state.ruleset)
    if ruleset.board == "rows":
        return [{"row": ruleset.starting_row(sheet)} for _, sheet in newcomers]
    sheets = [sheet for _, sheet in newcomers] + [c.sheet for c in state.combatants.values()]
    gap = min((ruleset.move_squares(sheet) for sheet in sheets), default=1)
    party = [i for i, (side, _) in enumerate(newcomers) if side == "party"]
    enemy = [i for i, (side, _) in enumerate(newcomers) if side != "party"]
    left, right = board.facing_lines(state.width, state.height, (len(party), len(enemy)), gap, _taken(state))
    places: list[dict[str, Any]] = [{"pos": None} for _ in newcomers]
    for indexes, squares in ((party, left), (enemy, right)):
        for i, sq in zip(indexes, squares, strict=False):
            places[i] = {"pos": list(sq)}
    return places


def sheet_problem(character: Any) -> str | None:
    """Why a character cannot fight: its sheet names content the campaign lacks (with the valid choices)."""
    campaign = character.campaign
    schema = campaign.ruleset_class.sheet_schema
    _, errors = check_sheet(schema, character.sheet or {}, campaign_content(campaign))
    if not errors:
        return None
    labels = {f.key: f.label for f in schema}
    details = " ".join(f"{labels.get(k, k)}: {' '.join(v)}" for k, v in errors.items())
    return f"{character.name} cannot join: edit the sheet. {details}"


class SetupFailed(Exception):
    """Raised inside the transaction to undo a half-made battle; ``str()`` is the reason."""


def add_recruits(
    battle_id: int, user: Any, state: Any, recruits: list[Recruit], token: str | None = None
) -> Any:
    """Add every recruit, the sides placed facing each other (``formation``); returns the state after,
    raises SetupFailed with the reason."""
    planned: list[tuple[Any, dict[str, Any], str]] = []
    names_so_far = [c.name for c in state.combatants.values()]
    for recruit in recruits:
        character = recruit.character
        problem = sheet_problem(character)
        if problem:
            raise SetupFailed(problem)
        params = services.character_params(character)
        params["side"] = recruit.side or params["side"]
        names = numbered_names(character.name, names_so_far, recruit.count)
        names_so_far += names
        planned += [(character, params, name) for name in names]
    places = formation(state, [(params["side"], params["sheet"]) for _, params, _ in planned])
    for i, ((character, params, name), place) in enumerate(zip(planned, places, strict=True)):
        result = services.add_combatant(
            battle_id,
            user,
            character,
            params={"name": name, "side": params["side"]},
            **place,
            client_token=f"{token}:{i}" if token else None,
        )
        if not result.ok:
            raise SetupFailed(f"{character.name}: {result.reason}")
        state = result.state or state
    return state


def setup_battle(
    campaign: Any, user: Any, name: str, width: int, height: int, recruits: list[Recruit]
) -> services.Result:
    """Create a battle with its combatants placed; nothing is written when any part is refused."""
    try:
        with transaction.atomic():
            made = services.create_battle(
                campaign,
                user,
                name,
                width,
                height,
                ruleset=campaign.ruleset,
                options=campaign.house_rules(),
            )
            if not made.ok:
                raise SetupFailed(made.reason)
            assert made.battle_id is not None  # a created battle has its id
            made.state = add_recruits(made.battle_id, user, made.state, recruits)
    except SetupFailed as exc:
        return services.Result(ok=False, reason=str(exc))
    return made
