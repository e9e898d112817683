"""What a line typed into the chat asks for: words, rolls, a whisper (no database here).

``compose(text, sheets, dice)`` reads one line as a person typed it:

- ``/r 2d6+3`` (or ``/roll``): a roll for everyone, words after the dice name it
  (``/r 1d20+5 Perception``); ``/gr``: a roll only the GMs (and the roller) see;
- ``/w NAME words``: a whisper to one member (``/w gm``: to the GMs);
- ``[[1d20+5]]`` anywhere in words: rolled in place;
- ``@mira.dex`` in any roll: that character's sheet value (``@dex``: the sender's own
  character's); ``sheets`` holds only the characters the sender may read.

Every roll is made here, on the server, with the engine's dice (``Dice.roll_shown``),
within the engine's bounds (``check_expr``). A problem is a ``ChatError`` whose
words say what to type instead; nothing is rolled then.

>>> from combat.engine.dice import ScriptedDice
>>> line = compose("/r 1d20+@mira.dex Stealth", [SheetRef("Mira Vell", True, {"dex": ("DEX", 3)})],
...                ScriptedDice([14]))
>>> line.kind, line.audience, line.parts[0]["roll"]["total"], line.parts[0]["roll"]["label"]
('roll', 'all', 17, 'Stealth')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from combat.engine.dice import Dice, DiceError, ScriptedDice

MAX_LENGTH = 500  # characters of one message, as typed
MAX_ROLLS = 10  # inline rolls in one message
MAX_REFS = 10  # sheet values in one roll
ROLL_HELP = "Write a roll like 1d20+5 or 2d6+3."
COMMANDS_HELP = "Use /r 1d20+5 to roll, /gr to roll for the GM only, /w name to whisper."
_INLINE = re.compile(r"\[\[(.*?)\]\]", re.DOTALL)
_REF = re.compile(r"@([A-Za-z0-9_\-]+)(?:\.([A-Za-z0-9_]+))?")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


class ChatError(ValueError):
    """A line that cannot be sent as typed; the message says why and what to write."""


@dataclass(frozen=True)
class SheetRef:
    """A character whose sheet the sender may read: its name, whether the sender owns it, and its
    numbers by every name a roll may use (the sheet's key and its short label) -> (label, value)."""

    name: str
    mine: bool
    stats: dict[str, tuple[str, int]]


@dataclass
class Composed:
    """A line ready to store: ``kind`` "say" or "roll", ``audience`` "all", "gm" or "one" (then
    ``to`` is the name typed after /w), ``text`` the words after the command, ``parts`` what is
    shown: ``{"text": words}`` and ``{"roll": {...}}`` in order."""

    kind: str = "say"
    audience: str = "all"
    to: str | None = None
    text: str = ""
    parts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rolls(self) -> list[dict[str, Any]]:
        return [p["roll"] for p in self.parts if "roll" in p]


def clean(text: Any) -> str:
    """The typed text with line ends made plain and control characters removed, or a ``ChatError``."""
    if not isinstance(text, str):
        raise ChatError("Write something first.")
    plain = _CONTROL.sub("", text.replace("\r\n", "\n").replace("\r", "\n")).strip()
    if not plain:
        raise ChatError("Write something first.")
    if len(plain) > MAX_LENGTH:
        raise ChatError(f"A message is at most {MAX_LENGTH} characters; this one has {len(plain)}.")
    return plain


def compose(text: Any, sheets: list[SheetRef], dice: Dice | ScriptedDice) -> Composed:
    """Read one typed line (see the module's docstring); raises ``ChatError``."""
    text = clean(text)
    if not text.startswith("/"):
        return Composed(text=text, parts=_words(text, sheets, dice))
    command, _, rest = text.partition(" ")
    command, rest = command.lower(), rest.strip()
    if command in ("/r", "/roll", "/gr", "/gmroll"):
        if not rest:
            raise ChatError(f"Write the dice after {command}, like {command} 2d6+3.")
        audience = "gm" if command in ("/gr", "/gmroll") else "all"
        return Composed(
            "roll", audience, text=rest, parts=[{"roll": roll(rest, sheets, dice, comments=True)}]
        )
    if command in ("/w", "/whisper"):
        name, _, words = rest.partition(" ")
        words = words.strip()
        if not name or not words:
            raise ChatError(f"Write a name and your message after {command}, like {command} gm Hello.")
        audience = "gm" if name.lower() == "gm" else "one"
        return Composed(
            "say", audience, None if audience == "gm" else name, words, _words(words, sheets, dice)
        )
    raise ChatError(f"There is no command {command[:20]}. {COMMANDS_HELP}")


def _words(text: str, sheets: list[SheetRef], dice: Dice | ScriptedDice) -> list[dict[str, Any]]:
    """Words with their inline rolls (``[[1d20+5]]``) rolled in place."""
    if len(_INLINE.findall(text)) > MAX_ROLLS:
        raise ChatError(f"At most {MAX_ROLLS} rolls in one message.")
    parts: list[dict[str, Any]] = []
    at = 0
    for match in _INLINE.finditer(text):
        if match.start() > at:
            parts.append({"text": text[at : match.start()]})
        parts.append({"roll": roll(match.group(1), sheets, dice)})
        at = match.end()
    if at < len(text):
        parts.append({"text": text[at:]})
    return parts


def roll(
    typed: str, sheets: list[SheetRef], dice: Dice | ScriptedDice, comments: bool = False
) -> dict[str, Any]:
    """One roll as stored: what was typed, the expression rolled (sheet values put in), the sheet
    values used, the pieces of its text (``Shown.segments``), the total, and its label."""
    typed = typed.strip()
    if not typed:
        raise ChatError(f"An empty roll: {ROLL_HELP}")
    expr, refs = put_values(typed, sheets)
    try:
        shown = dice.roll_shown(expr, comments=comments)  # within the engine's bounds (check_expr)
    except DiceError as exc:
        raise ChatError(str(exc)) from None
    rolled = expr[: len(expr) - len(shown.comment)].strip() if shown.comment else expr
    return {
        "typed": typed[: len(typed) - len(shown.comment)].strip() if shown.comment else typed,
        "expr": rolled,
        "refs": [[label, value] for label, value in refs],
        "segments": [[text, kind] for text, kind in shown.segments],
        "total": shown.roll.total,
        "label": shown.comment,
    }


def _norm(name: str) -> str:
    return "".join(ch for ch in name.lower() if ch.isalnum())


def put_values(typed: str, sheets: list[SheetRef]) -> tuple[str, list[tuple[str, int]]]:
    """``typed`` with each ``@name.stat`` (or ``@stat``: the sender's own character) replaced by the
    sheet's number, and the (label, value) of each; raises ``ChatError`` for a name not found."""
    refs: list[tuple[str, int]] = []

    def value(match: re.Match[str]) -> str:
        if len(refs) >= MAX_REFS:
            raise ChatError(f"At most {MAX_REFS} sheet values in one roll.")
        who, stat = (match.group(1), match.group(2)) if match.group(2) else (None, match.group(1))
        sheet = _character(who, sheets)
        label, number = _stat(sheet, stat)
        refs.append((f"{sheet.name}: {label}", number))
        return f"({number})" if number < 0 else str(number)

    return _REF.sub(value, typed), refs


def _character(who: str | None, sheets: list[SheetRef]) -> SheetRef:
    if who is None:
        mine = [s for s in sheets if s.mine]
        if len(mine) != 1:
            raise ChatError("Name the character whose value you roll, like @mira.dex.")
        return mine[0]
    key = _norm(who)
    found = [s for s in sheets if _norm(s.name) == key] or [
        s for s in sheets if s.name.split() and _norm(s.name.split()[0]) == key
    ]
    if not found:
        raise ChatError(f"No character you can see is called {who[:30]}.")
    if len(found) > 1:
        raise ChatError(f"More than one character is called {who[:30]}: write more of the name.")
    return found[0]


def _stat(sheet: SheetRef, stat: str) -> tuple[str, int]:
    key = _norm(stat)
    hit = sheet.stats.get(key)
    if hit is None:
        near = {v for k, v in sheet.stats.items() if key and k.startswith(key)}
        if len(near) == 1:
            hit = near.pop()
    if hit is None:
        known = ", ".join(sorted({label for label, _ in sheet.stats.values()})[:12])
        raise ChatError(f"{sheet.name} has no number called {stat[:30]} (try: {known}).")
    return hit


def sheet_numbers(schema: Any, sheet: dict[str, Any]) -> dict[str, tuple[str, int]]:
    """A sheet's whole numbers by the names a roll may use: its key and its label (``"dex"``, ``"DEX"``)."""
    out: dict[str, tuple[str, int]] = {}
    for f in schema:
        value = sheet.get(f.key)
        if f.kind != "int" or type(value) is not int:
            continue
        for name in (f.key, f.label):
            out.setdefault(_norm(name), (f.label, value))
    return out
