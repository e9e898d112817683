"""The example rulesets of docs/RULESET_GUIDE.md, built from the guide's own code blocks.

``build_from_the_guide(root, package)`` writes the package the guide's code blocks spell out (each
starts with ``# <package>/<module>.py``: ``toy`` on two rows, ``grid`` on a grid) under ``root`` and
imports it; ``build_toy_from_the_guide`` and ``build_grid_from_the_guide`` return their ``Ruleset``
classes. The engine tests play them, the web tests play them on a battle page, and the shared suites
run on the grid one (tests/engine/test_ruleset_guide.py).
"""

from __future__ import annotations

import importlib
import pathlib
import re
import sys

from combat.engine.rulesets.base import Ruleset

GUIDE = pathlib.Path(__file__).resolve().parents[1] / "docs" / "RULESET_GUIDE.md"
BLOCK = re.compile(r"```python\n# ((\w+)/[\w.]+\.py)\n(.*?)```", re.S)


def guide_modules(package: str = "toy") -> list[tuple[str, str]]:
    """(path, code) of every module of ``package`` the guide spells out."""
    return [(path, code) for path, name, code in BLOCK.findall(GUIDE.read_text()) if name == package]


def build_from_the_guide(root: pathlib.Path, package: str, cls: str) -> type[Ruleset]:
    """Write the guide's ``package`` under ``root`` and import it: its ``Ruleset`` class ``cls``."""
    for name, code in guide_modules(package):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(code)
    sys.path.insert(0, str(root))
    try:
        for mod in [m for m in sys.modules if m == package or m.startswith(f"{package}.")]:
            del sys.modules[mod]
        ruleset: type[Ruleset] = getattr(importlib.import_module(package), cls)
        return ruleset
    finally:
        sys.path.remove(str(root))


def build_toy_from_the_guide(root: pathlib.Path) -> type[Ruleset]:
    """The rows toy (``toy/``): its ``Toy`` class."""
    return build_from_the_guide(root, "toy", "Toy")


def build_grid_from_the_guide(root: pathlib.Path) -> type[Ruleset]:
    """The grid toy (``grid/``): its ``Grid`` class."""
    return build_from_the_guide(root, "grid", "Grid")
