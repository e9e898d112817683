"""Dice: the ``d20`` library behind a seeded, recording roller (ENG-2, ENG-3).

The ``d20`` library parses and evaluates the expression (``"2d6+3"``,
``"4d6kh3"``...). Its dice normally draw from the global ``random`` module;
here each die draws its face from the roller it was made by, so a battle's
dice are reproducible from ``(seed, salt)`` and tests can script every face.

>>> Dice(7, 3).roll("2d6+1", "damage").total == Dice(7, 3).roll("2d6+1", "damage").total
True
>>> r = ScriptedDice([4, 6]).roll("2d6+1", "damage")
>>> (r.faces, r.total)
([4, 6], 11)
"""

from __future__ import annotations

import random
import threading
from dataclasses import dataclass, field
from typing import Any, Protocol

import d20
from d20 import diceast as _ast
from d20 import expression as _expr

MAX_EXPR_LENGTH = 100


class DiceError(ValueError):
    """A dice expression that cannot be rolled (bad syntax, too many dice)."""


class DiceExhausted(RuntimeError):
    """Scripted dice were asked for more faces than the test supplied."""


@dataclass(frozen=True)
class Roll:
    """One recorded roll: the expression, every die face drawn (in order), the total, why."""

    expr: str
    faces: list[int] = field(default_factory=list)
    total: int = 0
    purpose: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"expr": self.expr, "faces": list(self.faces), "total": self.total, "purpose": self.purpose}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Roll:
        return cls(d["expr"], list(d.get("faces", [])), int(d.get("total", 0)), d.get("purpose", ""))


class DiceRoller(Protocol):
    """What the engine rolls with: ``Dice`` in play, ``ScriptedDice`` in tests."""

    def roll(self, expr: str, purpose: str = "") -> Roll: ...


class _Context(d20.RollContext):
    """Carries the face source of the roller currently rolling into d20's dice."""

    def __init__(self, source: _FaceSource | None) -> None:
        super().__init__(max_rolls=1000)
        self.source = source


class _Die(_expr.Die):
    __slots__ = ()

    def _add_roll(self) -> None:  # noqa: D401 - d20 hook
        if self.size != "%" and self.size < 1:
            raise d20.RollValueError("Cannot roll a 0-sided die.")
        ctx: _Context = self._context
        ctx.count_roll()
        if ctx.source is None:
            raise RuntimeError("A die was rolled outside _FaceSource.roll.")
        if self.size == "%":
            face = (ctx.source.face(10) - 1) * 10
        else:
            face = ctx.source.face(self.size)
        self.values.append(_expr.Literal(face))


class _DiceSet(_expr.Dice):
    __slots__ = ()

    @classmethod
    def new(cls, num: int, size: int | str, context: _Context | None = None) -> _DiceSet:
        return cls(num, size, [_Die.new(size, context=context) for _ in range(num)], context=context)

    def roll_another(self) -> None:
        self.values.append(_Die.new(self.size, context=self._context))


class _Roller(d20.Roller):
    """d20's roller, with dice whose faces come from our sources."""

    context: _Context

    def _eval_dice(self, node: _ast.Dice) -> _DiceSet:
        return _DiceSet.new(node.num, node.size, context=self.context)


_STRINGIFIER = d20.SimpleStringifier()
_LOCAL = threading.local()


def _roller() -> _Roller:
    """This thread's roller: its context points at the dice rolling now, so it is never shared."""
    roller = getattr(_LOCAL, "roller", None)
    if roller is None:
        roller = _LOCAL.roller = _Roller(_Context(None))
    return roller


class _FaceSource:
    """Base of Dice and ScriptedDice: rolls an expression, records the faces."""

    def __init__(self) -> None:
        self.history: list[Roll] = []
        self._faces: list[int] = []

    def face(self, size: int) -> int:  # pragma: no cover - overridden
        raise NotImplementedError

    def _record(self, size: int, value: int) -> int:
        self._faces.append(value)
        return value

    def roll(self, expr: str, purpose: str = "") -> Roll:
        """Roll ``expr`` with the d20 library; every die face is kept in the returned ``Roll``."""
        if not isinstance(expr, str) or not expr.strip() or len(expr) > MAX_EXPR_LENGTH:
            raise DiceError(f"Not a dice expression: {expr!r}")
        self._faces = []
        roller = _roller()
        ctx = roller.context
        ctx.source = self
        try:
            result = roller.roll(expr, stringifier=_STRINGIFIER)
        except d20.RollError as exc:
            raise DiceError(f"Cannot roll {expr!r}: {exc}") from None
        finally:
            ctx.source = None
        roll = Roll(expr, self._faces, int(result.total), purpose)
        self.history.append(roll)
        return roll


class Dice(_FaceSource):
    """Seeded dice: ``Dice(seed, salt)`` always produces the same faces.

    Services build ``Dice(battle.seed, battle.seq)`` so each action draws
    fresh but reproducible numbers.
    """

    def __init__(self, seed: int, salt: int = 0) -> None:
        super().__init__()
        self.seed = seed
        self.salt = salt
        self._rng: random.Random | None = None  # made on the first die: most actions roll none

    def face(self, size: int) -> int:
        if self._rng is None:
            self._rng = random.Random(f"{self.seed}:{self.salt}")
        return self._record(size, self._rng.randrange(size) + 1)


class ScriptedDice(_FaceSource):
    """Dice for tests: each die takes the next face of ``faces``.

    Raises ``DiceExhausted`` when a die is rolled after the list ran out, and
    ``DiceError`` when a scripted face does not fit the die.
    """

    def __init__(self, faces: list[int]) -> None:
        super().__init__()
        self.faces = list(faces)
        self._next = 0

    def face(self, size: int) -> int:
        if self._next >= len(self.faces):
            raise DiceExhausted(f"Scripted dice exhausted after {self._next} faces (needed a d{size}).")
        value = self.faces[self._next]
        self._next += 1
        if not 1 <= value <= size:
            raise DiceError(f"Scripted face {value} does not fit a d{size}.")
        return self._record(size, value)

    @property
    def remaining(self) -> int:
        return len(self.faces) - self._next


def check_expr(expr: Any) -> str | None:
    """Return an error message when ``expr`` is not a usable dice expression, else None."""
    if not isinstance(expr, str) or not expr.strip():
        return "Enter a dice expression such as 1d8+2."
    if len(expr) > MAX_EXPR_LENGTH:
        return "Dice expression is too long."
    try:
        _roller().parse(expr)
    except d20.RollError:
        return "Not a dice expression (write it like 1d8+2)."
    return None
