"""The engine is pure Python: no Django, Channels or vtt import anywhere under combat/engine.

And the rulesets are plugins: no module outside combat/engine/rulesets/ names a ruleset key, and no
module outside a ruleset's package names one of its own event types.
"""

from __future__ import annotations

import ast
import pathlib
import re
import subprocess
import sys

ENGINE = pathlib.Path(__file__).resolve().parents[2] / "combat" / "engine"
BANNED = ("django", "channels", "vtt", "combat.models", "combat.services", "combat.views")


def _imports(path: pathlib.Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_engine_sources_import_nothing_banned():
    offenders = {
        str(path.relative_to(ENGINE)): sorted(
            n for n in _imports(path) if any(n == b or n.startswith(b + ".") for b in BANNED)
        )
        for path in ENGINE.rglob("*.py")
    }
    offenders = {k: v for k, v in offenders.items() if v}
    assert offenders == {}


def test_importing_the_engine_loads_no_django():
    code = (
        "import sys, pkgutil, importlib, combat.engine as e\n"
        "for m in pkgutil.walk_packages(e.__path__, 'combat.engine.'): importlib.import_module(m.name)\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in ('django', 'channels', 'vtt')]\n"
        "print(bad); sys.exit(1 if bad else 0)\n"
    )
    root = ENGINE.parents[1]
    result = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def _string_constants(path: pathlib.Path) -> set[str]:
    return {
        n.value
        for n in ast.walk(ast.parse(path.read_text(), str(path)))
        if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }


def _naming(names: set[str], allowed: set[pathlib.Path]) -> dict[str, list[str]]:
    """Files outside the ``allowed`` folders that name one of ``names``: a string constant of a module of
    combat/ or vtt/, or a quoted string in a template or script."""
    root = ENGINE.parents[1]
    offenders: dict[str, list[str]] = {}
    for folder in ("combat", "vtt"):
        for path in (root / folder).rglob("*.py"):
            if allowed & set(path.parents) or "migrations" in path.parts:
                continue
            found = sorted(_string_constants(path) & names)
            if found:
                offenders[str(path.relative_to(root))] = found
    quoted = re.compile("|".join(rf"""["']{re.escape(k)}["']""" for k in names))
    for folder in ("templates", "static"):
        for path in (root / folder).rglob("*"):
            if path.suffix in (".html", ".js") and quoted.search(path.read_text()):
                offenders[str(path.relative_to(root))] = quoted.findall(path.read_text())
    return offenders


def test_no_module_outside_the_rulesets_names_a_ruleset_key():
    from combat.engine.rulesets import RULESETS

    assert _naming({"luck"}, set()) != {}  # the check sees a key where it is named
    assert _naming(set(RULESETS), {ENGINE / "rulesets"}) == {}


def test_no_module_outside_the_ruleset_packages_names_a_ruleset_event_type():
    """A ruleset's own events (``Ruleset.events`` beyond the generic ones) are named only in its package:
    the log, the outcome line and the hidden view read them through their ``EventType``."""
    from combat.engine.events import GENERIC_EVENTS
    from combat.engine.rulesets import RULESETS

    packages = {p for p in (ENGINE / "rulesets").iterdir() if (p / "__init__.py").exists()}
    own = {etype for r in RULESETS.values() for etype in r.events} - set(GENERIC_EVENTS)
    assert {"luck.rolled", "lp.lost", "eidolon.summoned", "grapple.rolled"} <= own
    assert _naming(own, set()) != {}  # the check sees the types where they are named
    assert _naming(own, packages) == {}
