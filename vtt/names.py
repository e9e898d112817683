"""What a username looks like: the Unicode confusables skeleton (UTS #39), case folded, stored per account.

``skeleton(name)`` maps every character that looks like another to one
representative of its group, so two names that look alike have the same
skeleton: ``ɡm`` (a script g), ``grn`` (r and n) and ``gm``; ``аlice`` (a
Cyrillic a), ``aIice`` (a capital i), ``alıce`` (a dotless i) and ``alice``.
It is the skeleton of UTS #39 (NFD, each character replaced by its prototype
from the Unicode confusables table, NFD again), applied before and after case
folding, so that ``ALICE`` and ``alice`` meet too. Since case folding turns
``I`` into ``i`` where the table turns it into ``l``, ``i`` and ``l`` are one
letter here: the price of one stored key for both lookalikes and case.

The table is the one ``confusable_homoglyphs`` ships (``confusables.txt`` read
both ways: a prototype lists its lookalikes, a lookalike its prototype). The
skeleton is stored beside the account (``AccountName``), so "is this name
taken?" is one equality on either database, never a matter of collation.

>>> skeleton("aIice") == skeleton("alıce") == skeleton("ALICE") == skeleton("alice")
True
>>> skeleton("ɡm") == skeleton("grn") == skeleton("gm")
True
>>> skeleton("bob") == skeleton("rob")
False
"""

from __future__ import annotations

import functools
import unicodedata
from typing import Any

from confusable_homoglyphs import confusables

# Case folding meets the table's lookalikes here: "I" folds to "i" but looks like "l".
LATIN_EXTRA = {"i": "l"}


def _clean(text: str) -> str:
    return text.replace("\u200e", "").replace("\u200f", "")  # the data wraps right-to-left letters in marks


@functools.cache
def prototypes() -> dict[str, str]:
    """Each confusable character -> the representative of its group (the table's prototype).

    In the table a lookalike maps to exactly one prototype, and a prototype is never itself a lookalike:
    a character listing more than one homoglyph is a prototype, one listing a single homoglyph that lists
    more is a lookalike of it. A lone pair (each listing only the other) is one group of two; its
    representative is the longer text, else the ASCII one, else the lower code point.
    """
    data = {_clean(k): [_clean(h["c"]) for h in v] for k, v in confusables.confusables_data.items()}
    out: dict[str, str] = {}
    for char, glyphs in data.items():
        if len(char) != 1 or len(glyphs) != 1:
            continue  # a prototype (or a sequence, only ever a prototype)
        other = glyphs[0]
        if len(data.get(other, ())) > 1:
            out[char] = other
            continue
        pair = sorted((char, other), key=lambda s: (-len(s), not s.isascii(), [ord(c) for c in s]))
        if pair[0] != char:
            out[char] = pair[0]
    return out


def _map(text: str) -> str:
    table = prototypes()
    text = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in text))


def skeleton(name: str) -> str:
    """The key two names share when they look alike (NFKC, the UTS #39 map, case folded, the map again)."""
    folded = _map(_map(unicodedata.normalize("NFKC", name)).casefold())
    return "".join(LATIN_EXTRA.get(ch, ch) for ch in folded)


def display_name(user: Any) -> str:
    """What the table calls an account: the name its owner gave (a guest's, or a kept guest's, in
    ``first_name``), else its username."""
    first = str(getattr(user, "first_name", "") or "").strip()
    return first or str(user.get_username())
