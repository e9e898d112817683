"""Battle state: plain, JSON-safe data (the DB snapshot is ``BattleState.to_dict()``).

State changes only by applying events (``core.apply``). ``Combatant.sheet``
is treated as immutable once added (a change replaces the dict), so clones
may share it.

>>> s = BattleState(ruleset="luck", options={}, seed=1, width=8, height=6)
>>> BattleState.from_dict(s.to_dict()).to_dict() == s.to_dict()
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

PHASES = ("setup", "active", "ended")
# Where a paused turn flow (``extra["flow"]["at"]``) stands between two turns, not inside one.
BETWEEN_TURNS = ("round_start", "round_end", "turn")
SIDES = ("party", "enemy")
KINDS = ("pc", "npc", "monster")
ROWS = ("front", "back")


def copy_json(value: Any) -> Any:
    """Deep copy of a JSON-like value (dicts, lists, scalars); much faster than ``copy.deepcopy``."""
    if isinstance(value, dict):
        return {k: copy_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [copy_json(v) for v in value]
    return value


OLD_APPLIER_NAMES = ("by_id", "by_combatant")


def status_fields(fields: dict[str, Any], combatants: Any) -> dict[str, Any]:
    """A status's fields with today's names: ``by`` who applied it; what caused it named like the action
    parameters (``ability``, ``item``, ``object``).

    Logs and snapshots stored before named the applier ``by_id`` (Action Block grapples),
    ``by_combatant`` (Paradigm) or ``source`` (D20 Luck, Mist, Action Block spells); those are read
    once into ``by``. ``combatants`` holds the battle's combatant ids (a ``source`` naming one of them,
    with no other applier given, is the old spelling of ``by``). Paradigm's cause, stored beside
    ``by_combatant`` as ``source: "item:ether"``, is read as ``item: "ether"``. ``by: "gm"`` stays in the
    log only.
    """
    out = {k: v for k, v in fields.items() if k not in OLD_APPLIER_NAMES}
    if "by_combatant" in fields and isinstance(out.get("source"), str):
        prefix, _, key = out.pop("source").partition(":")
        out.update({prefix: key} if key else {"ability": prefix})
    if "by" not in out:
        old = next((fields[k] for k in OLD_APPLIER_NAMES if k in fields), None)
        if old is not None:
            out["by"] = old
        elif not any(k in fields for k in OLD_APPLIER_NAMES) and out.get("source") in combatants:
            out["by"] = out.pop("source")
    if out.get("by") == "gm" or ("by" in out and out["by"] is None):
        del out["by"]
    return out


@dataclass(slots=True)
class Combatant:
    """A token in the battle. ``controller`` is a user id as a string; None means the GM."""

    id: str
    name: str
    side: str = "party"
    kind: str = "pc"
    controller: str | None = None
    character_id: int | None = None
    sheet: dict[str, Any] = field(default_factory=dict)
    hp: int = 0
    max_hp: int = 0
    resources: dict[str, int] = field(default_factory=dict)
    statuses: dict[str, dict[str, Any]] = field(default_factory=dict)
    pos: list[int] | None = None
    row: str | None = None
    alive: bool = True
    ko: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def able(self) -> bool:
        """Alive and not knocked out: counts for victory and takes turns."""
        return self.alive and not self.ko

    @property
    def square(self) -> tuple[int, int]:
        """``pos`` as ``(x, y)`` on a grid board, where every combatant in play stands on a square.

        Raises ``ValueError`` for a combatant without one (a rows board, or a bug).
        """
        if self.pos is None:
            raise ValueError(f"{self.name} is not on the board.")
        return (self.pos[0], self.pos[1])

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "name": self.name,
            "side": self.side,
            "kind": self.kind,
            "controller": self.controller,
            "character_id": self.character_id,
            "sheet": self.sheet,
            "hp": self.hp,
            "max_hp": self.max_hp,
            "resources": dict(self.resources),
            "statuses": {k: dict(v) for k, v in self.statuses.items()},
            "pos": list(self.pos) if self.pos is not None else None,
            "row": self.row,
            "alive": self.alive,
            "ko": self.ko,
            "extra": copy_json(self.extra),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Combatant:
        pos = d.get("pos")
        return cls(
            d["id"],
            d["name"],
            d.get("side", "party"),
            d.get("kind", "pc"),
            d.get("controller"),
            d.get("character_id"),
            d.get("sheet") or {},
            d.get("hp", 0),
            d.get("max_hp", 0),
            dict(d.get("resources") or {}),
            {k: dict(v) for k, v in (d.get("statuses") or {}).items()},
            list(pos) if pos is not None else None,
            d.get("row"),
            d.get("alive", True),
            d.get("ko", False),
            copy_json(d.get("extra") or {}),
        )

    def clone(self) -> Combatant:
        return Combatant(
            self.id,
            self.name,
            self.side,
            self.kind,
            self.controller,
            self.character_id,
            self.sheet,
            self.hp,
            self.max_hp,
            dict(self.resources),
            {k: dict(v) for k, v in self.statuses.items()},
            list(self.pos) if self.pos is not None else None,
            self.row,
            self.alive,
            self.ko,
            copy_json(self.extra) if self.extra else {},
        )


@dataclass(slots=True)
class Decision:
    """A pending reaction window (ENG-6), addressed to one combatant's controller.

    ``options`` are ``{"key", "label"}`` dicts; ``default`` is the NPC policy's
    choice; ``resume`` is the ruleset's private continuation (JSON) used to
    finish the paused action once answered. Players do not see ``resume``.
    ``gm_only`` prompts (a roll the GM rules on) are answered by the GM alone.
    ``prompt`` is the question put to the one who answers ("Switch job before your turn?"); ``about``
    says what is being decided to everyone else, after the name ("decides whether to switch job").
    """

    id: str
    combatant: str
    controller: str | None
    prompt: str
    options: list[dict[str, str]]
    default: str
    trigger: str = ""
    resume: dict[str, Any] = field(default_factory=dict)
    gm_only: bool = False
    about: str = ""

    def choice_keys(self) -> list[str]:
        return [o["key"] for o in self.options]

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "id": self.id,
            "combatant": self.combatant,
            "controller": self.controller,
            "prompt": self.prompt,
            "options": [dict(o) for o in self.options],
            "default": self.default,
            "trigger": self.trigger,
            "resume": copy_json(self.resume),
            "gm_only": self.gm_only,
        }
        if self.about:  # stored only when said: snapshots written before keep their shape
            d["about"] = self.about
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Decision:
        return cls(
            d["id"],
            d["combatant"],
            d.get("controller"),
            d.get("prompt", ""),
            [dict(o) for o in d.get("options", [])],
            d.get("default", ""),
            d.get("trigger", ""),
            copy_json(d.get("resume") or {}),
            bool(d.get("gm_only", False)),
            str(d.get("about", "")),
        )


@dataclass(slots=True)
class BattleState:
    """The whole battle. ``turn`` indexes ``order``; ``seq`` counts applied events."""

    ruleset: str
    options: dict[str, Any]
    seed: int
    width: int = 10
    height: int = 10
    blocked: list[list[int]] = field(default_factory=list)
    combatants: dict[str, Combatant] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    turn: int = 0
    round: int = 0
    phase: str = "setup"
    pending: Decision | None = None
    result: dict[str, Any] | None = None
    seq: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    def current(self) -> Combatant | None:
        """The combatant whose turn it is, or None outside an active turn."""
        if self.phase != "active" or not self.order or not 0 <= self.turn < len(self.order):
            return None
        return self.combatants.get(self.order[self.turn])

    def acting(self) -> Combatant | None:
        """The combatant whose turn is under way: ``current()``, or None while the turn flow waits between
        turns for an answer (a phase at a round's start or end asks someone: nobody acts meanwhile)."""
        flow = self.extra.get("flow")
        if self.pending is not None and isinstance(flow, dict) and flow.get("at") in BETWEEN_TURNS:
            return None
        return self.current()

    def occupant(self, pos: list[int] | tuple[int, int]) -> Combatant | None:
        """The living combatant standing on ``pos``, if any."""
        x, y = pos[0], pos[1]
        for c in self.combatants.values():
            if c.alive and c.pos is not None and c.pos[0] == x and c.pos[1] == y:
                return c
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "options": dict(self.options),
            "seed": self.seed,
            "width": self.width,
            "height": self.height,
            "blocked": [list(b) for b in self.blocked],
            "combatants": {k: c.to_dict() for k, c in self.combatants.items()},
            "order": list(self.order),
            "turn": self.turn,
            "round": self.round,
            "phase": self.phase,
            "pending": self.pending.to_dict() if self.pending else None,
            "result": copy_json(self.result),
            "seq": self.seq,
            "extra": copy_json(self.extra),
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> BattleState:
        pending = d.get("pending")
        state = cls(
            d["ruleset"],
            dict(d.get("options") or {}),
            d.get("seed", 0),
            d.get("width", 10),
            d.get("height", 10),
            [list(b) for b in d.get("blocked", [])],
            {k: Combatant.from_dict(c) for k, c in (d.get("combatants") or {}).items()},
            list(d.get("order", [])),
            d.get("turn", 0),
            d.get("round", 0),
            d.get("phase", "setup"),
            Decision.from_dict(pending) if pending else None,
            copy_json(d.get("result")),
            d.get("seq", 0),
            copy_json(d.get("extra") or {}),
        )
        for c in state.combatants.values():  # statuses stored under older field names (status_fields)
            c.statuses = {k: status_fields(v, state.combatants) for k, v in c.statuses.items()}
        return state

    def clone(self) -> BattleState:
        """An independent copy (sheets and options shared: they are replaced, never edited)."""
        return BattleState(
            self.ruleset,
            self.options,
            self.seed,
            self.width,
            self.height,
            self.blocked,
            {k: c.clone() for k, c in self.combatants.items()},
            list(self.order),
            self.turn,
            self.round,
            self.phase,
            Decision.from_dict(self.pending.to_dict()) if self.pending else None,
            copy_json(self.result),
            self.seq,
            copy_json(self.extra) if self.extra else {},
        )
