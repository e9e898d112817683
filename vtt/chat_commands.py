"""What a line typed into the chat asks for: words, rolls, a whisper (no database here).

``compose(text, sheets, dice)`` reads one line as a person typed it:

- ``/r 2d6+3`` (or ``/roll``): a roll for everyone, words after the dice name it
  (``/r 1d20+5 Perception``); ``/gr``: a roll only the GMs (and the roller) see; the dice
  are Roll20's (``4d6k3``, ``3d6!``, ``8d6>5``: ``combat.engine.dice_grammar``);
- ``/w NAME words``: a whisper to one member, named by a character of theirs, their display
  name or user name, in any case, or by the start of one that fits nobody else
  (``/w gm``: to the GMs; ``/w "Mira Vell" words`` for a name with spaces);
- ``/em words`` (or ``/me``): an emote, shown as something the sender does;
- ``/help``: the commands, for the sender only (``HELP``);
- ``[[1d20+5]]`` anywhere in words: rolled in place;
- ``@mira.dex`` in any roll: that character's sheet value (``@dex``: the sender's own
  character's); ``sheets`` holds only the characters the sender may read.

Every roll is made here, on the server, with the engine's dice (``Dice.roll_shown``),
within the engine's bounds (``check_expr``), whole or not at all. A problem is a
``ChatError`` whose words say what to type instead; nothing is rolled then.

>>> from combat.engine.dice import ScriptedDice
>>> line = compose("/r 1d20+@mira.dex Stealth", [SheetRef("Mira Vell", True, {"dex": ("DEX", 3)})],
...                ScriptedDice([14]))
>>> line.kind, line.audience, line.parts[0]["roll"]["total"], line.parts[0]["roll"]["label"]
('roll', 'all', 17, 'Stealth')
>>> compose("/w mi see you", [], ScriptedDice([]), [Person(7, "Mira Vell", ("Mira Vell", "ana0c61"))]).to.user_id
7
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from combat.engine.dice import Dice, DiceError, ScriptedDice

MAX_LENGTH = 500  # characters of one message, as typed
MAX_ROLLS = 10  # inline rolls in one message
MAX_REFS = 10  # sheet values in one roll
ROLL_HELP = "Write a roll like 1d20+5 or 2d6+3."
COMMANDS_HELP = "Type /help to see them all."
HELP: tuple[tuple[str, str], ...] = (
    ("/r 2d6+3 Fire", "rolls for everyone; words after the dice name the roll"),
    ("/gr 1d20", "rolls for the GM only"),
    ("[[1d20+5]]", "rolls inside a message"),
    ("/w Mira hello", "whispers to a player, by their character's name or their own (the start is enough)"),
    ("/w gm hello", "whispers to the GM"),
    ("/em draws her sword", "an emote: something your character does"),
    ("@mira.dex", "puts a number from a sheet in a roll; @dex from your own"),
    ("4d6k3  4d6kl1", "keeps the 3 highest dice, the lowest one"),
    ("4d6d1  4d6dh1", "drops the lowest die, the highest one"),
    ("3d6!  3d6!>5", "explodes on the highest face, on 5 or more"),
    ("2d10r1  2d10ro<2", "rerolls 1s, rerolls 2 or less once"),
    ("8d6>5  8d6>5f1", "counts dice on 5 or more, less those on 1"),
    ("1d20cs>19  1d20cf<2", "marks 19-20 as critical, 1-2 as a fumble"),
)
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


@dataclass(frozen=True)
class Person:
    """A member a whisper may reach: their id, the name a line shows for them, and every name they answer
    to (their characters', their display name, their user name)."""

    user_id: Any
    label: str
    names: tuple[str, ...]


@dataclass
class Composed:
    """A line ready to store: ``kind`` "say", "roll" or "help" (nothing to store: ``HELP`` for the
    sender), ``audience`` "all", "gm" or "one" (then ``to`` is the ``Person``), ``text`` the words after
    the command, ``parts`` what is shown: ``{"text": words}`` and ``{"roll": {...}}`` in order, after
    ``{"emote": True}`` for an emote or ``{"to": name}`` for a whisper (the name it was sent to)."""

    kind: str = "say"
    audience: str = "all"
    to: Person | None = None
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


def compose(
    text: Any, sheets: list[SheetRef], dice: Dice | ScriptedDice, people: Sequence[Person] = ()
) -> Composed:
    """Read one typed line (see the module's docstring); ``people``: whom a whisper may reach. Raises
    ``ChatError``."""
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
        to, words, name = whisper_target(rest, people, command)
        parts = ([{"to": name}] if to is not None else []) + _words(words, sheets, dice)
        return Composed("say", "gm" if to is None else "one", to, words, parts)
    if command in ("/em", "/me", "/emote"):
        if not rest:
            raise ChatError(f"Write what you do after {command}, like {command} draws her sword.")
        return Composed(text=rest, parts=[{"emote": True}, *_words(rest, sheets, dice)])
    if command in ("/help", "/h", "/?"):
        return Composed("help")
    raise ChatError(f"There is no command {command[:20]}. {COMMANDS_HELP}")


def _fold(name: str) -> str:
    return " ".join(name.casefold().split())


def whisper_target(
    rest: str, people: Sequence[Person], command: str = "/w"
) -> tuple[Person | None, str, str]:
    """Whom ``/w rest`` reaches (None: the GMs), the words, and the name it reached them by: the longest
    whole name that starts ``rest`` (``Mira Vell``, or quoted), else the first word as the start of
    exactly one person's name."""
    example = f"Write a name and your message after {command}, like {command} gm Hello."
    if rest.startswith('"'):
        name, quote, words = rest[1:].partition('"')
        if not quote or not name.strip() or not words.strip():
            raise ChatError(f'{example} Close a quoted name: {command} "Mira Vell" Hello.')
        person, fits = _by_name(name.strip(), people, exact_only=False)
        return person, words.strip(), fits
    tokens = rest.split()
    if len(tokens) < 2:
        raise ChatError(example)
    if tokens[0].casefold() == "gm":
        return None, rest[len(tokens[0]) :].strip(), "the GM"
    for k in range(len(tokens) - 1, 0, -1):
        found = _by_name(" ".join(tokens[:k]), people, exact_only=True)
        if found is not None:
            return found[0], rest.split(None, k)[k].strip(), found[1]
    person, name = _by_name(tokens[0], people, exact_only=False)
    return person, rest.split(None, 1)[1].strip(), name


def _by_name(name: str, people: Sequence[Person], exact_only: bool) -> Any:
    """The one person called ``name`` (any case), or whose name starts with it, with the name that
    fits; None when ``exact_only`` finds nobody; a ``ChatError`` naming the candidates when it fits
    several, or nobody."""
    key = _fold(name)
    exact = [p for p in people if any(_fold(n) == key for n in p.names)]
    if len(exact) == 1 or (exact_only and not exact):
        return (exact[0], _best_name(exact[0], key)) if exact else None
    found = exact or [p for p in people if any(_fold(n).startswith(key) for n in p.names)]
    if not found:
        raise ChatError(f"Nobody in this campaign is called {name[:30]}.")
    if len(found) > 1:
        names = sorted(_best_name(p, key) for p in found)
        listed = ", ".join(names[:-1]) + f" or {names[-1]}"
        raise ChatError(f"“{name[:30]}” could be {listed}: write more of the name.")
    return found[0], _best_name(found[0], key)


def _best_name(person: Person, key: str) -> str:
    return next((n for n in person.names if _fold(n).startswith(key)), person.label)


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
    out = {
        "typed": typed[: len(typed) - len(shown.comment)].strip() if shown.comment else typed,
        "expr": shown.roll.expr,
        "refs": [[label, value] for label, value in refs],
        "segments": [[text, kind] for text, kind in shown.segments],
        "total": shown.roll.total,
        "label": shown.comment,
    }
    if shown.successes:
        out["successes"] = True
    return out


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
