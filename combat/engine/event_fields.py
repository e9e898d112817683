"""The fields every event may carry (its dice, what its actor spends, what caused it), and checking a
dict against a TypedDict (``typed_problems``: events' data and actions' parameters)."""

# No ``from __future__ import annotations`` here: the TypedDicts' Required markers must be real objects.
from types import UnionType
from typing import Any, Required, TypedDict, Union, get_args, get_origin, get_type_hints

# A flat amount the rules add to a roll and what it comes from, in a player's words ("from" is a keyword).
RollAdd = TypedDict("RollAdd", {"value": int, "from": str})


class RollData(TypedDict, total=False):
    """One roll as recorded (``Roll.to_dict``): the dice, and when the rules add to it, the whole roll as
    made: ``adds`` (each flat amount with what it comes from), ``times`` (a multiplier, ``times_why``
    its reason) and ``result``, the total after them."""

    expr: Required[str]
    faces: Required[list[int]]
    total: Required[int]
    purpose: Required[str]
    adds: list[RollAdd]
    times: int
    times_why: str
    result: int


class Rolled(TypedDict):
    """Every roll of an event in one line: ``{"expression": "1d20 + 2d6", "faces": [14, 3, 5], "total": 22}``."""

    expression: str
    faces: list[int]
    total: int


class Recorded(TypedDict, total=False):
    """Fields any event may carry: its dice, the resources its actor spends, the action it begins."""

    rolls: list[RollData]
    rolled: Rolled
    spend: dict[str, int]
    act: str


class Caused(Recorded, total=False):
    """What caused a change, named like the action parameters (Paradigm: ``ability``, ``item`` or ``object``,
    a basic attack's ``weapon``; Action Block: a ``spell``); logs stored before carry it as
    ``source: "item:ether"``. Damage and healing may also come from a status's own ``status``."""

    ability: str
    item: str
    object: str
    spell: str
    weapon: str


# --- checking a dict against a TypedDict ---------------------------------------------------------


def _fits(value: Any, hint: Any) -> bool:
    origin = get_origin(hint)
    if hint is Any:
        return True
    if hint is None or hint is type(None):
        return value is None
    if origin is Union or origin is UnionType:
        return any(_fits(value, h) for h in get_args(hint))
    if origin in (list, dict):
        if not isinstance(value, origin):
            return False
        args = get_args(hint)
        if origin is list:
            return all(_fits(v, args[0]) for v in value) if args else True
        return all(_fits(v, args[1]) for v in value.values()) if args else True
    if isinstance(hint, type) and issubclass(hint, dict):  # a TypedDict
        return isinstance(value, dict) and not typed_problems(hint, value, "")
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, hint)


def typed_problems(
    spec: Any, data: dict[str, Any], where: str, unknown: str = "not a field of this event"
) -> list[str]:
    """What in ``data`` departs from the TypedDict ``spec`` (also used for actions' parameters)."""
    hints = get_type_hints(spec)
    out = [f"{where}{key}: missing" for key in sorted(spec.__required_keys__) if key not in data]
    for key, value in data.items():
        if key not in hints:
            out.append(f"{where}{key}: {unknown}")
        elif not _fits(value, hints[key]):
            shown = repr(value) if len(repr(value)) <= 40 else repr(value)[:37] + "..."
            out.append(f"{where}{key}: {shown} is not {_type_words(hints[key])}")
    return out


_WORDS = {
    int: "a whole number",
    str: "text",
    bool: "yes or no",
    float: "a number",
    list: "a list",
    dict: "an object",
}


def _type_words(hint: Any) -> str:
    """A field's type in words (``int | None``: "a whole number or nothing")."""
    if hint is None or hint is type(None):
        return "nothing"
    if get_origin(hint) in (Union, UnionType):
        return " or ".join(_type_words(h) for h in get_args(hint))
    base = get_origin(hint) or hint
    return _WORDS.get(base, "an object" if isinstance(base, type) and issubclass(base, dict) else str(hint))
