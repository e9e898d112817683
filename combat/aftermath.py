"""After a battle: how it went, what it did to each campaign character, and writing that to the sheets
once confirmed.

``outcome`` says who won, in how many rounds, and every combatant's HP at the end and what it spent
of what a fight spends and no turn gives back (``Ruleset.stock``: items, MP, Anima, points; never the
actions a turn gives back). ``summary`` makes one write-back card per sheet that exists to write to:
each player's character and each campaign NPC that fought, once however many copies of it fought;
monsters are copies of their stat block, and nothing goes back to them. The ruleset says what carries
over and what resets (``Ruleset.after_battle``: each line a ``CarryOver`` rule with the source
sentence or house rule behind it, and the value it proposes for a sheet field). This module only
shows the lines, takes the GM's adjusted values, checks them with the sheet schema and writes every
sheet in one transaction, once per battle. Nothing is written without that confirmation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from dataclasses import field as dc_field
from typing import Any

from combat import services
from combat.engine.actions import has_nul
from combat.engine.rulesets import get_ruleset
from combat.engine.rulesets.base import status_name
from combat.engine.state import BattleState, Combatant
from combat.engine.words import count
from combat.models import Battle
from vtt.content import campaign_content, clean_content_value, content_choices
from vtt.models import Character, CharacterKind

# The sheets a battle writes back to: a player's character, a campaign NPC (never a monster's stat block).
WRITTEN_BACK = (CharacterKind.PC, CharacterKind.NPC)
WINNERS = {"party": "The party won", "enemy": "The enemies won"}


@dataclass
class Line:
    """One line of a character's summary: a rule and, when it writes a sheet field, its before and after."""

    label: str
    carries: bool
    why: str
    field: str = ""
    before: Any = None
    after: Any = None
    input_name: str = ""
    error: str = ""

    names: dict[str, str] = dc_field(default_factory=dict)  # content keys -> display names

    @property
    def shown_before(self) -> str:
        return _words(self.before, self.names)

    @property
    def shown_after(self) -> str:
        return _words(self.after, self.names)

    @property
    def input_value(self) -> str:
        """The proposed value as the GM edits it (names, comma separated; empty for none)."""
        if isinstance(self.after, list | tuple):
            return _words(self.after, self.names) if self.after else ""
        return _words(self.after, self.names)


@dataclass
class CharacterSummary:
    character: Character
    combatant: Combatant
    hp: int
    max_hp: int
    spent: list[tuple[str, str]]
    statuses: list[str]
    used: list[str]
    lines: list[Line] = dc_field(default_factory=list)


@dataclass
class Fought:
    """One combatant at the end: its HP, whether it is down, and what it spent (``spent``)."""

    name: str
    side: str
    hp: int
    max_hp: int
    down: bool
    spent: list[tuple[str, str]]


@dataclass
class Outcome:
    """How the battle went: ``verdict`` ("The party won in 3 rounds."), the rules' or the GM's reason,
    every combatant (``fought``), and what each side spent of what it shares (Paradigm's items)."""

    verdict: str
    reason: str
    fought: list[Fought]
    shared: dict[str, list[tuple[str, str]]]


def spent(stock: dict[str, tuple[int, int | None]]) -> list[tuple[str, str]]:
    """What was spent of a stock (``Ruleset.stock``), in words, by name: "1 of 2 used"; a stock with no
    fixed top says what is left ("7 left").

    >>> spent({"Healing Potion": (1, 2), "MP": (7, None)})
    [('Healing Potion', '1 of 2 used'), ('MP', '7 left')]
    """
    return [
        (name, f"{left} left" if full is None else f"{full - left} of {full} used")
        for name, (left, full) in stock.items()
    ]


def outcome(battle: Battle) -> Outcome:
    """Who won, in how many rounds, and every combatant's HP and what it spent."""
    state = BattleState.from_dict(battle.snapshot)
    rules = get_ruleset(state.ruleset)()
    result = state.result or {}
    winner: Any = result.get("winner")
    rounds = f"{state.round} round{'s' if state.round != 1 else ''}"
    verdict = f"{WINNERS.get(winner, 'No side won')} in {rounds}."
    reason = str(result.get("reason") or "")
    fought = [
        Fought(c.name, c.side, c.hp, c.max_hp, not c.able, spent(rules.stock(state, c)))
        for c in state.combatants.values()
    ]
    sides = dict.fromkeys(c.side for c in state.combatants.values())
    shared = {side: spent(rules.side_stock(state, side)) for side in sides}
    return Outcome(verdict, reason, fought, {side: words for side, words in shared.items() if words})


def _words(value: Any, names: dict[str, str] | None = None) -> str:
    names = names or {}
    if isinstance(value, list | tuple):  # items are carried by number: "Healing Potion ×2"
        counts = {str(v): sum(1 for w in value if str(w) == str(v)) for v in value}
        return ", ".join(f"{names.get(v, v)}{f' ×{n}' if n > 1 else ''}" for v, n in counts.items()) or "none"
    if isinstance(value, str) and value in names:
        return names[value]
    if value is True:
        return "yes"
    if value is False:
        return "no"
    return "" if value is None else str(value)


_COUNT = re.compile(r"^(.*?)\s*[×x]\s*(\d{1,2})$")


def _counted(item: str) -> list[str]:
    """A list entry as the summary writes it, "Healing Potion ×2", as that many entries."""
    match = _COUNT.match(item.strip())
    return [match.group(1)] * int(match.group(2)) if match else [item]


def can_apply(battle: Battle) -> str:
    """Why the summary cannot be applied now ("" when it can)."""
    if battle.status != Battle.Status.ENDED:
        return "The battle is still running: end it first."
    if battle.imported:
        return "An imported battle does not change this campaign's characters."
    if battle.applied is not None:
        return "This battle's summary was already applied to the sheets."
    return ""


def summary(battle: Battle) -> list[CharacterSummary]:
    """One card per sheet to write back to (a player's character, a campaign NPC) that fought: HP, what
    it spent, statuses, what it used, and the ruleset's lines."""
    state = BattleState.from_dict(battle.snapshot)
    rules = get_ruleset(state.ruleset)()
    ids = {c.character_id for c in state.combatants.values() if c.character_id is not None}
    characters = {
        ch.pk: ch
        for ch in Character.objects.filter(campaign_id=battle.campaign_id, pk__in=ids, kind__in=WRITTEN_BACK)
    }
    schema = rules.sheet_schema
    content = campaign_content(battle.campaign)
    out: list[CharacterSummary] = []
    seen: set[int] = set()
    for c in state.combatants.values():
        ch = characters.get(c.character_id) if c.character_id is not None else None
        if ch is None or ch.pk in seen:
            continue  # a monster, or a second copy of one sheet: the first one speaks for it
        seen.add(ch.pk)
        s = CharacterSummary(
            ch,
            c,
            c.hp,
            c.max_hp,
            spent(rules.stock(state, c)),
            [status_name(state, k) for k in c.statuses],
            rules.used_in_battle(state, c),
        )
        for rule, value in rules.after_battle(state, c):
            line = Line(rule.label, rule.carries, rule.why, rule.field)
            spec = schema.get(rule.field) if rule.field else None
            if spec is not None:
                line.before = (ch.sheet or {}).get(rule.field)
                line.after = value
                line.input_name = f"c{ch.pk}_{rule.field}"
                line.names = dict(content_choices(content, spec)) if spec.content else {}
            s.lines.append(line)
        out.append(s)
    return out


def apply(
    battle: Battle, rows: list[CharacterSummary], posted: dict[str, Any], user: Any
) -> tuple[bool, str]:
    """Write the (adjusted) carried values to the sheets: all or nothing, once per battle (by ``user``,
    its GM, through ``combat.services.apply_after_battle``).

    ``posted`` maps each line's ``input_name`` to the GM's value; a missing
    one keeps the proposed value. Bad values are put on their line and
    nothing is written.
    """
    rules = get_ruleset(battle.ruleset)
    schema = rules.sheet_schema
    changes: list[tuple[Character, dict[str, Any]]] = []
    ok = True
    for s in rows:
        sheet = dict(s.character.sheet or {})
        for line in s.lines:
            if not line.input_name or not line.carries:
                continue
            raw = posted.get(line.input_name, line.after)
            spec = schema.get(line.field)
            assert spec is not None  # a line with an input has its field (summaries above)
            try:
                if has_nul(raw):
                    raise ValueError("Null characters are not allowed.")
                value = spec.clean(raw)
                if isinstance(value, list):  # "Healing Potion ×2": that many of it
                    value = [v for item in value for v in _counted(str(item))]
                if spec.content:  # names typed by the GM become the content's keys
                    value, problem = clean_content_value(spec, value, list(line.names.items()))
                    if problem:
                        raise ValueError(problem)
            except ValueError as exc:
                line.error, ok = str(exc), False
                continue
            line.after = value
            sheet[line.field] = value
        clean, errors = rules.validate_sheet(sheet)
        if errors:
            ok = False
            for line in s.lines:
                if line.field in errors:
                    line.error = " ".join(errors[line.field])
        changes.append((s.character, clean))
    if not ok:
        return False, "Some values are not valid; nothing was written."
    done = services.apply_after_battle(
        battle.pk, user, [(character.pk, sheet) for character, sheet in changes]
    )
    if not done.ok:
        return False, done.reason
    return True, f"Applied to {count(len(changes), 'character sheet')}."
