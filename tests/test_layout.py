"""Tests keep their helpers in one place.

A module under tests/<folder>/ imports helpers from its own folder (its
conftest.py or a helper module that is not a test module) or from the top of
tests/ (tests/table.py, tests/sockets.py, tests/races.py, tests/conftest.py),
never from another folder of tests/ and never from a ``test_*`` module. The
modules at the top of tests/ import from no folder.
"""

from __future__ import annotations

from pathlib import Path

from tests.source_imports import imported_modules

TESTS = Path(__file__).resolve().parent


def layout_problems(source: str, module: str, folders: set[str]) -> list[str]:
    """What breaks the layout in the module ``module`` (e.g. ``tests.web.test_sheets``) with ``source``."""
    parts = module.split(".")
    own = parts[1] if len(parts) > 2 else None  # None: a module at the top of tests/
    problems: dict[int, str] = {}  # one per import statement
    for line, name in imported_modules(source, module):
        names = name.split(".")
        if names[0] != "tests" or line in problems:
            continue
        where = f"{module}:{line} imports {name}"
        if len(names) > 1 and names[1] in folders and names[1] != own:
            problems[line] = f"{where}: a helper of another test folder (move it to the top of tests/)"
        elif any(n.startswith("test_") for n in names[1:]):
            problems[line] = f"{where}: a test module (move the helper to conftest.py or a helper module)"
    return list(problems.values())


def test_no_test_module_imports_helpers_from_another_folder_or_from_a_test_module():
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert {"engine", "web", "live", "security", "services", "e2e"} <= folders
    # The check itself sees each kind of wrong import (and lets the right ones through).
    assert layout_problems("from tests.live.table import table", "tests.web.test_x", folders)
    assert layout_problems("import tests.services.helpers", "tests.security.test_x", folders)
    assert layout_problems(
        "def f():\n    from tests.engine.test_luck import duel", "tests.engine.test_x", folders
    )
    assert layout_problems("from .test_faults import off_loop", "tests.e2e.test_x", folders)
    assert layout_problems("from tests.e2e import test_faults", "tests.e2e.test_x", folders)
    assert layout_problems("from tests.web.conftest import options_post", "tests.table", folders)
    assert not layout_problems(
        "from tests.table import table\nfrom tests.web.conftest import sheet_post\nfrom tests.web import forms",
        "tests.web.test_x",
        folders,
    )

    problems = []
    checked = 0
    for path in sorted(TESTS.rglob("*.py")):
        relative = path.relative_to(TESTS.parent).with_suffix("")
        if "artifacts" in relative.parts:
            continue
        module = ".".join(relative.parts)
        problems += layout_problems(path.read_text(encoding="utf-8"), module, folders)
        checked += 1
    assert checked > 80
    assert problems == [], "\n".join(problems)
