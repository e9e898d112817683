"""The dice players type (Roll20's grammar, combat.engine.dice_grammar), rolled by d20 whole or not at all.

A table of every form with its meaning (scripted faces and the total they make, the faces dropped)
and its bounds (the lowest and highest totals, from scripted extremes, and 200 seeded rolls inside
them); a table of what is refused, each naming the part; and Hypothesis properties: for random
expressions the shown expression, faces and total agree, and every accepted expression rolls all of
itself (a word that reads like dice is refused, never left beside a roll that did not use it).
"""

from __future__ import annotations

import ast
import operator
import re

import pytest
from hypothesis import assume as st_assume
from hypothesis import given, settings
from hypothesis import strategies as st

from combat.engine.dice import MAX_EXPR_LENGTH, Dice, DiceError, ScriptedDice, Shown, check_expr

# (typed, meaning, faces, total, dropped faces, (lowest, highest or None), faces for the lowest, for the highest)
FORMS = [
    ("4d6k3", "keep the 3 highest", [3, 6, 1, 3], 12, ["1"], (3, 18), [1] * 4, [6] * 4),
    ("4d6kh3", "keep the 3 highest", [3, 6, 1, 3], 12, ["1"], (3, 18), [1] * 4, [6] * 4),
    ("2d20kl1", "keep the lowest", [3, 17], 3, ["17"], (1, 20), [1, 1], [20, 20]),
    ("4d6d1", "drop the lowest", [3, 6, 1, 3], 12, ["1"], (3, 18), [1] * 4, [6] * 4),
    ("4d6dl1", "drop the lowest", [3, 6, 1, 3], 12, ["1"], (3, 18), [1] * 4, [6] * 4),
    ("4d6dh1", "drop the highest", [3, 6, 1, 3], 7, ["6"], (3, 18), [1] * 4, [6] * 4),
    ("3d6!", "explode on a 6: roll again and add", [6, 2, 4, 5], 17, [], (3, None), [1] * 3, None),
    ("3d6!>5", "explode on 5 or more", [5, 2, 4, 1], 12, [], (3, None), [1] * 3, None),
    ("2d10r1", "reroll 1s until they stop", [1, 7, 1, 9], 16, ["1", "1"], (4, 20), [2, 2], [10, 10]),
    ("2d10r<2", "reroll 2 or less until they stop", [2, 7, 1, 9], 16, ["2", "1"], (6, 20), [3, 3], [10, 10]),
    ("2d10ro<2", "reroll 2 or less once", [2, 7, 1], 8, ["2"], (2, 20), [1] * 4, [10, 10]),
    ("6d6>5", "count the dice on 5 or more", [5, 6, 1, 3, 2, 6], 3, [], (0, 6), [1] * 6, [6] * 6),
    ("6d6>5f1", "count 5 or more, less each 1", [5, 6, 1, 3, 2, 6], 2, [], (-6, 6), [1] * 6, [6] * 6),
    ("6d6<2", "count the dice on 2 or less", [5, 6, 1, 3, 2, 6], 2, [], (0, 6), [6] * 6, [1] * 6),
    ("6d6=6", "count the sixes", [5, 6, 1, 3, 2, 6], 2, [], (0, 6), [1] * 6, [6] * 6),
    ("1d20cs>19", "19 and 20 marked critical", [19], 19, [], (1, 20), [1], [20]),
    ("1d20cf<3", "1 and 2 marked as fumbles", [2], 2, [], (1, 20), [1], [20]),
    ("d20+5", "one die when the count is left out", [10], 15, [], (6, 25), [1], [20]),
    ("1d%", "d% is a d100", [57], 57, [], (1, 100), [1], [100]),
    ("{1d20+5, 1d20+3}kh1", "keep the higher of two rolls", [4, 15], 18, ["4"], (6, 25), [1, 1], [20, 20]),
    ("2d6[fire]+1d4[cold]", "notes on terms", [3, 4, 2], 9, [], (3, 16), [1, 1, 1], [6, 6, 4]),
]


def faces_of(shown: Shown, first: str) -> list[str]:
    return [text for text, kind in shown.segments if kind.split()[:1] == [first]]


@pytest.mark.parametrize(("typed", "meaning", "faces", "total", "dropped", "bounds", "low", "high"), FORMS)
def test_each_roll20_form_means_what_roll20_players_mean_within_its_bounds(
    typed, meaning, faces, total, dropped, bounds, low, high
):
    # RULE: ENG-2
    assert check_expr(typed) is None, meaning
    shown = ScriptedDice(faces).roll_shown(typed, comments=False)
    assert shown.roll.total == total, meaning
    assert faces_of(shown, "drop") == dropped, meaning
    assert shown.roll.faces == faces  # every face drawn is recorded, in order (ENG-2)
    lowest, highest = bounds
    assert ScriptedDice(low).roll(typed).total == lowest
    if highest is not None:
        assert ScriptedDice(high).roll(typed).total == highest
    for seed in range(200):
        got = Dice(seed, 1).roll(typed).total
        assert got >= lowest and (highest is None or got <= highest), (typed, seed, got)


def test_natural_highest_and_lowest_faces_are_marked_and_critical_ranges_move_them():
    # RULE: ENG-2
    kinds = dict(ScriptedDice([20, 1, 7]).roll_shown("3d20", comments=False).segments)
    assert (kinds["20"], kinds["1"], kinds["7"]) == ("die max", "die min", "die")
    shown = ScriptedDice([19, 2, 1]).roll_shown("3d20cs>19cf<2", comments=False)
    assert [k for _, k in shown.segments if k.startswith("die")] == ["die max", "die min", "die min"]
    shown = ScriptedDice([6, 1, 3]).roll_shown("3d6>3f1", comments=False)
    assert [k for _, k in shown.segments if k.startswith("die")] == ["die max hit", "die min miss", "die hit"]
    assert shown.successes and shown.roll.total == 1


REFUSED = [
    ("4d6 k3", "“k3”", "right after the dice"),
    ("5d6!!", "“!!”", "Compounding"),
    ("5d6!p", "“!p”", "Penetrating"),
    ("4dF", "“4dF”", "Fate dice"),
    ("1d20+5>15", "“>15”", "right after them"),
    ("floor(1d6)", "“floor”", "Write dice like"),
    ("4d6x", "“x”", "Write dice like"),
    ("1d6**2", "“**”", "Powers"),
    ("3d6sa", "“sa”", "Sorting"),
    ("2d6m", "“m”", "Matching"),
    ("3d6f1", "“f1”", "only after a target"),
    ("2d6r", "“r”", "which faces to reroll"),
    ("1d20cs", "“cs”", "critical"),
    ("4d6 Stealth", "“Stealth”", "Words after the dice"),
    ("2d", "“2d”", "how many faces"),
    ("1d20+", "“+”", "end too soon"),
    ("{1d6, 2}>3", "“>”", "group of rolls"),
]


@pytest.mark.parametrize(("typed", "part", "why"), REFUSED)
def test_what_the_roller_does_not_read_is_refused_naming_the_part_and_nothing_is_rolled(typed, part, why):
    # RULE: ENG-2
    problem = check_expr(typed)
    assert problem is not None and part in problem and why in problem
    dice = ScriptedDice([3] * 20)
    with pytest.raises(DiceError, match=re.escape(part)):
        dice.roll(typed, "damage")
    assert dice.remaining == 20 and dice.history == []


def test_words_name_a_roll_only_after_it_and_never_read_like_dice():
    # RULE: ENG-2
    shown = ScriptedDice([12]).roll_shown("1d20+5 Stealth check")
    assert (shown.roll.expr, shown.comment, shown.roll.total) == ("1d20+5", "Stealth check", 17)
    for typed, part in [("1d20 Stealth +5", "“+5”"), ("1d20 Stealth 2d6", "“2d6”"), ("1d20 kh1", "“kh1”")]:
        with pytest.raises(DiceError, match=re.escape(part)):
            ScriptedDice([12] * 4).roll_shown(typed)


# ---------------------------------------------------------------- properties

SIZES = [2, 4, 6, 8, 10, 12, 20, 100]


@st.composite
def dice_terms(draw: st.DrawFn) -> str:
    """A dice term with random Roll20 modifiers, always within the engine's bounds."""
    size = draw(st.sampled_from(SIZES))
    count = draw(st.integers(0, 6))
    term = f"{count if count or draw(st.booleans()) else ''}d{size}"
    half = size // 2
    mods = []
    target = draw(st.sampled_from(["", ">", "<", "="]))
    if draw(st.booleans()):
        n = draw(st.integers(1, max(count, 1)))
        mods.append(draw(st.sampled_from([f"k{n}", f"kh{n}", f"kl{n}", f"d{n}", f"dl{n}", f"dh{n}"])))
    if size > 2 and draw(st.booleans()):
        edge = draw(st.integers(size - half + 1, size))
        mods.append("!" if not target and draw(st.booleans()) else f"!>{edge}")
    if draw(st.booleans()):
        mods.append(draw(st.sampled_from(["r1", "ro1", f"r<{max(half - 1, 1)}", f"ro<{half}"])))
    if draw(st.booleans()):
        mods.append(f"cs>{draw(st.integers(1, size))}")
    if draw(st.booleans()):
        mods.append(f"cf<{draw(st.integers(1, size))}")
    mods = draw(st.permutations(mods))
    if target:
        mods.append(f"{target}{draw(st.integers(1, size))}")
        if draw(st.booleans()):
            mods.append(f"f{draw(st.sampled_from(['', '<', '>']))}{draw(st.integers(1, size))}")
    return term + "".join(mods)


@st.composite
def expressions(draw: st.DrawFn) -> str:
    terms = draw(st.lists(st.one_of(dice_terms(), st.integers(0, 20).map(str)), min_size=1, max_size=4))
    out = terms[0]
    for term in terms[1:]:
        op = draw(st.sampled_from(["+", "-", "*", " + ", " - "]))
        out += op + (f"({term})" if draw(st.integers(0, 4)) == 0 else term)
    out = ("-" + out) if draw(st.integers(0, 9)) == 0 else out
    # A longer expression is refused for its length alone (test_a_long_expression_is_refused_whole).
    st_assume(len(out) <= MAX_EXPR_LENGTH)
    return out


def unpadded(text: str) -> str:
    """The roller shows a number without its leading zeros ("-007" is shown "-7"), the same value."""
    return re.sub(r"(?<![\d.])0+(?=\d)", "", text)


def test_a_long_expression_is_refused_whole():
    # RULE: ENG-2
    long = "+".join(["1d6"] * 30)
    assert len(long) > MAX_EXPR_LENGTH
    assert check_expr(long) == "Dice expression is too long."
    with pytest.raises(DiceError):
        Dice(1, 1).roll_shown(long)


def read_back(shown: Shown) -> tuple[str, list[tuple[str, list[tuple[str, str]]]], str]:
    """From the shown pieces: the expression as shown (dice terms without their faces), each term with its
    faces, and the arithmetic of the total (each term replaced by what its faces make)."""
    text, arithmetic, groups, inside = "", "", [], False
    for piece, kind in shown.segments:
        head = kind.split()[:1]
        if head == ["dice"]:
            groups.append((piece, [], "count" in kind))
            text += piece
            inside = True
        elif head in (["die"], ["drop"]):
            groups[-1][1].append((piece, kind))
        elif inside and ")" in piece:
            inside = False
            value = group_value(groups[-1])
            rest = piece[piece.index(")") + 1 :]
            text, arithmetic = text + rest, arithmetic + f"({value})" + rest
        elif not inside:
            text, arithmetic = text + piece, arithmetic + piece
    return text, [(g[0], g[1]) for g in groups], arithmetic


def final(face: str) -> int:
    return int(face.rstrip("!").split("->")[-1])


def group_value(group: tuple[str, list[tuple[str, str]], bool]) -> int:
    _, faces, counts = group
    kept = [(t, k.split()) for t, k in faces if k.startswith("die")]
    if counts:
        return sum(1 for _, k in kept if "hit" in k) - sum(1 for _, k in kept if "miss" in k)
    return sum(final(t) for t, _ in kept)


_MOD = re.compile(r"(!|kh|kl|k|dh|dl|d|ro|r|cs|cf|f|>|<|=)(>|<)?(\d*)")


def holds(point: tuple[str, str], value: int, size: int) -> bool:
    """A Roll20 compare point (``>`` is "or more", ``<`` "or less") as a test reads it."""
    op, n = point
    if not n:
        return value == size
    return value >= int(n) if op == ">" else value <= int(n) if op == "<" else value == int(n)


def term_did_everything_it_says(term: str, faces: list[tuple[str, str]]) -> None:
    """Each modifier of a dice term left its mark on the faces shown (read from the term as typed)."""
    size = int(re.match(r"\d*d(\d+)", term).group(1))
    mods: dict[str, tuple[str, str]] = {}
    rest = re.sub(r"^\d*d\d+", "", term)
    for m in _MOD.finditer(rest):
        mods[m.group(1)] = (m.group(2) or ("=" if m.group(3) else ""), m.group(3))
    kept = [(t, k.split()) for t, k in faces if k.startswith("die")]
    drawn = [int(t.rstrip("!").split("->")[0]) for t, _ in faces]
    rerolls = "r" in mods or "ro" in mods
    if "!" in mods and not rerolls:  # every face on the explosion point exploded, and only those
        assert all(
            t.endswith("!") == holds(mods["!"], d, size) for (t, _), d in zip(faces, drawn, strict=True)
        )
    if "r" in mods and "!" not in mods:  # rerolled until no kept face is on the reroll point (the extra
        # dice of an explosion come after the rerolls: dice_grammar's order)
        assert not any(holds(mods["r"], final(t), size) for t, _ in kept)
    keep = next((op for op in ("kh", "kl", "k", "dh", "dl", "d") if op in mods), None)
    if keep and not rerolls and "!" not in mods:
        n, dice = int(mods[keep][1] or 1), len(faces)
        assert len(kept) == (min(n, dice) if keep.startswith("k") else max(dice - n, 0))
        values = sorted(final(t) for t, _ in faces)
        kept_values = sorted(final(t) for t, _ in kept)
        low_kept = keep in ("kl", "dh")
        assert kept_values == (values[: len(kept)] if low_kept else values[len(values) - len(kept) :])
    for op, mark in (("cs", "max"), ("cf", "min")):
        if op in mods:
            assert all(
                (mark in k.split()) == holds(mods[op], d, size)
                for (_, k), d in zip(faces, drawn, strict=True)
            )
    target = next((op for op in (">", "<", "=") if op in mods), None)
    if target:
        for t, k in kept:
            assert ("hit" in k) == holds((target, mods[target][1]), final(t), size)


_BIN = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}


def arithmetic_total(text: str) -> int:
    def ev(node: ast.AST) -> int:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant):
            return int(node.value)
        if isinstance(node, ast.UnaryOp):
            return -ev(node.operand) if isinstance(node.op, ast.USub) else ev(node.operand)
        assert isinstance(node, ast.BinOp)
        return _BIN[type(node.op)](ev(node.left), ev(node.right))

    return ev(ast.parse(text, mode="eval"))


@settings(max_examples=300, deadline=None)
@given(expr=expressions(), seed=st.integers(0, 2**32), label=st.sampled_from(["", "Attack", "fire damage"]))
def test_the_shown_expression_faces_and_total_agree_and_every_part_is_rolled(expr, seed, label):
    # RULE: ENG-2
    typed = f"{expr} {label}".strip()
    assert check_expr(expr) is None, expr
    shown = Dice(seed, 1).roll_shown(typed)
    text, groups, arithmetic = read_back(shown)
    # The expression shown is the one typed, the words the label: nothing left over, nothing rolled in part.
    assert re.sub(r"\s", "", text) == re.sub(r"\s", "", expr) and shown.comment == label
    typed_terms = re.findall(r"\d*d\d+[^\s+\-*()]*", expr)
    assert [g[0] for g in groups] == typed_terms
    for term, faces in groups:
        assert len(faces) >= int(term.split("d")[0] or 1)  # every die of the term was rolled (and shown)
        term_did_everything_it_says(term, faces)
    # Every face drawn is shown, and only those.
    shown_faces = sorted(int(f.rstrip("!").split("->")[0]) for _, faces in groups for f, _ in faces)
    assert shown_faces == sorted(shown.roll.faces)
    # The total is what the shown faces make.
    assert arithmetic_total(arithmetic) == shown.roll.total


DICEISH = st.sampled_from(
    ["k3", "kh1", "d1", "!", "!!", "r1", ">4", "f1", "cs>19", "x", "+2", "d6", "s", "(", "}", " k3"]
)


@settings(max_examples=300, deadline=None)
@given(expr=expressions(), tail=st.one_of(DICEISH, st.text(max_size=12)), seed=st.integers(0, 2**32))
def test_an_accepted_expression_is_rolled_whole_or_refused_whole(expr, tail, seed):
    # RULE: ENG-2
    typed = expr + tail
    dice = Dice(seed, 1)
    try:
        shown = dice.roll_shown(typed)
    except DiceError as exc:
        assert "cannot be rolled" in str(exc) and dice._rng is None  # refused before a die was drawn
        return
    text, groups, _ = read_back(shown)
    # What was rolled and the words after it are, between them, all that was typed.
    rebuilt = re.sub(r"\s", "", text + shown.comment)
    assert rebuilt == unpadded(re.sub(r"\s", "", typed.strip()))
    if shown.comment:
        assert typed.strip().endswith(shown.comment) and re.match(r"[^\W\d_]", shown.comment)
