"""The toy ruleset of combat/engine/rulesets/README.md, built from the guide's own code blocks.

``build_toy_from_the_guide(root)`` writes the package the guide's code blocks
spell out (each starts with ``# toy/<module>.py``) under ``root`` and imports
it; the engine tests play it, the web tests play it on a battle page.
"""

from __future__ import annotations

import importlib
import pathlib
import re
import sys

from combat.engine.rulesets.base import Ruleset

GUIDE = pathlib.Path(__file__).resolve().parents[1] / "combat" / "engine" / "rulesets" / "README.md"
BLOCK = re.compile(r"```python\n# (toy/[\w.]+\.py)\n(.*?)```", re.S)


def guide_modules() -> list[tuple[str, str]]:
    """(path, code) of every module the guide spells out."""
    return BLOCK.findall(GUIDE.read_text())


def build_toy_from_the_guide(root: pathlib.Path) -> type[Ruleset]:
    """Write the guide's package under ``root`` and import it: the ``Toy`` ruleset class."""
    for name, code in guide_modules():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(code)
    sys.path.insert(0, str(root))
    try:
        for mod in [m for m in sys.modules if m == "toy" or m.startswith("toy.")]:
            del sys.modules[mod]
        toy: type[Ruleset] = importlib.import_module("toy").Toy
        return toy
    finally:
        sys.path.remove(str(root))
