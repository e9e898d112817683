"""One-screen battle setup: a new battle with the party and monsters, each placed where a phone sees it.

``place_for(state, ruleset, side, sheet)`` is where a new combatant starts:
on a rows board the sheet's starting row; on a grid the party near the left
edge and the enemies a few squares to their right, facing them, inside the
first columns (what a 390 px phone shows without scrolling). The GM may move
anyone before the start.

``setup_battle`` creates the battle and adds everyone in one transaction:
either the whole battle exists, or (with the reason) nothing does.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from combat import services
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


PARTY_COLUMNS = (1, 0, 2)
ENEMY_COLUMNS = (5, 6, 4)
PHONE_ROWS = 7  # squares a phone shows top to bottom above its action panel


@dataclass
class Recruit:
    """A campaign character to add ``count`` times (copies get numbered names)."""

    character: Any
    count: int = 1


def _free(state: Any) -> set[tuple[int, int]]:
    taken = {tuple(c.pos) for c in state.combatants.values() if c.pos is not None and c.alive}
    return taken | {tuple(b) for b in state.blocked}


def free_square(state: Any, side: str) -> list[int] | None:
    """The party's columns near the left, the enemies' a few squares right of them; rows top down."""
    taken = _free(state)
    columns: tuple[int, ...] = PARTY_COLUMNS if side == "party" else ENEMY_COLUMNS
    if state.width <= max(ENEMY_COLUMNS):
        # A narrow board: the party on the left edge, enemies on the right edge.
        columns = (0, 1) if side == "party" else (state.width - 1, state.width - 2)
    rows = list(range(min(state.height, PHONE_ROWS)))
    for x in columns:
        for y in rows:
            if 0 <= x < state.width and (x, y) not in taken:
                return [x, y]
    xs = range(state.width) if side == "party" else range(state.width - 1, -1, -1)
    for x in xs:
        for y in range(state.height):
            if (x, y) not in taken:
                return [x, y]
    return None


def place_for(state: Any, side: str, sheet: dict[str, Any]) -> dict[str, Any]:
    ruleset = get_ruleset(state.ruleset)
    if ruleset.board == "rows":
        return {"row": ruleset.starting_row(sheet)}
    return {"pos": free_square(state, side)}


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
    """Add every recruit (auto-placed); returns the state after, raises SetupFailed with the reason."""
    for r_index, recruit in enumerate(recruits):
        character = recruit.character
        problem = sheet_problem(character)
        if problem:
            raise SetupFailed(problem)
        params = services.character_params(character)
        names = numbered_names(character.name, [c.name for c in state.combatants.values()], recruit.count)
        for i, name in enumerate(names):
            place = place_for(state, params["side"], params["sheet"])
            result = services.add_combatant(
                battle_id,
                user,
                character,
                params={"name": name, "side": params["side"]},
                **place,
                client_token=f"{token}:{r_index}:{i}" if token else None,
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
            add_recruits(made.battle_id, user, made.state, recruits)
    except SetupFailed as exc:
        return services.Result(ok=False, reason=str(exc))
    return made
