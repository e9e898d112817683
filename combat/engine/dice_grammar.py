"""The dice players type (Roll20's grammar), read into the ``d20`` library's own (ENG-2).

``read(text)`` turns what a player wrote into a d20 expression and, for each dice term, what d20
does not do itself (success counts, critical ranges). d20 does all the rolling; ``dice.py`` rolls
what this module wrote. Anything this module does not understand is refused with a ``DiceSyntax``
naming the part, so an expression is either rolled whole or not at all.

After the dice (``4d6``, ``d20``, ``d%`` = ``d100``), in any order:

=============  ==================================================  ======================
typed          meaning                                              d20 writes
=============  ==================================================  ======================
``k3 kh3``     keep the 3 highest                                   ``kh3``
``kl1``        keep the lowest                                      ``kl1``
``d1 dl1``     drop the lowest                                      ``pl1``
``dh1``        drop the highest                                     ``ph1``
``!``          explode on the highest face (roll again, add)        ``e6`` (on a d6)
``!>5``        explode on 5 or more                                 ``e>4``
``r1 r<2``     reroll 1s / 2 or less until they stop               ``rr1`` / ``rr<3``
``ro<2``       reroll 2 or less once                                ``ro<3``
``>4 <2 =6``   count the dice showing 4 or more (2 or less, 6)      (counted here)
``f1 f<2``     after a count: subtract the dice showing 1 (2-)      (counted here)
``cs>19``      a critical success on 19 or 20 (marked)              (marked here)
``cf<2``       a critical failure on 1 or 2 (marked)                (marked here)
=============  ==================================================  ======================

Rerolls come first, then explosions (the extra dice are not rerolled), then keeping and dropping.
d20's own ``kh``, ``kl``, ``ph``, ``pl``, ``rr``, ``ra``, ``e``, ``mi``, ``ma`` are understood too, and
``<``/``>`` mean "or less"/"or more" everywhere (``>5`` includes 5), as in Roll20. Groups
``{4d6+2, 3d8}kh1`` keep or drop whole rolls; ``[fire]`` after a term is a note. With ``labels``,
words after a space name the roll (``1d20+5 Stealth``); a word that reads like dice (``k3``,
``+2``, ``d6``) is refused rather than shown beside a roll that did not use it.

>>> r = read("4d6k3+2")
>>> r.expr, r.groups[0].text
('4d6kh3+2', '4d6k3')
>>> read("8d6!>5>4f1").expr, read("1d20cs>19 Attack", labels=True).label
('8d6e>4', 'Attack')
>>> read("4d6x")
Traceback (most recent call last):
...
combat.engine.dice_grammar.DiceSyntax: The roller does not understand “x”. Write dice like 4d6k3, 1d20+5 or 8d6>5.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

Compare = tuple[str, int]  # (">=", 5), ("<=", 2) or ("==", 3)
HINT = "Write dice like 4d6k3, 1d20+5 or 8d6>5."
_OPS = "+-*/%"
_WORD_END = re.compile(r"[\s+\-*/%(){}\[\],]")
_DICE = re.compile(r"(\d*)[dD](\d+|%|[fF])?")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_COMPARE = re.compile(r"(>=|<=|>|<|=)?(\d+)")
_SIGNED = re.compile(r"(>=|<=|>|<|=)(\d+)")
# A word that reads like dice, or like a part of them, where words may name a roll.
_MODIFIER_WORD = re.compile(
    r"(?:k[hl]?\d*|d[hl]?\d+|r[oar]?[<>=]*\d+|c[sf][<>=]*\d+|mi\d+|ma\d+|e[<>=]*\d+|p[hl]\d+|f[<>=]*\d+)(?:\W|$)",
    re.IGNORECASE,
)
_DICEISH_FIRST = re.compile(r"[0-9+\-*/%(){}!<>=,\[]|\d*d(?:\d|%|f\b)", re.IGNORECASE)
_DICEISH_LATER = re.compile(r"(?:^|\s)(?:[+\-*/]\d+|[+\-]?\d*d\d+)(?=\W|$)", re.IGNORECASE)
_UNSUPPORTED = {
    "!!": "Compounding dice (!!) are not supported: write 5d6! to explode.",
    "!p": "Penetrating dice (!p) are not supported: write 5d6! to explode.",
    "sa": "Sorting dice is not supported: the dice are shown as rolled.",
    "sd": "Sorting dice is not supported: the dice are shown as rolled.",
    "s": "Sorting dice is not supported: the dice are shown as rolled.",
    "mt": "Matching dice (m) are not supported.",
    "m": "Matching dice (m) are not supported.",
}


class DiceSyntax(ValueError):
    """What a player typed is not dice this roller reads; the message names the part."""


@dataclass(frozen=True)
class Group:
    """One dice term as typed (``4d6k3``), its die's faces, and what d20 leaves to us: a success target,
    failures, and the ranges marked critical (``cs``) and fumbled (``cf``); without them, a die's highest
    face is its natural maximum and 1 its minimum."""

    text: str
    count: int
    size: int
    success: Compare | None = None
    failure: Compare | None = None
    crit: tuple[Compare, ...] = ()
    fumble: tuple[Compare, ...] = ()

    def marks(self, drawn: int, final: int, counted: bool) -> list[str]:
        """A face's marks: ``max``/``min`` when the face ``drawn`` is the die's natural highest or lowest
        (or within the typed critical ranges), and on a counted die ``hit`` (its ``final`` value on
        target) or ``miss`` (on the failure point).

        >>> Group("1d20cs>19", 1, 20, crit=((">=", 19),)).marks(19, 19, True)
        ['max']
        """
        out = []
        if any(matches(c, drawn) for c in self.crit) if self.crit else drawn == self.size:
            out.append("max")
        if any(matches(c, drawn) for c in self.fumble) if self.fumble else drawn == 1:
            out.append("min")
        if counted and self.success is not None:
            if matches(self.success, final):
                out.append("hit")
            elif self.failure is not None and matches(self.failure, final):
                out.append("miss")
        return out

    def count_of(self, kept: list[int]) -> int:
        """With a target: the kept dice on it, less those on the failure point."""
        assert self.success is not None
        fail = self.failure
        return sum(1 if matches(self.success, v) else -1 if fail and matches(fail, v) else 0 for v in kept)


@dataclass(frozen=True)
class Reading:
    """``expr`` for d20, the ``groups`` of dice in the order they appear, the ``typed`` expression and
    the ``label`` (words after it)."""

    expr: str
    groups: tuple[Group, ...]
    typed: str
    label: str = ""


def matches(compare: Compare, face: int) -> bool:
    op, n = compare
    return face >= n if op == ">=" else face <= n if op == "<=" else face == n


def _compare(op: str | None, n: str) -> Compare:
    return ({">": ">=", ">=": ">=", "<": "<=", "<=": "<="}.get(op or "", "=="), int(n))


def _selector(c: Compare) -> str:
    """A compare point as a d20 selector: d20's ``>``/``<`` are strict."""
    op, n = c
    if op == ">=":
        return f">{max(n - 1, 0)}"
    if op == "<=":
        return f"<{n + 1}"
    return str(n)


def _part(text: str, at: int) -> str:
    if at >= len(text):
        return text[-1:]
    if text[at] in _OPS + "(){}[],<>=!":
        return text[at]
    end = _WORD_END.search(text, at + 1)
    return text[at : end.start() if end else len(text)]


class _Reader:
    """One pass over the typed text: an operand expected or an operator; a dice term with its modifiers."""

    def __init__(self, text: str, labels: bool) -> None:
        self.text, self.low, self.labels = text, text.lower(), labels
        self.at = 0
        self.out: list[str] = []
        self.groups: list[Group] = []
        self.brackets: list[list[int]] = []  # per open bracket: [kind ("(" or "{"), items]
        self.label = ""
        self.end = len(text)

    def fail(self, at: int, why: str = HINT, part: str = "") -> DiceSyntax:
        return DiceSyntax(f"The roller does not understand “{part or _part(self.text, at)}”. {why}")

    def read(self) -> Reading:
        expect = True  # an operand comes next
        while self.at < len(self.text):
            ch = self.text[self.at]
            if ch.isspace():
                if self._space(expect):
                    break
                continue
            expect = self._operand() if expect else self._operator()
        if not self.out or expect:
            if not self.text.strip():
                raise DiceSyntax("Enter a dice expression such as 1d8+2.")
            raise DiceSyntax(
                f"The dice end too soon: “{_part(self.text, self._last())}” needs a number after it."
            )
        if self.brackets:
            raise DiceSyntax("A bracket is opened and never closed.")
        return Reading("".join(self.out), tuple(self.groups), self.text[: self.end].strip(), self.label)

    def _last(self) -> int:
        stripped = self.text.rstrip()
        return max(len(stripped) - 1, 0)

    def _space(self, expect: bool) -> bool:
        """Whitespace; True when the words that follow name the roll (the expression ends here)."""
        start = self.at
        while self.at < len(self.text) and self.text[self.at].isspace():
            self.at += 1
        if self.at >= len(self.text):
            self.end = start
            return True
        nxt = self.text[self.at]
        if expect or nxt in _OPS + ")}],[":
            self.out.append(" ")
            return False
        if nxt.isalpha() and _MODIFIER_WORD.match(self.text, self.at):
            raise self.fail(self.at, "Write it right after the dice, with no space, like 4d6k3 or 3d6!.")
        if not self.labels or _DICEISH_FIRST.match(self.text, self.at) or not nxt.isalpha():
            raise self.fail(
                self.at, "Words after the dice cannot be rolled: put them in [brackets], or leave them out."
            )
        words = self.text[self.at :]
        later = _DICEISH_LATER.search(words)
        if later:
            raise self.fail(
                self.at, "Put what is rolled before the words, like 1d20+5 Stealth.", later.group().strip()
            )
        self.end, self.label = start, words.strip()
        return True

    def _operand(self) -> bool:
        """An operand where one is expected; False when another operand must follow (a sign, a bracket)."""
        ch, low = self.text[self.at], self.low
        dice = _DICE.match(low, self.at)
        if dice:
            if dice.group(2) is None:
                raise self.fail(self.at, "Say how many faces, like 2d6.")
            self._dice(dice)
            return False
        number = _NUMBER.match(low, self.at)
        if number:
            self.out.append(number.group())
            self.at = number.end()
            return False
        if ch in "+-":
            self.out.append(ch)
            self.at += 1
            return True
        if ch in "({":
            self.brackets.append([ord(ch), 1])
            self.out.append("(")
            self.at += 1
            return True
        raise self.fail(self.at)

    def _operator(self) -> bool:
        """An operator where one is expected; True when an operand must follow."""
        ch, low = self.text[self.at], self.low
        if low.startswith("**", self.at):
            raise self.fail(self.at, "Powers (**) are not supported.", "**")
        if low.startswith("//", self.at):
            self.out.append("//")
            self.at += 2
            return True
        if ch in _OPS:
            self.out.append(ch)
            self.at += 1
            return True
        if ch in ")}":
            self._close(ch)
            return False
        if ch == "," and self.brackets and self.brackets[-1][0] == ord("{"):
            self.brackets[-1][1] += 1
            self.out.append(",")
            self.at += 1
            return True
        if ch == "[":
            end = self.text.find("]", self.at)
            if end < 0:
                raise self.fail(self.at, "Close the note with ], like 2d6[fire].")
            self.out.append(_CONTROL.sub("", self.text[self.at : end + 1]))
            self.at = end + 1
            return False
        if ch in "<>=":
            target = _SIGNED.match(low, self.at)
            why = "A target counts successes on dice: put it right after them, like 3d6>4."
            raise self.fail(self.at, why, target.group() if target else ch)
        raise self.fail(self.at)

    def _close(self, ch: str) -> None:
        if not self.brackets or (ch == "}") != (self.brackets[-1][0] == ord("{")):
            raise self.fail(self.at, "This bracket was never opened.")
        kind, items = self.brackets.pop()
        self.at += 1
        ops = self._group_ops() if kind == ord("{") else ""
        if kind == ord("{") and items == 1 and ops:
            self.out.append(",")  # a group of one roll: d20 reads (a,) as a set
        self.out.append(")" + ops)

    def _group_ops(self) -> str:
        """Keep or drop whole rolls of a group: ``{…}kh1``, ``{…}d1``."""
        ops = []
        while True:
            m = re.compile(r"(kh|kl|k|dh|dl|d)(\d*)").match(self.low, self.at)
            if not m:
                break
            ops.append(_KEEP[m.group(1)] + (m.group(2) or "1"))
            self.at = m.end()
        if self.at < len(self.low) and self.low[self.at] in "<>=":
            raise self.fail(
                self.at, "Targets on a group of rolls are not supported: put them on the dice, like 3d6>4."
            )
        return "".join(ops)

    def _dice(self, dice: re.Match[str]) -> None:
        start = self.at
        count = int(dice.group(1) or 1)
        face = dice.group(2)
        if face == "f":
            raise self.fail(start, "Fate dice (dF) are not supported.")
        size = 100 if face == "%" else int(face)
        self.at = dice.end()
        mods = _Mods(size)
        while self.at < len(self.low) and not _WORD_END.match(self.low, self.at) and self.low[self.at] != ",":
            self.at = mods.read(self, self.at)
        self.groups.append(
            Group(
                self.text[start : self.at],
                count,
                size,
                mods.success,
                mods.failure,
                tuple(mods.crit),
                tuple(mods.fumble),
            )
        )
        self.out.append(f"{count}d{size}{mods.d20()}")


_KEEP = {"kh": "kh", "k": "kh", "kl": "kl", "dh": "ph", "dl": "pl", "d": "pl", "ph": "ph", "pl": "pl"}
_MODIFIER = re.compile(r"!!|!p|!|kh|kl|k|dh|dl|d|ph|pl|ro|rr|ra|r|cs|cf|mi|ma|mt|m|sa|sd|s|e|f|>=|<=|>|<|=")


class _Mods:
    """The modifiers of one dice term, put in d20's order: rerolls, explosions, min/max, keep/drop."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.rerolls: list[str] = []
        self.explode: list[str] = []
        self.limits: list[str] = []
        self.keep: list[str] = []
        self.success: Compare | None = None
        self.failure: Compare | None = None
        self.crit: list[Compare] = []
        self.fumble: list[Compare] = []

    def d20(self) -> str:
        """d20's operations; those of one kind side by side, which d20 joins into one (``rr1rr2``)."""
        rerolls = sorted(self.rerolls, key=lambda op: op[:2])
        return "".join(rerolls + sorted(self.explode, key=lambda op: op[:2]) + self.limits + self.keep)

    def read(self, r: _Reader, at: int) -> int:
        m = _MODIFIER.match(r.low, at)
        if not m:
            raise r.fail(at)
        op, at = m.group(), m.end()
        if op in _UNSUPPORTED:
            raise r.fail(at - len(op), _UNSUPPORTED[op], op)
        if op in _KEEP:
            n = re.compile(r"\d*").match(r.low, at)
            assert n is not None
            if not n.group() and op in ("d", "ph", "pl"):
                raise r.fail(at - len(op), "Say how many dice to drop, like 4d6d1.")
            self.keep.append(_KEEP[op] + (n.group() or "1"))
            return n.end()
        if op in ("mi", "ma"):
            n = re.compile(r"\d+").match(r.low, at)
            if not n:
                raise r.fail(at - len(op), "Write mi and ma with a number, like 4d6mi2.")
            self.limits.append(op + n.group())
            return n.end()
        if op in (">=", "<=", ">", "<", "="):
            return self._target(r, at - len(op))
        points, end = self._points(r, at)
        return self._pointed(r, op, points, at, end)

    def _points(self, r: _Reader, at: int) -> tuple[list[Compare], int]:
        """The one compare point after a modifier (``r<2``, ``!>5``, ``cs20``), if any."""
        m = _COMPARE.match(r.low, at)
        return ([_compare(m.group(1), m.group(2))], m.end()) if m else ([], at)

    def _pointed(self, r: _Reader, op: str, points: list[Compare], at: int, end: int) -> int:
        if op in ("!", "e"):
            self.explode.append("".join("e" + _selector(p) for p in points or [("==", self.size)]))
        elif op == "ra":
            self.explode.append("".join("ra" + _selector(p) for p in points or [("==", self.size)]))
        elif not points:
            words = {
                "r": "to reroll, like 2d6r1 or 2d6r<2",
                "rr": "to reroll, like 2d6r1",
                "ro": "to reroll once, like 2d6ro<2",
                "cs": "are critical, like 1d20cs>19",
                "cf": "are fumbles, like 1d20cf<2",
                "f": "fail, like 3d6>4f1",
            }
            raise r.fail(at - len(op), f"Say which faces {words[op]}.")
        elif op in ("r", "rr", "ro"):
            self.rerolls.append("".join(("ro" if op == "ro" else "rr") + _selector(p) for p in points))
        elif op == "cs":
            self.crit += points
        elif op == "cf":
            self.fumble += points
        else:  # "f"
            if self.success is None:
                raise r.fail(at - 1, "Failures (f) count only after a target, like 3d6>4f1.")
            self.failure = points[0]
        return end

    def _target(self, r: _Reader, at: int) -> int:
        m = _SIGNED.match(r.low, at)
        if not m:
            raise r.fail(at, "A target needs a number, like 3d6>4.")
        if self.success is not None:
            raise r.fail(at, "One target per dice, like 3d6>4.")
        self.success = _compare(m.group(1), m.group(2))
        return m.end()


@functools.lru_cache(maxsize=4096)
def read(text: str, labels: bool = False) -> Reading:
    """Read typed dice (see the module's docstring) into a ``Reading``; raises ``DiceSyntax`` naming the
    part it cannot read. With ``labels``, words after a space name the roll."""
    return _Reader(text, labels).read()
