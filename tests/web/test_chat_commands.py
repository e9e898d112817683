"""What a typed chat line asks for (vtt.chat_commands): pure, with scripted dice."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from combat.engine.dice import Dice, ScriptedDice
from vtt.chat_commands import HELP, MAX_LENGTH, ChatError, Person, SheetRef, compose, whisper_target

MIRA = SheetRef("Mira Vell", False, {"dex": ("DEX", 3), "initiative": ("Initiative bonus", -2)})
MINE = SheetRef("Bram", True, {"dex": ("DEX", 1)})
MIRO = SheetRef("Miro", False, {"dex": ("DEX", 5)})
# Members as a whisper knows them: their characters', display and user names.
ANA = Person(1, "Ana Lopes", ("Mira Vell", "Ana Lopes", "Ana", "ana0c61"))
BOB = Person(2, "bob", ("Bram", "bob"))
MIKE = Person(3, "Mike", ("Miro", "Mike", "mike"))
PEOPLE = [ANA, BOB, MIKE]


def kinds(roll, first):
    """The faces of a roll whose kind starts with ``first`` ("die": kept, "drop")."""
    return [t for t, kind in roll["segments"] if kind.split()[:1] == [first]]


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
    assert kinds(roll, "die") == ["4", "6"] and ["6", "die max"] in roll["segments"]


def test_a_dropped_die_is_marked_and_does_not_count():
    roll = compose("/r 2d20kh1+1", [], ScriptedDice([3, 17])).parts[0]["roll"]
    assert roll["total"] == 18 and ["3", "drop"] in roll["segments"] and ["17", "die"] in roll["segments"]
    # Roll20's k keeps the highest: 4d6k3 drops the lowest die (d20's own k3 would keep the 3s).
    roll = compose("/r 4d6k3", [], ScriptedDice([3, 6, 1, 3])).parts[0]["roll"]
    assert roll["total"] == 12 and kinds(roll, "drop") == ["1"] and ["1", "drop min"] in roll["segments"]


def test_natural_highest_and_lowest_faces_are_marked_on_every_roll():
    roll = compose("/r 1d20+2 Attack", [], ScriptedDice([20])).parts[0]["roll"]
    assert ["20", "die max"] in roll["segments"]
    roll = compose("/r 1d20cs>19 Attack", [], ScriptedDice([19])).parts[0]["roll"]
    assert ["19", "die max"] in roll["segments"]  # a typed critical range marks 19 as well
    line = compose("A fumble: [[1d20cf<2]]", [], ScriptedDice([2]))
    assert ["2", "die min"] in line.rolls[0]["segments"]


def test_a_success_count_is_its_total():
    roll = compose("/r 6d6>5f1 Shots", [], ScriptedDice([5, 6, 1, 3, 2, 6])).parts[0]["roll"]
    assert (roll["total"], roll["successes"], roll["label"]) == (2, True, "Shots")
    assert ["5", "die hit"] in roll["segments"] and ["1", "die min miss"] in roll["segments"]


@pytest.mark.parametrize(
    ("typed", "part"),
    [
        ("/r 4d6 k3", "“k3”"),
        ("/r 5d6!!", "“!!”"),
        ("/r 1d20+5>15", "“>15”"),
        ("[[1d20 words]]", "“words”"),
        ("/r 1d20 Stealth +5", "“+5”"),
        ("/r 4dF", "“4dF”"),
        ("/r floor(1d6)", "“floor”"),
    ],
)
def test_what_the_roller_does_not_read_is_refused_naming_the_part(typed, part):
    dice = ScriptedDice([1] * 10)
    with pytest.raises(ChatError, match=re.escape(part)):
        compose(typed, [], dice)
    assert dice.remaining == 10  # nothing was rolled in part


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
    line = compose("/w Bram I hit [[1d20+5]] and [[1d4]]", [], ScriptedDice([12, 2]), PEOPLE)
    assert (line.audience, line.to, line.text) == ("one", BOB, "I hit [[1d20+5]] and [[1d4]]")
    assert line.parts[0] == {"to": "Bram"}  # the name the whisper was sent to
    assert [p.get("text") for p in line.parts[1:]] == ["I hit ", None, " and ", None]
    assert [r["total"] for r in line.rolls] == [17, 2]
    assert compose("/w GM psst", [], ScriptedDice([])).audience == "gm"
    assert compose("/gr 1d20", [], ScriptedDice([5])).audience == "gm"
    with pytest.raises(ChatError, match="At most 10 rolls"):
        compose("[[1]]" * 11, [], ScriptedDice([]))
    with pytest.raises(ChatError, match="cannot be rolled"):
        compose("I hit [[1d20 words]]", [], ScriptedDice([3]))


@pytest.mark.parametrize(
    ("typed", "who", "name"),
    [
        ("/w Mira Vell see you", ANA, "Mira Vell"),  # a character's whole name
        ("/w mira vell  see you", ANA, "Mira Vell"),  # any case
        ("/w MIRA see you", ANA, "Mira Vell"),  # the start of one name
        ("/w ana lopes see you", ANA, "Ana Lopes"),  # a display name
        ("/w ana0c61 see you", ANA, "ana0c61"),  # the user name still
        ('/w "Mira V" see you', ANA, "Mira Vell"),  # quoted: a start with a space
        ("/w br see you", BOB, "Bram"),
        ("/w gm see you", None, None),  # the GMs
    ],
)
def test_a_whisper_reaches_a_character_or_display_name_or_its_start(typed, who, name):
    line = compose(typed, [], ScriptedDice([]), PEOPLE)
    assert (line.to, line.text, line.audience) == (who, "see you", "gm" if who is None else "one")
    assert line.parts[:1] == ([{"to": name}] if name else [{"text": "see you"}])


def test_an_ambiguous_or_unknown_whisper_name_is_refused_clearly():
    with pytest.raises(ChatError, match="“mi” could be Mira Vell or Miro: write more of the name"):
        whisper_target("mi hello", PEOPLE)
    with pytest.raises(ChatError, match="Nobody in this campaign is called zed"):
        whisper_target("zed hello", PEOPLE)
    with pytest.raises(ChatError, match="Write a name and your message"):
        whisper_target("mira", PEOPLE)
    # Two members answering to one whole name: neither is guessed.
    twin = Person(4, "Other Mira", ("Mira Vell", "twin"))
    with pytest.raises(ChatError, match="could be Mira Vell or Mira Vell"):
        whisper_target("Mira Vell hi", [*PEOPLE, twin])


def test_emotes_and_help():
    line = compose("/em draws her sword [[1d20]]", [], ScriptedDice([7]))
    assert (line.kind, line.parts[0], line.parts[1], line.rolls[0]["total"]) == (
        "say",
        {"emote": True},
        {"text": "draws her sword "},
        7,
    )
    assert compose("/me waves", [], ScriptedDice([])).parts == [{"emote": True}, {"text": "waves"}]
    assert compose("/help", [], ScriptedDice([])).kind == "help"
    typed = " ".join(t for t, _ in HELP)
    for command in ("/r", "/gr", "/w", "/em", "[[", "4d6k3", "4d6d1", "3d6!", "2d10r1", "8d6>5", "cs>19"):
        assert command in typed


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
                if kind.startswith("die") and t.rstrip("!").isdigit()
            ]
            assert isinstance(roll["total"], int) and all(f >= 0 for f in faces)
