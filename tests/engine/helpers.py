"""Shared helpers for engine tests: build battles quickly, play actions, check replay."""

from __future__ import annotations

from typing import Any

from combat.engine.actions import Action, Refusal
from combat.engine.core import new_battle_event, replay, resolve
from combat.engine.dice import ScriptedDice
from combat.engine.events import Event
from combat.engine.state import BattleState


class Battle:
    """A battle under test: its log, its current state, and a way to act with scripted dice."""

    def __init__(self, ruleset: str = "luck", options: dict[str, Any] | None = None, width: int = 10,
                 height: int = 8, blocked=(), seed: int = 1, content=None) -> None:
        self.log: list[Event] = [new_battle_event(ruleset, options or {}, seed, width, height, blocked, content)]
        self.state: BattleState = replay(self.log)

    def act(self, kind: str, actor: str | None = None, dice: list[int] | None = None, **params: Any):
        """Submit an action; return the events (raises on refusal) and apply them."""
        out = self.try_act(kind, actor, dice, **params)
        assert not isinstance(out, Refusal), out.reason
        return out

    def try_act(self, kind: str, actor: str | None = None, dice: list[int] | None = None, **params: Any):
        return self.submit(kind, actor, dice, params)

    def submit(self, kind: str, actor: str | None, dice: list[int] | None, params: dict[str, Any]):
        scripted = ScriptedDice(dice or [])
        out = resolve(self.state, Action(kind, actor, params), scripted)
        if isinstance(out, Refusal):
            return out
        events, self.state = out
        assert scripted.remaining == 0, f"{scripted.remaining} scripted faces unused"
        self.log.extend(events)
        return events

    def add(self, name: str, side: str = "party", pos=None, kind: str | None = None, controller=None,
            row: str | None = None, **sheet: Any) -> str:
        params: dict[str, Any] = {"name": name, "side": side, "sheet": sheet, "controller": controller}
        if kind:
            params["kind"] = kind
        if pos is not None:
            params["pos"] = list(pos)
        if row is not None:
            params["row"] = row
        events = self.submit("setup.add_combatant", None, None, params)
        assert not isinstance(events, Refusal), events.reason
        return events[0].data["combatant"]["id"]

    def c(self, cid: str):
        return self.state.combatants[cid]

    def rebuilt(self) -> BattleState:
        return replay(self.log)

    def types(self, events) -> list[str]:
        return [e.type for e in events]
