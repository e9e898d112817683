"""Scenarios: build a battle of any ruleset from sheets and content, script the dice, act, read the state.

For tests and for anyone checking how the rules play out, without a database
or a web page. Every action goes through the engine's public ``resolve`` (the
same path as the web table), and ``rebuilt()`` replays the log (ENG-1).

>>> from combat.engine.rulesets.luck import HEROES, MONSTERS
>>> b = Battle("luck", width=6, height=4)
>>> hero = b.add("Ayla", "party", pos=(0, 0), **HEROES["Fighter"])
>>> bear = b.add("Bear", "enemy", pos=(1, 0), kind="monster", **MONSTERS["Cave Bear"])
>>> _ = b.act("setup.start", dice=[15, 3])          # initiative: Ayla 15 + 2, the bear 3 + 0
>>> b.state.current().name
'Ayla'
>>> events = b.act("ability", hero, dice=[12, 6], weapon="sword", targets=[bear])
>>> b.types(events)
['ability.used', 'luck.rolled', 'damage.rolled', 'damage.dealt']
>>> b.c(bear).hp < b.c(bear).max_hp
True
>>> b.try_act("ability", hero, weapon="sword", targets=["nobody"]).reason
'Not a valid target for that ability.'
>>> b.rebuilt() == b.state
True
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from combat.engine.actions import Action, ActionOption, Refusal
from combat.engine.core import legal_actions, new_battle_event, replay, resolve, view_for
from combat.engine.dice import ScriptedDice
from combat.engine.events import Event
from combat.engine.state import BattleState, Combatant
from combat.engine.view import Viewer

__all__ = ["Battle"]


class Battle:
    """A battle in a scenario: its log, its current state, and a way to act with scripted dice.

    ``ruleset`` is a registered key; ``options`` house rules (defaults for the
    rest); ``content`` a custom content pack over the ruleset's starter pack
    (ENG-10); ``blocked`` squares that no one may enter.
    """

    def __init__(
        self,
        ruleset: str,
        options: dict[str, Any] | None = None,
        width: int = 10,
        height: int = 8,
        blocked: Iterable[Sequence[int]] = (),
        seed: int = 1,
        content: dict[str, Any] | None = None,
    ) -> None:
        self.log: list[Event] = [
            new_battle_event(ruleset, options or {}, seed, width, height, blocked, content)
        ]
        self.state: BattleState = replay(self.log)

    def act(
        self, kind: str, actor: str | None = None, dice: list[int] | None = None, **params: Any
    ) -> list[Event]:
        """Submit an action as ``actor`` (None: the GM) with ``dice`` as the faces rolled, in order.

        Returns the events (and applies them); a refusal raises AssertionError
        with its reason. Every scripted face must be used.
        """
        out = self.try_act(kind, actor, dice, **params)
        assert not isinstance(out, Refusal), out.reason
        return out

    def try_act(
        self, kind: str, actor: str | None = None, dice: list[int] | None = None, **params: Any
    ) -> list[Event] | Refusal:
        """Like ``act``, but a refusal is returned (and nothing changed)."""
        return self.submit(kind, actor, dice, params)

    def submit(
        self, kind: str, actor: str | None, dice: list[int] | None, params: dict[str, Any]
    ) -> list[Event] | Refusal:
        scripted = ScriptedDice(dice or [])
        out = resolve(self.state, Action(kind, actor, params), scripted)
        if isinstance(out, Refusal):
            return out
        events, self.state = out
        assert scripted.remaining == 0, f"{scripted.remaining} scripted faces unused"
        self.log.extend(events)
        return events

    def add(
        self,
        name: str,
        side: str = "party",
        pos: Sequence[int] | None = None,
        kind: str | None = None,
        controller: str | None = None,
        row: str | None = None,
        **sheet: Any,
    ) -> str:
        """Add a combatant with this sheet (setup, or a GM addition once running); returns its id."""
        params: dict[str, Any] = {"name": name, "side": side, "sheet": sheet, "controller": controller}
        if kind:
            params["kind"] = kind
        if pos is not None:
            params["pos"] = list(pos)
        if row is not None:
            params["row"] = row
        events = self.submit("setup.add_combatant", None, None, params)
        assert not isinstance(events, Refusal), events.reason
        cid: str = events[0].data["combatant"]["id"]
        return cid

    def c(self, cid: str) -> Combatant:
        """The combatant ``cid`` now."""
        return self.state.combatants[cid]

    def options(self, cid: str) -> list[ActionOption]:
        """What ``cid`` may do now (ENG-5)."""
        return legal_actions(self.state, cid)

    def view(self, role: str = "gm", user_id: str | None = None) -> dict[str, Any]:
        """What a viewer sees (``"gm"``, or ``"player"`` with a ``user_id``)."""
        return view_for(self.state, Viewer(role, user_id))

    def rebuilt(self) -> BattleState:
        """The state replayed from the log (ENG-1): equal to ``state``."""
        return replay(self.log)

    def types(self, events: Iterable[Event]) -> list[str]:
        return [e.type for e in events]
