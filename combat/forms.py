"""Forms of the battle pages, and the parser that turns a posted action form into an engine payload.

Everything posted is untrusted: ``action_from_post`` accepts only known field
names with the expected shapes and returns a human-readable reason for
anything else. Rule checks (range, turn, costs) are the engine's job.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django import forms

MAX_BOARD_SIDE = 40
MAX_COPIES = 20
MAX_TEXT = 120


class NewBattleForm(forms.Form):
    name = forms.CharField(max_length=MAX_TEXT, label="Name")
    width = forms.IntegerField(min_value=2, max_value=MAX_BOARD_SIDE, initial=12, label="Columns")
    height = forms.IntegerField(min_value=2, max_value=MAX_BOARD_SIDE, initial=10, label="Rows")


class AddCombatantsForm(forms.Form):
    character = forms.IntegerField(min_value=1)
    count = forms.IntegerField(min_value=1, max_value=MAX_COPIES, initial=1, required=False)
    side = forms.ChoiceField(choices=[("", "As its kind"), ("party", "Party"), ("enemy", "Enemy")], required=False)
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


def _int(post: Any, name: str, label: str, required: bool = True) -> int | None:
    value = _text(post, name, label, required, limit=12)
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise BadInput(f"{label} must be a whole number.") from None


def _square(post: Any) -> list[int] | None:
    """``square="x,y"`` (0-based, filled by the page) or ``col``/``line`` (1-based, typed by a person)."""
    raw = post.get("square")
    if raw:
        parts = str(raw).split(",")
        if len(parts) != 2 or not all(p.strip().lstrip("-").isdigit() for p in parts):
            raise BadInput("That square is malformed.")
        return [int(parts[0]), int(parts[1])]
    col, line = _int(post, "col", "Column", False), _int(post, "line", "Row", False)
    if col is None and line is None:
        return None
    if col is None or line is None:
        raise BadInput("Give both a column and a row.")
    return [col - 1, line - 1]


def _gm_params(kind: str, post: Any) -> dict[str, Any]:
    """Parameters of setup and GM actions, from their named fields only."""
    params: dict[str, Any] = {}
    needs_combatant = kind not in ("gm.skip_turn", "gm.end_battle", "setup.start")
    if needs_combatant:
        params["combatant"] = _text(post, "combatant", "Combatant", limit=16)
    if kind == "gm.set_hp":
        params["hp"] = _int(post, "hp", "HP")
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
            params["pos"] = square
    elif kind == "gm.end_battle":
        params["reason"] = _text(post, "reason", "Reason", False) or "Ended by the GM."
    return params


def action_from_post(post: Any) -> Posted:
    """The engine payload ``{"kind", "actor", "params"}`` of a posted action form.

    Raises ``BadInput`` with the message to show when a field is forged or malformed.
    """
    kind = _text(post, "kind", "The action", limit=64)
    assert kind is not None
    token = _text(post, "client_token", "The form token", False, limit=48)
    raw_seq = post.get("expected_seq")
    expected_seq = None
    if raw_seq not in (None, ""):
        if not str(raw_seq).isdigit():
            raise BadInput("This page's version is malformed; reload the page.")
        expected_seq = int(raw_seq)
    actor = _text(post, "actor", "The actor", False, limit=16)
    if kind == "answer":
        params = {
            "decision": _text(post, "decision", "The question", limit=16),
            "choice": _text(post, "choice", "Your answer", limit=40),
        }
        return Posted({"kind": kind, "actor": actor, "params": params}, expected_seq, token)
    if kind.startswith(("gm.", "setup.")):
        return Posted({"kind": kind, "actor": None, "params": _gm_params(kind, post)}, expected_seq, token)
    raw = post.get("params") or "{}"
    if len(raw) > 4000:
        raise BadInput("The action's details are too long.")
    try:
        params = json.loads(raw)
    except ValueError:
        raise BadInput("The action's details are malformed; reload the page.") from None
    if not isinstance(params, dict):
        raise BadInput("The action's details are malformed; reload the page.")
    targets = [str(t)[:16] for t in post.getlist("target") if str(t).strip()] if hasattr(post, "getlist") else []
    if targets:
        params["targets"] = targets
    square = _square(post)
    if square is not None:
        params["to" if kind == "move" else "square"] = square
    return Posted({"kind": kind, "actor": actor, "params": params}, expected_seq, token)
