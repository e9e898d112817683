"""The embedded server's secret key: made on its first start, kept in the data folder, read ever after.

Settings import this before Django is set up: standard library only.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path


def kept_secret_key(path: Path) -> str:
    """The key stored in ``path``; on first use a new random one is written there (readable by its owner
    alone, in a folder made for it if need be). Sessions and signed links survive restarts."""
    try:
        key = path.read_text().strip()
    except FileNotFoundError:
        key = ""
    if key:
        return key
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    key = secrets.token_urlsafe(50)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another process of the same start wrote it first: use theirs
        return path.read_text().strip() or key
    with os.fdopen(fd, "w") as out:
        out.write(key + "\n")
    return key
