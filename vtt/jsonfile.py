"""Strict reading of an uploaded JSON file: size, depth, duplicate keys, refused with a reason.

>>> load_json(b'{"a": 1}')
{'a': 1}
>>> load_json(b'{"a": 1, "a": 2}')
Traceback (most recent call last):
...
vtt.jsonfile.JsonRefused: The file names "a" twice in the same object.
"""

from __future__ import annotations

import json
from typing import Any

from combat.engine.actions import text_depth

MAX_BYTES = 2 * 1024 * 1024
MAX_DEPTH = 32


class JsonRefused(ValueError):
    """A file that is not acceptable JSON; ``str(exc)`` says why in a player's words."""


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise JsonRefused(f'The file names "{key[:40]}" twice in the same object.')
        out[key] = value
    return out


def _no_constants(name: str) -> Any:
    raise JsonRefused(f"The file contains {name}, which is not a number.")


def load_json(raw: bytes | str, max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH) -> Any:
    """The parsed value, or ``JsonRefused`` (too large, not UTF-8 JSON, too deep, a key twice, NaN)."""
    size = len(raw.encode() if isinstance(raw, str) else raw)
    if size > max_bytes:
        raise JsonRefused(
            f"The file is too large ({size // 1024} KB; at most {max_bytes // (1024 * 1024)} MB)."
        )
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise JsonRefused("The file is not text (UTF-8 JSON expected).") from None
    else:
        text = raw
    if not text.strip():
        raise JsonRefused("The file is empty.")
    if text_depth(text, max_depth) > max_depth:
        raise JsonRefused(f"The file is nested too deeply (at most {max_depth} levels).")
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants)
    except JsonRefused:
        raise
    except (ValueError, RecursionError) as exc:
        line = getattr(exc, "lineno", None)
        where = f" (line {line})" if line else ""
        raise JsonRefused(f"The file is not valid JSON{where}.") from None
