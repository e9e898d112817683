"""The code's shape, read from its own source: layers run one way and pieces stay small.

- vtt (accounts, campaigns, characters, content, chat) imports nothing of combat but ``combat.engine``:
  the campaign pages learn of battles through what combat registers (``vtt.battles``), the websocket
  routes through ``vtt.routing``'s registry.
- The presenters render from a frozen snapshot with their own memo: none imports the loader
  (``combat.table``) or calls back into a snapshot for a cached value.
- The push is wired with plain imports: no module of combat or vtt finds a module by its name
  (``importlib``) or a hook by its name (``getattr(live, ...)``).
- Every module of combat/ and vtt/ is under ``MAX_LINES`` lines and every function under
  ``MAX_FUNCTION`` (bench/ aside).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.source_imports import imported_modules

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 500
MAX_FUNCTION = 60


def sources(*folders: str) -> list[Path]:
    return sorted(
        p for folder in folders for p in (ROOT / folder).rglob("*.py") if "migrations" not in p.parts
    )


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def imports(source: str, module: str) -> list[tuple[int, str]]:
    """(line, dotted name) of every module ``source`` imports: ``from a import b`` names ``a.b`` too."""
    return imported_modules(source, module)


def battle_imports(source: str, module: str) -> list[str]:
    """Where ``source`` imports combat outside ``combat.engine``."""
    wrong = []
    for line, name in imports(source, module):
        parts = name.split(".")
        if parts[0] == "combat" and (len(parts) == 1 or parts[1] != "engine"):
            # ``from combat import engine`` names "combat" and "combat.engine": only the second counts
            if len(parts) == 1 and any(
                n.startswith("combat.") for ln, n in imports(source, module) if ln == line
            ):
                continue
            wrong.append(f"{module}:{line} imports {name}")
    return wrong


def loader_calls(source: str, module: str) -> list[str]:
    """Where ``source`` imports the battle loader or asks a snapshot for a cached value."""
    wrong = [
        f"{module}:{line} imports {name}" for line, name in imports(source, module) if name == "combat.table"
    ]
    for node in ast.walk(ast.parse(source)):
        cached = isinstance(node, ast.Attribute) and node.attr in {"once", "class_view", "view"}
        if cached and isinstance(node.value, ast.Name) and node.value.id == "table":  # type: ignore[attr-defined]
            wrong.append(f"{module}:{node.lineno} calls table.{node.attr}")
    return wrong


def wiring_by_name(source: str, module: str) -> list[str]:
    """Where ``source`` finds a module of the project by its name, or a hook of one by its name."""
    wrong = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
        first = node.args[0] if node.args else None
        if called in {"import_module", "__import__"} and not (
            isinstance(first, ast.Attribute) and first.attr == "SESSION_ENGINE"  # Django's own setting
        ):
            wrong.append(f"{module}:{node.lineno} imports a module by name")
        if (
            called == "getattr"
            and isinstance(first, ast.Name)
            and first.id in {"live", "services", "commands"}
        ):
            wrong.append(f"{module}:{node.lineno} looks a hook up by name")
    return wrong


def test_the_checks_see_each_wrong_import():
    assert battle_imports("from combat.models import Battle", "vtt.x")
    assert battle_imports("from combat import live", "vtt.x")
    assert battle_imports("def f():\n    import combat.sockets", "vtt.x")
    assert not battle_imports("from combat.engine.dice import Dice\nfrom combat import engine", "vtt.x")
    assert loader_calls("from combat.table import Table", "combat.presenters.x")
    assert loader_calls("def f(table):\n    return table.once('k', int)", "combat.presenters.x")
    assert loader_calls("def f(table):\n    return table.class_view('gm')", "combat.presenters.x")
    assert not loader_calls(
        "from combat.snapshot import Table\nfrom combat.presenters.memo import once", "p.x"
    )
    assert wiring_by_name("import importlib\nlive = importlib.import_module('combat.live')", "combat.x")
    assert wiring_by_name("hook = getattr(live, 'battle_changed', None)", "combat.x")
    assert not wiring_by_name("store = import_module(settings.SESSION_ENGINE).SessionStore", "vtt.x")


def test_vtt_imports_nothing_of_combat_but_the_engine():
    paths = sources("vtt")
    assert len(paths) > 40
    wrong = [w for p in paths for w in battle_imports(p.read_text(encoding="utf-8"), module_name(p))]
    assert wrong == [], "\n".join(wrong)


def test_no_presenter_calls_back_into_the_loader():
    paths = sources("combat/presenters")
    assert len(paths) > 10
    wrong = [w for p in paths for w in loader_calls(p.read_text(encoding="utf-8"), module_name(p))]
    assert wrong == [], "\n".join(wrong)


def test_the_push_is_wired_by_plain_imports():
    paths = sources("combat", "vtt")
    wrong = [w for p in paths for w in wiring_by_name(p.read_text(encoding="utf-8"), module_name(p))]
    assert wrong == [], "\n".join(wrong)


def too_big(source: str, where: str) -> list[str]:
    lines = source.count("\n") + (not source.endswith("\n") and bool(source))
    wrong = [f"{where}: {lines} lines"] if lines >= MAX_LINES else []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            length = (node.end_lineno or node.lineno) - first + 1
            if length >= MAX_FUNCTION:
                wrong.append(f"{where}:{node.lineno} {node.name}: {length} lines")
    return wrong


def test_modules_and_functions_stay_small():
    assert too_big("x = 1\n" * MAX_LINES, "big.py")
    assert too_big("def f():\n" + "    x = 1\n" * MAX_FUNCTION, "long.py")
    assert not too_big("def f():\n" + "    x = 1\n" * (MAX_FUNCTION - 2), "short.py")
    wrong = []
    for path in sources("combat", "vtt"):
        wrong += too_big(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert wrong == [], "\n".join(wrong)
