"""Setup and GM actions (ENG-7), generic for every ruleset.

Each handler is ``handler(ctx, action) -> Refusal | None``; it validates the
untrusted params first and emits nothing when it refuses (ENG-4).
"""

from __future__ import annotations

from typing import Any

from combat.engine.actions import Action, Refusal
from combat.engine.board import as_square
from combat.engine.context import Ctx, check_victory, end_turn, start_battle, start_next_turn
from combat.engine.fog import gm_fog
from combat.engine.house import gm_house_rule
from combat.engine.state import KINDS, ROWS, SIDES, BattleState, Combatant

MAX_COMBATANTS = 60


def _combatant(state: BattleState, params: dict[str, Any]) -> Combatant | Refusal:
    cid = params.get("combatant")
    c = state.combatants.get(cid) if isinstance(cid, str) else None
    return c if c is not None else Refusal("No such combatant.")


def _position(
    ctx: Ctx, params: dict[str, Any], mover: Combatant | None, name: str = "pos"
) -> dict[str, Any] | Refusal:
    """Validate the square ``params[name]`` (grid boards) or ``row`` (rows boards) for placing a combatant."""
    state = ctx.state
    if ctx.rules.board == "rows":
        row = params.get("row", "front")
        if row not in ROWS:
            return Refusal("Row must be front or back.")
        return {"row": row}
    if params.get(name) is None:
        return {"pos": None}
    sq = as_square(params.get(name), state.width, state.height)
    if sq is None:
        return Refusal("That square is not on the board.")
    if list(sq) in state.blocked:
        return Refusal("That square is blocked.")
    other = state.occupant(sq)
    if other is not None and other is not mover:
        return Refusal(f"{other.name} already stands there.")
    return {"pos": list(sq)}


def _new_combatant(ctx: Ctx, p: dict[str, Any]) -> dict[str, Any] | Refusal:
    state = ctx.state
    if len(state.combatants) >= MAX_COMBATANTS:
        return Refusal(f"A battle holds at most {MAX_COMBATANTS} combatants.")
    name = p.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 80:
        return Refusal("Give the combatant a name (at most 80 characters).")
    side = p.get("side", "party")
    if side not in SIDES:
        return Refusal("Side must be party or enemy.")
    kind = p.get("kind", "pc" if side == "party" else "monster")
    if kind not in KINDS:
        return Refusal("Kind must be pc, npc or monster.")
    controller = p.get("controller")
    if controller is not None and (not isinstance(controller, str | int) or isinstance(controller, bool)):
        return Refusal("Controller must be a user id.")
    character_id = p.get("character_id")
    if character_id is not None and (type(character_id) is not int):
        return Refusal("Character id must be a number.")
    raw = p.get("sheet") or {}
    if not isinstance(raw, dict):
        return Refusal("The sheet must be an object of named values.")
    # Missing stats take the schema's defaults; present ones are validated.
    sheet, errors = ctx.rules.validate_sheet({**ctx.rules.sheet_schema.defaults(), **raw})
    if errors:
        text = "; ".join(f"{k}: {' '.join(v)}" for k, v in sorted(errors.items()))
        return Refusal(f"Invalid sheet: {text}")
    msg = ctx.rules.check_sheet_content(state, sheet)
    if msg:
        return Refusal(msg)
    place = _position(ctx, p, None)
    if isinstance(place, Refusal):
        return place
    init = ctx.rules.init_combatant(sheet)
    cid = f"c{state.extra.get('next_id', 1)}"
    c = Combatant(
        cid,
        name.strip(),
        side,
        kind,
        None if controller is None else str(controller),
        character_id,
        sheet,
        init["hp"],
        init["max_hp"],
        init.get("resources", {}),
        {},
        place.get("pos"),
        place.get("row"),
        True,
        False,
        init.get("extra", {}),
    )
    return c.to_dict()


def setup_add(ctx: Ctx, action: Action) -> Refusal | None:
    made = _new_combatant(ctx, action.params)
    if isinstance(made, Refusal):
        return made
    ctx.emit("combatant.added", combatant=made)
    return None


def setup_place(ctx: Ctx, action: Action) -> Refusal | None:
    c = _combatant(ctx.state, action.params)
    if isinstance(c, Refusal):
        return c
    place = _position(ctx, action.params, c)
    if isinstance(place, Refusal):
        return place
    ctx.emit("combatant.placed", combatant=c.id, **place)
    return None


def setup_remove(ctx: Ctx, action: Action) -> Refusal | None:
    c = _combatant(ctx.state, action.params)
    if isinstance(c, Refusal):
        return c
    ctx.emit("combatant.removed", combatant=c.id)
    return None


def setup_start(ctx: Ctx, action: Action) -> Refusal | None:
    state = ctx.state
    sides = {c.side for c in state.combatants.values()}
    if len(sides) < 2:
        return Refusal("A battle needs combatants on both sides.")
    if ctx.rules.board == "grid" and any(c.pos is None for c in state.combatants.values()):
        return Refusal("Place every combatant on the board before starting.")
    start_battle(ctx)
    return None


def gm_set_hp(ctx: Ctx, action: Action) -> Refusal | None:
    c = _combatant(ctx.state, action.params)
    if isinstance(c, Refusal):
        return c
    hp, delta = action.params.get("hp"), action.params.get("delta")
    if hp is None and type(delta) is int and -9999 <= delta <= 9999:
        hp = max(0, min(c.max_hp, c.hp + delta))  # up or down by an amount, within 0 and the maximum
    if type(hp) is not int or not 0 <= hp <= c.max_hp:
        return Refusal(f"HP must be a whole number from 0 to {c.max_hp}.")
    ctx.emit("hp.set", combatant=c.id, hp=hp, by="gm", **ctx.rules.hp_fields(c, hp))
    return None


def gm_set_resource(ctx: Ctx, action: Action) -> Refusal | None:
    c = _combatant(ctx.state, action.params)
    if isinstance(c, Refusal):
        return c
    resource, value = action.params.get("resource"), action.params.get("value")
    if not isinstance(resource, str) or resource not in c.resources:
        known = ", ".join(sorted(c.resources)) or "none"
        return Refusal(f"Unknown resource (known: {known}).")
    if type(value) is not int or not 0 <= value <= 999:
        return Refusal("Value must be a whole number from 0 to 999.")
    ctx.emit("resources.set", combatant=c.id, resources={resource: value}, by="gm")
    return None


def gm_add_status(ctx: Ctx, action: Action) -> Refusal | None:
    c = _combatant(ctx.state, action.params)
    if isinstance(c, Refusal):
        return c
    p = action.params
    status, power, duration = p.get("status"), p.get("power", 1), p.get("duration", 1)
    keys = ctx.rules.status_keys(ctx.state)
    if not isinstance(status, str) or not status or (keys is not None and status not in keys):
        return Refusal("Unknown status." + (f" Known: {', '.join(sorted(keys))}." if keys else ""))
    if (
        type(power) is not int
        or not 0 <= power <= 999
        or type(duration) is not int
        or not 1 <= duration <= 99
    ):
        return Refusal("Power must be 0-999 and duration 1-99.")
    ctx.emit("status.applied", combatant=c.id, status=status, power=power, duration=duration, by="gm")
    return None


def gm_remove_status(ctx: Ctx, action: Action) -> Refusal | None:
    c = _combatant(ctx.state, action.params)
    if isinstance(c, Refusal):
        return c
    status = action.params.get("status")
    if not isinstance(status, str) or status not in c.statuses:
        return Refusal(f"{c.name} does not have that status.")
    ctx.emit("status.removed", combatant=c.id, status=status, by="gm")
    return None


def gm_move(ctx: Ctx, action: Action) -> Refusal | None:
    c = _combatant(ctx.state, action.params)
    if isinstance(c, Refusal):
        return c
    if ctx.rules.board == "rows":
        row = action.params.get("row")
        if row not in ROWS:
            return Refusal("Row must be front or back.")
        ctx.emit("row.changed", combatant=c.id, row=row, by="gm")
        return None
    if action.params.get("to") is None:
        return Refusal("Choose a square.")
    place = _position(ctx, action.params, c, "to")
    if isinstance(place, Refusal):
        return place
    ctx.emit("moved", combatant=c.id, path=[c.pos, place["pos"]], to=place["pos"], by="gm")
    return None


def may_hide(c: Combatant) -> bool:
    """Whether the GM may hide ``c`` from the players: a monster or NPC, never a player's character."""
    return c.kind != "pc" and c.controller is None


def gm_hide(ctx: Ctx, action: Action) -> Refusal | None:
    """Hide a combatant from the players (they know nothing of it, as of one in fog) or reveal it."""
    c = _combatant(ctx.state, action.params)
    if isinstance(c, Refusal):
        return c
    hidden = action.params.get("hidden")
    if hidden is True and not may_hide(c):
        return Refusal(f"{c.name} is a player's character: it cannot be hidden from the players.")
    if type(hidden) is not bool:
        return Refusal("Hide or reveal: say which.")
    if bool(c.extra.get("hidden")) == hidden:
        return Refusal(f"{c.name} is already {'hidden' if hidden else 'in view'}.")
    ctx.emit("combatant.hidden", combatant=c.id, hidden=hidden, by="gm")
    return None


def gm_skip_turn(ctx: Ctx, action: Action) -> Refusal | None:
    if ctx.state.phase != "active" or ctx.state.current() is None:
        return Refusal("No turn to skip.")
    if ctx.state.pending is not None:
        return Refusal("Answer the pending reaction first.")
    end_turn(ctx, skipped_by="gm")
    return None


def gm_add_combatant(ctx: Ctx, action: Action) -> Refusal | None:
    made = _new_combatant(ctx, action.params)
    if isinstance(made, Refusal):
        return made
    ctx.emit("combatant.added", combatant=made, by="gm")
    return None


def gm_remove_combatant(ctx: Ctx, action: Action) -> Refusal | None:
    state = ctx.state
    c = _combatant(state, action.params)
    if isinstance(c, Refusal):
        return c
    if state.pending is not None:
        return Refusal("Answer the pending reaction first.")
    was_current = state.current() is c
    ctx.emit("combatant.removed", combatant=c.id, by="gm")
    if state.phase == "active" and not check_victory(ctx) and was_current:
        start_next_turn(ctx, state.turn)
    return None


def gm_end_battle(ctx: Ctx, action: Action) -> Refusal | None:
    reason = action.params.get("reason") or "Ended by the GM."
    if not isinstance(reason, str) or len(reason) > 200:
        return Refusal("Reason must be text of at most 200 characters.")
    winner = action.params.get("winner")
    if winner is not None and winner not in SIDES:
        return Refusal("Winner must be party, enemy or none.")
    ctx.emit("battle.ended", result={"winner": winner, "reason": reason, "by": "gm"})
    return None


SETUP_ACTIONS = {
    "setup.add_combatant": setup_add,
    "setup.place": setup_place,
    "setup.remove_combatant": setup_remove,
    "setup.start": setup_start,
}


def gm_tactics(ctx: Ctx, action: Action) -> Refusal | None:
    """ENG-7: the rules' tactics play the turn of the monster or NPC acting now (``tactics.play_turn``)."""
    from combat.engine.tactics import play_turn  # the tactics read the core, which reads this module

    return play_turn(ctx, action)


GM_ACTIONS = {
    "gm.set_hp": gm_set_hp,
    "gm.set_resource": gm_set_resource,
    "gm.add_status": gm_add_status,
    "gm.remove_status": gm_remove_status,
    "gm.move": gm_move,
    "gm.skip_turn": gm_skip_turn,
    "gm.add_combatant": gm_add_combatant,
    "gm.remove_combatant": gm_remove_combatant,
    "gm.end_battle": gm_end_battle,
    "gm.fog": gm_fog,
    "gm.tactics": gm_tactics,
    "gm.hide": gm_hide,
    "gm.house_rule": gm_house_rule,
}
