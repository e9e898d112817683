"""What a typed chat line asks for (vtt.chat_commands): pure, with scripted dice."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combat.engine.dice import Dice, ScriptedDice
from vtt.chat_commands import MAX_LENGTH, ChatError, SheetRef, compose

MIRA = SheetRef("Mira Vell", False, {"dex": ("DEX", 3), "initiative": ("Initiative bonus", -2)})
MINE = SheetRef("Bram", True, {"dex": ("DEX", 1)})
MIRO = SheetRef("Miro", False, {"dex": ("DEX", 5)})


def test_a_roll_command_keeps_its_label_and_the_dice_it_rolled():
    line = compose("/roll 2d6+3 fire damage", [], ScriptedDice([4, 6]))
    roll = line.parts[0]["roll"]
    assert (line.kind, line.audience, roll["total"], roll["label"], roll["typed"]) == (
        "roll",
        "all",
        13,
        "fire damage",
        "2d6+3",
    )
    assert [t for t, kind in roll["segments"] if kind == "die"] == ["4", "6"]


def test_a_dropped_die_is_marked_and_does_not_count():
    roll = compose("/r 2d20kh1+1", [], ScriptedDice([3, 17])).parts[0]["roll"]
    assert roll["total"] == 18 and ["3", "drop"] in roll["segments"] and ["17", "die"] in roll["segments"]


def test_sheet_values_by_name_own_and_negative():
    # ``@init`` is a stat of the sender's own character (Bram has none): refused with the names it has.
    with pytest.raises(ChatError, match="Bram has no number called init"):
        compose("/r 1d20+@init", [MIRA, MINE], ScriptedDice([10]))
    roll = compose("/r 1d20+@mira.init", [MIRA, MINE], ScriptedDice([10])).parts[0]["roll"]
    assert (
        roll["expr"] == "1d20+(-2)"
        and roll["total"] == 8
        and roll["refs"] == [["Mira Vell: Initiative bonus", -2]]
    )
    roll = compose("/r 1d20+@miravell.dex", [MIRA, MIRO], ScriptedDice([10])).parts[0]["roll"]
    assert roll["total"] == 13
    with pytest.raises(ChatError, match="Name the character"):
        compose("/r 1d20+@dex", [MIRA], ScriptedDice([10]))
    with pytest.raises(ChatError, match="No character you can see is called mir"):
        compose("/r 1d20+@mir.dex", [MIRA, MIRO], ScriptedDice([10]))


def test_inline_rolls_whispers_and_gm_lines():
    line = compose("/w Bram I hit [[1d20+5]] and [[1d4]]", [], ScriptedDice([12, 2]))
    assert (line.audience, line.to, line.text) == ("one", "Bram", "I hit [[1d20+5]] and [[1d4]]")
    assert [p.get("text") for p in line.parts] == ["I hit ", None, " and ", None]
    assert [r["total"] for r in line.rolls] == [17, 2]
    assert compose("/w GM psst", [], ScriptedDice([])).audience == "gm"
    assert compose("/gr 1d20", [], ScriptedDice([5])).audience == "gm"
    with pytest.raises(ChatError, match="At most 10 rolls"):
        compose("[[1]]" * 11, [], ScriptedDice([]))
    with pytest.raises(ChatError, match="cannot be rolled"):
        compose("I hit [[1d20 words]]", [], ScriptedDice([3]))


def test_control_characters_go_and_long_lines_are_refused():
    assert compose("a\x00b\r\nc", [], ScriptedDice([])).text == "ab\nc"
    with pytest.raises(ChatError, match=f"at most {MAX_LENGTH} characters"):
        compose("y" * (MAX_LENGTH + 1), [], ScriptedDice([]))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_every_line_either_composes_or_says_why(text):
    """Like d20's own property test: any input is a line or a ChatError, never another exception."""
    try:
        line = compose(text, [MIRA, MINE], Dice(1))
    except ChatError as exc:
        assert str(exc)
    else:
        for roll in line.rolls:
            faces = [
                int(t.rstrip("!"))
                for t, kind in roll["segments"]
                if kind == "die" and t.rstrip("!").isdigit()
            ]
            assert isinstance(roll["total"], int) and all(f >= 0 for f in faces)
