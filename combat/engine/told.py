"""What a viewer may be told, at one seq: the one decision every sentence a viewer gets goes through.

A log line, an outcome line, a player's notice, a prompt, a tactics reason, a turn line, a refusal:
each names only combatants the viewer may know of at that moment, decided here as the tokens are
(``view.view_for``), and with the numbers ``view.filter_event`` leaves. ``told(state, viewer, seq)``
gives the ``Told`` of an event's seq (``seq=None``: now):

- who the viewer may not know of then (``veil.out_of_sight``: in fog, hidden by the GM, or before the
  battle began, and not on their side), and whose numbers they may not see then (the house rule
  "Hide exact enemy HP" as it stood at that seq: ``veil.options_at``). A line is told as of its own
  seq: a reveal shows a combatant from then on and does not replay its hidden past; a line told while
  it was seen stays told.
- ``Told.event``: an event's data as the viewer may read it (``view.event_data_for``: None when it is
  about one they may not know of), and the rules' words in it (a tactics reason, a chosen option) said
  without such a name (``Told.sentence``);
- ``Told.sentence``: the rules' words about what happened or why. An explanation that names one the
  viewer may not know of (after ": ", or in brackets) is left out ("Goblin 2 steps back to the back
  row: badly hurt, and Goblin 3 holds the front." reads "Goblin 2 steps back to the back row."); a
  name left reads "someone unseen";
- ``Told.question``: a question put to the viewer keeps all its words; a name reads "someone unseen"
  (they perceive the attack, not the attacker).

The GM is told everything.

>>> from combat.engine.view import Viewer
>>> t = Told(False, frozenset(), frozenset({"c3"}), {"c2": "Goblin 2", "c3": "Goblin 3"})
>>> t.sentence("Goblin 2 steps back to the back row: badly hurt, and Goblin 3 holds the front.")
'Goblin 2 steps back to the back row.'
>>> t.sentence("It is not Ash's turn (it is Goblin 3's)."), t.question("Goblin 3 attacks Ash: parry?")
("It is not Ash's turn.", 'someone unseen attacks Ash: parry?')
>>> t.event("tactics.chose", {"actor": "c2", "reason": "Goblin 2 uses Potion on Goblin 3: Goblin 3 is hurt."})
{'actor': 'c2', 'reason': 'Goblin 2 uses Potion on someone unseen.'}
>>> t.event("turn.started", {"combatant": "c3", "index": 1, "round": 1}) is None
True
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from combat.engine import fog, veil
from combat.engine.state import BattleState
from combat.engine.view import Viewer, event_data_for, hidden_ids, subject, unseen_ids, viewer_sides

# The fields of an event that name who did it (not whom it befell).
DOERS = frozenset({"actor", "source", "by", "by_id", "by_combatant"})
# An explanation after the words it explains: ": ..." to the end, or "(...)".
_BRACKETS = re.compile(r"\s*\([^()]*\)")


@dataclass(frozen=True)
class Told:
    """What one viewer may be told at one seq (``told``): ``hidden`` whose numbers, ``unseen`` who at all."""

    gm: bool
    hidden: frozenset[str]
    unseen: frozenset[str]
    names: Mapping[str, str] = field(default_factory=dict)

    @property
    def _gone(self) -> list[str]:
        return [self.names[cid] for cid in self.unseen if cid in self.names]

    @property
    def _kept(self) -> list[str]:
        return [name for cid, name in self.names.items() if cid not in self.unseen]

    def names_unseen(self, text: str) -> bool:
        """Whether ``text`` names a combatant this viewer may not know of."""
        return bool(self.unseen) and fog.named(text, self._gone, self._kept)

    def sentence(self, text: str) -> str:
        """The rules' words about what happened, as this viewer may be told them."""
        if self.gm or not self.names_unseen(text):
            return text
        head, colon, tail = text.partition(": ")
        if colon and self.names_unseen(tail):
            text = head.rstrip(" .") + "."
        text = _BRACKETS.sub(lambda m: "" if self.names_unseen(m.group(0)) else m.group(0), text)
        return fog.unnamed(text, self._gone, self._kept)

    def question(self, text: str) -> str:
        """A question put to this viewer, with whom they may not know of unnamed."""
        if self.gm or not self.unseen:
            return text
        return fog.unnamed(text, self._gone, self._kept)

    def event(self, etype: str, data: object) -> dict[str, Any] | None:
        """An event's data as this viewer may read it, or None when it is about one they may not know of."""
        shown = event_data_for(etype, data, self.hidden, self.unseen, self.gm)
        if shown is None or self.gm or not self.unseen:
            return shown
        out: dict[str, Any] = self._said(shown)
        return out

    def felt(self, etype: str, data: object, mine: Collection[str]) -> dict[str, Any] | None:
        """An event that befalls one of the viewer's own combatants (``mine``) as they feel it: told
        like ``event``, with whoever did it left out when the viewer may not know of them (a hit from
        the fog is felt, not seen). None for an event about someone else."""
        if not isinstance(data, dict) or subject(data) not in mine:
            return None
        return self.event(etype, {k: v for k, v in data.items() if not (k in DOERS and v in self.unseen)})

    def _said(self, value: Any) -> Any:
        """Every piece of words in an event's data, as ``sentence`` tells it."""
        if isinstance(value, str):
            return self.sentence(value) if self.names_unseen(value) else value
        if isinstance(value, dict):
            return {k: self._said(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._said(v) for v in value]
        return value


def told(
    state: BattleState, viewer: Viewer, seq: int | None = None, names: Mapping[str, str] | None = None
) -> Told:
    """What ``viewer`` may be told of the battle at ``seq`` (an event's; None: now); ``names``: every
    combatant's (made from the state when not given)."""
    if names is None:
        names = {cid: c.name for cid, c in state.combatants.items()}
    if viewer.role == "gm":
        return Told(True, frozenset(), frozenset(), names)
    if seq is None or seq >= state.seq or not veil.kept(state):
        return Told(False, hidden_ids(state, viewer), unseen_ids(state, viewer), names)
    sides = viewer_sides(state, viewer)
    hide = bool(veil.options_at(state, seq).get("hide_enemy_hp", True))
    return Told(False, hidden_ids(state, viewer, hide), veil.out_of_sight(state, seq, sides), names)


class Teller:
    """The ``Told`` of each seq for one viewer of one state (the lines of a log window, a change's events).

    ``key``: what the lines it tells depend on besides their own seq (a memo of told lines holds while
    it is the same): nothing but the names, where the state keeps its veil; else who is unseen and
    hidden now (a state stored before the veil tells its past as of now).
    """

    def __init__(self, state: BattleState, viewer: Viewer) -> None:
        self.state, self.viewer = state, viewer
        self.now = told(state, viewer)
        kept = self.now.gm or veil.kept(state)
        self.key: tuple[Any, ...] = (
            tuple(self.now.names.items()),
            () if kept else (self.now.hidden, self.now.unseen),
        )

    def at(self, seq: int) -> Told:
        """What the viewer may be told of the event at ``seq``."""
        if self.now.gm or seq >= self.state.seq:
            return self.now
        return told(self.state, self.viewer, seq, self.now.names)
