"""Forms of the battle pages, and the parser that turns a posted action form into an engine payload.

Everything posted is untrusted: ``action_from_post`` accepts only known field
names with the expected shapes and returns a human-readable reason for
anything else. Rule checks (range, turn, costs) are the engine's job.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django import forms

from combat.engine.actions import Refusal, chosen_params, loads_bounded

MAX_PARAMS_TEXT = 4000
MAX_FOG_TEXT = 8000  # a fog change's areas, as JSON (at most fog.MAX_RECTS of them)
_ASCII_INT = re.compile(r"-?[0-9]{1,12}")
_ASCII_SEQ = re.compile(r"[0-9]{1,18}")

MAX_BOARD_SIDE = 40
MAX_COPIES = 20
MAX_TEXT = 120


class NewBattleForm(forms.Form):
    """Name, board, the party and monsters with a count: a whole battle on one screen.

    ``monsters`` are (field name, label) pairs: a count field is added for each
    (the campaign's monsters and NPCs, then the ruleset's starter monsters).
    ``rows_board``: a board of front and back rows has no size to choose.
    """

    name = forms.CharField(max_length=MAX_TEXT, label="Name")
    width = forms.IntegerField(min_value=2, max_value=MAX_BOARD_SIDE, initial=12, label="Columns")
    height = forms.IntegerField(min_value=2, max_value=MAX_BOARD_SIDE, initial=10, label="Rows")
    party = forms.BooleanField(required=False, initial=True, label="Add the party")

    def __init__(
        self,
        *args: Any,
        monsters: Sequence[tuple[str, str]] = (),
        rows_board: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        if rows_board:
            for name in ("width", "height"):
                self.fields[name].required = False
                self.fields[name].widget = forms.HiddenInput()
        self.rows_board = rows_board
        self.monster_fields = []
        for field_name, label in monsters:
            self.fields[field_name] = forms.IntegerField(
                min_value=0,
                max_value=MAX_COPIES,
                initial=0,
                required=False,
                label=label,
                widget=forms.NumberInput(attrs={"inputmode": "numeric", "class": "count"}),
            )
            self.monster_fields.append(field_name)

    def monster_counts(self) -> dict[str, int]:
        return {name: self.cleaned_data.get(name) or 0 for name in self.monster_fields}

    def board_size(self) -> tuple[int, int]:
        if self.rows_board:
            return 2, 2
        return self.cleaned_data["width"], self.cleaned_data["height"]


class AddCombatantsForm(forms.Form):
    character = forms.IntegerField(min_value=1)
    count = forms.IntegerField(min_value=1, max_value=MAX_COPIES, initial=1, required=False)
    side = forms.ChoiceField(
        choices=[("", "As its kind"), ("party", "Party"), ("enemy", "Enemy")], required=False
    )
    client_token = forms.CharField(max_length=48, required=False)


class BadInput(ValueError):
    """A posted field that cannot be understood; ``str()`` is the message shown."""


@dataclass(frozen=True)
class Posted:
    payload: dict[str, Any]
    expected_seq: int | None
    client_token: str | None


def _text(post: Any, name: str, label: str, required: bool = True, limit: int = MAX_TEXT) -> str | None:
    value = post.get(name)
    if value is None or not str(value).strip():
        if required:
            raise BadInput(f"{label} is missing.")
        return None
    value = str(value).strip()
    if len(value) > limit:
        raise BadInput(f"{label} is too long.")
    return value


def ascii_int(value: Any) -> int | None:
    """A whole number written in ASCII digits ("12", "-3"), else None ("²", "١٢", "1e3", " ")."""
    text = str(value).strip() if value is not None else ""
    return int(text) if _ASCII_INT.fullmatch(text) else None


def page_seq(post: Any) -> int | None:
    """The version of the page a form was sent from: ``page_seq``, the page's seq mark that its forms
    include when sent (htmx's ``hx-include="#battle-seq"``), before a form's own ``expected_seq`` (a
    form rendered with its seq: a page without scripts, a form whose seq battle.js fills in)."""
    return posted_seq(post.get("page_seq") or post.get("expected_seq"))


def posted_seq(value: Any) -> int | None:
    """A posted page version: None when absent; ``BadInput`` unless plain ASCII digits."""
    if value in (None, ""):
        return None
    if not _ASCII_SEQ.fullmatch(str(value)):
        raise BadInput("This page's version is malformed; reload the page.")
    return int(value)


def _int(post: Any, name: str, label: str, required: bool = True) -> int | None:
    value = _text(post, name, label, required, limit=12)
    if value is None:
        return None
    number = ascii_int(value)
    if number is None:
        raise BadInput(f"{label} must be a whole number.")
    return number


_SQUARE_NAME = re.compile(r"^([A-Za-z]{1,2})\s*(\d{1,3})$")


def _square(post: Any) -> list[int] | None:
    """``square="x,y"`` (0-based, filled by the page), ``at="C1"`` (the board's label, typed by a person)
    or ``col``/``line`` (1-based numbers)."""
    raw = post.get("square")
    if raw:
        parts = [ascii_int(p) for p in str(raw)[:40].split(",")]
        numbers = [p for p in parts if p is not None]
        if len(parts) != 2 or len(numbers) != 2:
            raise BadInput("That square is malformed.")
        return numbers
    named = str(post.get("at") or "").strip()[:8]
    if named:
        match = _SQUARE_NAME.match(named)
        if not match:
            raise BadInput("Name a square as the board labels it, like C1.")
        column = 0
        for letter in match.group(1).upper():
            column = column * 26 + ord(letter) - 64
        return [column - 1, int(match.group(2)) - 1]
    col, line = _int(post, "col", "Column", False), _int(post, "line", "Row", False)
    if col is None and line is None:
        return None
    if col is None or line is None:
        raise BadInput("Give both a column and a row.")
    return [col - 1, line - 1]


def _gm_params(kind: str, post: Any) -> dict[str, Any]:
    """Parameters of setup and GM actions, from their named fields only."""
    params: dict[str, Any] = {}
    needs_combatant = kind not in (
        "gm.skip_turn",
        "gm.end_battle",
        "setup.start",
        "gm.fog",
        "gm.tactics",
        "gm.house_rule",
    )
    if needs_combatant:
        params["combatant"] = _text(post, "combatant", "Combatant", limit=16)
    if kind == "gm.set_hp":
        sign = post.get("sign")
        if sign in ("-1", "1"):  # the token menu: down or up by an amount
            amount = _int(post, "amount", "Amount")
            assert amount is not None
            if not 0 < amount <= 9999:
                raise BadInput("The amount must be a whole number from 1 to 9999.")
            params["delta"] = amount * int(sign)
        else:
            params["hp"] = _int(post, "hp", "HP")
    elif kind == "gm.hide":
        hidden = post.get("hidden")
        if hidden not in ("1", "0"):
            raise BadInput("Hide or reveal: say which.")
        params["hidden"] = hidden == "1"
    elif kind == "gm.set_resource":
        params["resource"] = _text(post, "resource", "Resource", limit=40)
        params["value"] = _int(post, "value", "Value")
    elif kind == "gm.add_status":
        params["status"] = _text(post, "status", "Status", limit=40)
        params["power"] = _int(post, "power", "Power", False) or 1
        params["duration"] = _int(post, "duration", "Duration", False) or 1
    elif kind == "gm.remove_status":
        params["status"] = _text(post, "status", "Status", limit=40)
    elif kind in ("gm.move", "setup.place"):
        row = post.get("row")
        if row:
            params["row"] = str(row)[:10]
        else:
            square = _square(post)
            if square is None:
                raise BadInput("Choose a square.")
            params["to" if kind == "gm.move" else "pos"] = square
    elif kind == "gm.end_battle":
        params["reason"] = _text(post, "reason", "Reason", False) or "Ended by the GM."
    elif kind == "gm.fog":
        params.update(_fog_params(post))
    elif kind == "gm.house_rule":  # the value as the form sends it: the ruleset's schema reads it
        params["option"] = _text(post, "option", "The house rule", limit=40)
        params["value"] = _text(post, "value", "The house rule's value", False, limit=MAX_TEXT) or ""
    return params


def _fog_params(post: Any) -> dict[str, Any]:
    """A fog change: ``mode``, and its areas as ``rects`` (JSON, from the board) or one ``square``."""
    params: dict[str, Any] = {"mode": _text(post, "mode", "The fog change", limit=10)}
    raw = post.get("rects")
    if raw:
        rects = loads_bounded(str(raw), MAX_FOG_TEXT, max_depth=3)
        if isinstance(rects, Refusal) or not isinstance(rects, list):
            raise BadInput("Those squares are malformed; reload the page.")
        params["rects"] = rects
    elif (square := _square(post)) is not None:
        params["rects"] = [[*square, *square]]
    return params


def client_token(post: Any) -> str | None:
    """The form's one-time token: printable ASCII only (a NUL would not even reach PostgreSQL)."""
    token = _text(post, "client_token", "The form token", False, limit=48)
    if token is not None and not (token.isascii() and token.isprintable()):
        raise BadInput("The form token is malformed; reload the page.")
    return token


def action_from_post(post: Any) -> Posted:
    """The engine payload ``{"kind", "actor", "params"}`` of a posted action form.

    A player's option posts its fixed ``params`` (JSON) and what was picked on the page: ``target``
    (tokens, repeated) and ``square`` (or ``col``/``line``); ``chosen_params`` names them as
    ``ACTION_PARAMS`` says (``targets``; ``to`` for a move, ``square`` otherwise). GM forms post
    named fields (``_gm_params``).

    Raises ``BadInput`` with the message to show when a field is forged or malformed.
    """
    kind = _text(post, "kind", "The action", limit=64)
    assert kind is not None
    token = client_token(post)
    expected_seq = page_seq(post)
    actor = _text(post, "actor", "The actor", False, limit=16)
    if kind == "answer":
        answer = {
            "decision": _text(post, "decision", "The question", limit=16),
            "choice": _text(post, "choice", "Your answer", limit=40),
        }
        return Posted({"kind": kind, "actor": actor, "params": answer}, expected_seq, token)
    if kind.startswith(("gm.", "setup.")):
        return Posted({"kind": kind, "actor": None, "params": _gm_params(kind, post)}, expected_seq, token)
    raw = post.get("params") or "{}"
    if len(raw) > MAX_PARAMS_TEXT:
        raise BadInput("The action's details are too long.")
    params = loads_bounded(raw, MAX_PARAMS_TEXT)
    if isinstance(params, Refusal) or not isinstance(params, dict):
        raise BadInput("The action's details are malformed; reload the page.")
    targets = (
        [str(t)[:16] for t in post.getlist("target") if str(t).strip()] if hasattr(post, "getlist") else []
    )
    params = chosen_params(kind, params, targets, _square(post))
    return Posted({"kind": kind, "actor": actor, "params": params}, expected_seq, token)
