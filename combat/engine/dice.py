"""Dice: the ``d20`` library behind a seeded, recording roller (ENG-2, ENG-3).

The ``d20`` library parses and evaluates the expression (``"2d6+3"``,
``"4d6kh3"``...). Its dice normally draw from the global ``random`` module;
here each die draws its face from the roller it was made by, so a battle's
dice are reproducible from ``(seed, salt)`` and tests can script every face.

Every expression is bounded before it is rolled (``check_expr``, which the
content, sheet and import checks call too): at most ``MAX_DICE`` dice,
``MAX_FACES`` faces a die, numbers up to ``MAX_NUMBER``, ``MAX_NESTING``
levels, a division only by a number above 0, and a die may explode or be
rerolled (``e``, ``rr``) on at most half its faces, so every roll ends. One
that is not raises ``DiceError`` with the reason in a player's words, before
any die is drawn; the engine turns that into a refusal.

>>> Dice(7, 3).roll("2d6+1", "damage").total == Dice(7, 3).roll("2d6+1", "damage").total
True
>>> r = ScriptedDice([4, 6]).roll("2d6+1", "damage")
>>> (r.faces, r.total)
([4, 6], 11)
"""

from __future__ import annotations

import functools
import random
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

import d20
from d20 import diceast as _ast
from d20 import expression as _expr

from combat.engine.dice_grammar import DiceSyntax, Group, read

MAX_EXPR_LENGTH = 100
MAX_DICE = 100  # dice in one expression, over all its terms
MAX_FACES = 1000
MAX_NUMBER = 10_000  # a number written in the expression
MAX_NESTING = 8
ENDLESS_OPS = ("e", "rr")  # explode / reroll until the face is not selected: endless on every face


class DiceError(ValueError):
    """A dice expression that cannot be rolled (bad syntax, too many dice)."""


class DiceExhausted(RuntimeError):
    """Scripted dice were asked for more faces than the test supplied."""


@dataclass(frozen=True)
class Roll:
    """One recorded roll: the expression, every die face drawn (in order), the dice's total, why; and,
    when the rules add to it, the whole roll as made: each flat amount added with what it comes from
    (``adds``: ``((1, "Sword"),)``), a multiplier with its reason (``times``, ``times_why``) and
    ``result``, the roll's total after them: ``(total + adds) * times``.

    >>> r = Roll("1d8", [5], 5, "damage", ((1, "Sword"),))
    >>> r.result, r.to_dict()["adds"]
    (6, [{'value': 1, 'from': 'Sword'}])
    """

    expr: str
    faces: list[int] = field(default_factory=list)
    total: int = 0
    purpose: str = ""
    adds: tuple[tuple[int, str], ...] = ()
    times: int = 1
    times_why: str = ""

    @property
    def result(self) -> int:
        """The roll's total with what the rules add and multiply: what the rules go on with."""
        return (self.total + sum(v for v, _ in self.adds)) * self.times

    def added(self, adds: Sequence[tuple[int, str]] = (), times: int = 1, times_why: str = "") -> Roll:
        """This roll with flat amounts added (zeros left out) and a multiplier."""
        kept = tuple((int(v), str(why)) for v, why in adds if v)
        return replace(
            self, adds=self.adds + kept, times=self.times * times, times_why=times_why or self.times_why
        )

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "expr": self.expr,
            "faces": list(self.faces),
            "total": self.total,
            "purpose": self.purpose,
        }
        if self.adds or self.times != 1:
            d["adds"] = [{"value": v, "from": why} for v, why in self.adds]
            if self.times != 1:
                d["times"], d["times_why"] = self.times, self.times_why
            d["result"] = self.result
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Roll:
        adds = tuple((int(a["value"]), str(a.get("from", ""))) for a in d.get("adds") or ())
        return cls(
            d["expr"],
            list(d.get("faces", [])),
            int(d.get("total", 0)),
            d.get("purpose", ""),
            adds,
            int(d.get("times", 1)),
            str(d.get("times_why", "")),
        )


class DiceRoller(Protocol):
    """What the engine rolls with: ``Dice`` in play, ``ScriptedDice`` in tests."""

    def roll(
        self,
        expr: str,
        purpose: str = "",
        adds: Sequence[tuple[int, str]] = (),
        times: int = 1,
        times_why: str = "",
    ) -> Roll: ...


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
    """A dice term as d20 rolls it, with what the typed term asks beyond d20 (``dice_grammar.Group``):
    with a target, its value is the count of kept dice on target less those on the failure point."""

    __slots__ = ("group",)
    group: Group | None

    @classmethod
    def new(
        cls, num: int, size: int | str, context: _Context | None = None, group: Group | None = None
    ) -> _DiceSet:
        dice = cls(num, size, [_Die.new(size, context=context) for _ in range(num)], context=context)
        dice.group = group
        return dice

    def roll_another(self) -> None:
        self.values.append(_Die.new(self.size, context=self._context))

    @property
    def number(self) -> Any:
        group = self.group
        if group is None or group.success is None:
            return super().number
        return group.count_of([d.number for d in self.keptset])


class _Roller(d20.Roller):
    """d20's roller, with dice whose faces come from our sources, each term with its typed group."""

    context: _Context
    groups: dict[int, Group]

    def _eval_dice(self, node: _ast.Dice) -> _DiceSet:
        return _DiceSet.new(node.num, node.size, context=self.context, group=self.groups.get(id(node)))


@functools.lru_cache(maxsize=2048)
def _parsed(expr: str, groups: tuple[Group, ...]) -> tuple[Any, dict[int, Group]]:
    """A d20 expression parsed once, and each of its dice nodes (by id: the tree is kept here, alive) ->
    its typed group: the tree's dice nodes and ``groups`` both run left to right."""
    tree = _roller().parse(expr)
    found, stack = [], [tree]
    while stack:
        node = stack.pop()
        found += [node] if isinstance(node, _ast.Dice) else []
        stack.extend(reversed(node.children))
    if len(found) != len(groups):  # pragma: no cover - dice_grammar writes one term per group
        raise DiceError("The dice could not be read.")
    return tree, {id(node): group for node, group in zip(found, groups, strict=True)}


_STRINGIFIER = d20.SimpleStringifier()
_LOCAL = threading.local()
# Marks in a shown roll's text (never in an expression: the grammar refuses control characters) around
# each dice term and each face, with its kind: "\x01die max\x026\x03". Read back by ``_segments``.
_MARKS = re.compile("\x01([^\x02]*)\x02([^\x03]*)\x03")


def _mark(kind: str, text: str) -> str:
    return f"\x01{kind}\x02{text}\x03"


def _as_dropped(match: re.Match[str]) -> str:
    kind = match.group(1).split()
    if kind and kind[0] == "die":
        kind[0] = "drop"
    return _mark(" ".join(kind), match.group(2))


class _SegmentStringifier(d20.SimpleStringifier):
    """d20's plain stringifier without the total: each dice term as typed, then its faces, each marked."""

    def __init__(self) -> None:
        super().__init__()
        self._nodes = {**self._nodes, _DiceSet: self._str_dice}  # our dice, as d20's

    def _str_expression(self, node: Any) -> str:
        return str(self._stringify(node.roll))

    def _stringify(self, node: Any) -> str:
        inside = str(super()._stringify(node))
        return inside if getattr(node, "kept", True) else _MARKS.sub(_as_dropped, inside)

    def _str_dice(self, node: Any) -> str:
        group: Group | None = node.group
        faces = []
        for die in node.values:
            for value in die.values:  # a rerolled face is dropped beside the one that replaced it
                kept = bool(die.kept and value.kept)
                marks = group.marks(value.values[0], value.number, kept) if group is not None else []
                kind = " ".join(["die" if kept else "drop", *marks])
                faces.append(_mark(kind, str(self._str_literal(value))))
        text = group.text if group is not None else f"{node.num}d{node.size}"
        kind = "dice count" if group is not None and group.success is not None else "dice"
        return f"{_mark(kind, text)} ({', '.join(faces)})"


_SEGMENTS = _SegmentStringifier()


@dataclass(frozen=True)
class Shown:
    """A roll for people to read: the ``Roll``, the words after the expression, and the text of the
    roll in pieces ``(text, kind)``: ``kind`` is ``""`` (the expression's signs and numbers), ``"dice"``
    (a dice term as typed; ``"dice count"``: one that counts successes), or a face: ``"die"`` (kept) or ``"drop"`` (dropped by the expression),
    followed by its marks (``"die max"``: a natural maximum; ``min``, ``hit``, ``miss``: see
    ``Group.marks``). ``successes``: the total counts dice on target."""

    roll: Roll
    comment: str
    segments: list[tuple[str, str]]
    successes: bool = False


def _segments(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    at = 0
    for match in _MARKS.finditer(text):
        if match.start() > at:
            out.append((text[at : match.start()], ""))
        out.append((match.group(2), match.group(1)))
        at = match.end()
    if at < len(text):
        out.append((text[at:], ""))
    return out


def _roller() -> _Roller:
    """This thread's roller: its context points at the dice rolling now, so it is never shared."""
    roller = getattr(_LOCAL, "roller", None)
    if roller is None:
        roller = _LOCAL.roller = _Roller(_Context(None))
        roller.groups = {}
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

    def roll(
        self,
        expr: str,
        purpose: str = "",
        adds: Sequence[tuple[int, str]] = (),
        times: int = 1,
        times_why: str = "",
    ) -> Roll:
        """Roll ``expr`` with the d20 library; every die face is kept in the returned ``Roll``, with the
        flat amounts the rules add to it and a multiplier (``Roll.added``).

        Raises ``DiceError`` (saying why, for a player) when ``check_expr`` refuses ``expr`` or d20 cannot
        roll it; no face is drawn then.
        """
        roll = self._roll(expr, purpose, _STRINGIFIER)[0]
        if adds or times != 1:
            roll = self.history[-1] = roll.added(adds, times, times_why)
        return roll

    def roll_shown(self, expr: str, purpose: str = "", comments: bool = True) -> Shown:
        """Roll ``expr`` for people to read (with ``comments``, words may follow: ``"1d20+5 Perception"``),
        within the same bounds as ``roll``.

        >>> shown = ScriptedDice([2, 6, 5, 1]).roll_shown("4d6k3+2 for strength")
        >>> shown.roll.total, shown.comment
        (15, 'for strength')
        >>> "".join(text for text, _ in shown.segments), [t for t, kind in shown.segments if kind == "drop min"]
        ('4d6k3 (2, 6, 5, 1) + 2', ['1'])
        """
        if comments and isinstance(expr, str) and len(expr) <= 4 * MAX_EXPR_LENGTH:
            try:
                reading = read(expr, labels=True)
            except DiceSyntax as exc:
                raise DiceError(_cannot(expr, purpose, str(exc))) from None
            expr, comment = reading.typed, reading.label
        else:
            comment = ""
        roll, result = self._roll(expr, purpose, _SEGMENTS)
        counts = any(g.success is not None for g in read(expr).groups)
        return Shown(roll, comment, _segments(str(result.result)), counts)

    def _roll(self, expr: str, purpose: str, stringifier: Any) -> tuple[Roll, Any]:
        problem = check_expr(expr)
        if problem is not None:
            raise DiceError(_cannot(expr, purpose, problem))
        self._faces = []
        roller = _roller()
        reading = read(expr)  # check_expr read it: cached
        tree, groups = _parsed(reading.expr, reading.groups)
        ctx = roller.context
        ctx.source, roller.groups = self, groups
        try:
            result = roller.roll(tree, stringifier=stringifier)
            total = int(result.total)  # the total is worked out here
        except d20.RollError as exc:
            raise DiceError(_cannot(expr, purpose, str(exc))) from None
        finally:
            ctx.source, roller.groups = None, {}
        roll = Roll(expr, self._faces, total, purpose)
        self.history.append(roll)
        return roll, result


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


def _cannot(expr: Any, purpose: str, why: str) -> str:
    what = f"The {purpose} dice" if purpose else "The dice"
    shown = expr[:MAX_EXPR_LENGTH] if isinstance(expr, str) else repr(expr)[:MAX_EXPR_LENGTH]
    why = why if why.endswith(".") else why + "."
    return f"{what} “{shown}” cannot be rolled. {why}"


def check_expr(expr: Any) -> str | None:
    """Return an error message when ``expr`` is not a usable dice expression within the bounds, else None.

    >>> check_expr("2d6+3") is None
    True
    >>> [check_expr(e) for e in ("1d0", "1001d6", "1d1e1")]  # doctest: +NORMALIZE_WHITESPACE
    ['A die has 1 to 1000 faces (this one has 0).', 'At most 100 dice in one roll (this one rolls 1001).',
     'A die may explode or be rerolled on at most half its faces (1d1e1: 1 of 1).']
    """
    if not isinstance(expr, str) or not expr.strip():
        return "Enter a dice expression such as 1d8+2."
    if len(expr) > MAX_EXPR_LENGTH:
        return "Dice expression is too long."
    return _bounds(expr)


@functools.lru_cache(maxsize=2048)
def _bounds(expr: str) -> str | None:
    try:
        tree = _roller().parse(read(expr).expr)
    except DiceSyntax as exc:
        return str(exc)
    except d20.RollError:  # pragma: no cover - dice_grammar writes only what d20 reads
        return "Not a dice expression (write it like 1d8+2)."
    dice = 0
    stack: list[tuple[Any, int]] = [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            return "The expression is nested too deeply."
        if isinstance(node, _ast.Dice):
            dice += node.num
            if isinstance(node.size, int) and not 1 <= node.size <= MAX_FACES:
                return f"A die has 1 to {MAX_FACES} faces (this one has {node.size})."
        elif isinstance(node, _ast.Literal) and abs(node.value) > MAX_NUMBER:
            return f"Numbers in dice are at most {MAX_NUMBER}."
        if isinstance(node, _ast.OperatedDice):
            problem = _operations_problem(node, expr)
            if problem:
                return problem
        if isinstance(node, _ast.BinOp) and node.op in ("/", "//", "%") and not _positive(node.right):
            return "Divide only by a number greater than 0 (like 1d6/2)."
        stack.extend((child, depth + 1) for child in node.children)
    if dice > MAX_DICE:
        return f"At most {MAX_DICE} dice in one roll (this one rolls {dice})."
    return None


def _positive(node: Any) -> bool:
    """A number written in the expression, above 0 (so a division never divides by 0)."""
    while isinstance(node, _ast.AnnotatedNumber | _ast.Parenthetical):
        node = node.value
    return isinstance(node, _ast.Literal) and node.value > 0


def _faces(size: int | str) -> list[int]:
    return [10 * i for i in range(10)] if size == "%" else list(range(1, int(size) + 1))


def _operations_problem(node: Any, expr: str) -> str | None:
    """An explosion or reroll that could go on forever (``dice_grammar`` writes them on faces only)."""
    dice = node.value
    if not isinstance(dice, _ast.Dice):
        return None
    faces = _faces(dice.size) if not isinstance(dice.size, int) or 1 <= dice.size <= MAX_FACES else []
    for op in node.operations:
        if op.op not in ENDLESS_OPS or not faces:
            continue
        chosen = {f for f in faces for sel in op.sels if _selects(sel, f)}
        if 2 * len(chosen) > len(faces):
            return f"A die may explode or be rerolled on at most half its faces ({expr}: {len(chosen)} of {len(faces)})."
    return None


def _selects(sel: Any, face: int) -> bool:
    if sel.cat == "<":
        return bool(face < sel.num)
    if sel.cat == ">":
        return bool(face > sel.num)
    return bool(face == sel.num)
