"""The shape of a ruleset package, as the table of docs/RULESET_GUIDE.md gives it.

``SHAPE`` is the table read from the guide: module -> the hooks of ``Ruleset``
it defines. ``shape_problems(ruleset)`` lists where a registered ruleset's
package departs from it (an empty list when it fits); the four rulesets and
the guide's toy are held to it.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pathlib
import re
import sys
from types import ModuleType
from typing import Any

from combat.engine.rulesets import base
from combat.engine.rulesets.base import Ruleset

GUIDE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "RULESET_GUIDE.md"
ROW = re.compile(r"^\| `(\w+\.py)` \| (.+?) \|(.*)\|$", re.M)
#: Modules of the table that a package may leave out (none: every package has every module).
OPTIONAL: frozenset[str] = frozenset()
#: Modules whose hooks every package defines (the others may leave a hook to ``Ruleset``'s default).
ALWAYS = frozenset({"actions.py", "events.py"})
#: What ``rules.py`` never does: roll, emit, open a reaction window.
EFFECTS = re.compile(r"\.(emit|roll|open_decision|end_turn)\(")


def read_shape(text: str | None = None) -> dict[str, tuple[str, ...]]:
    """module -> the hooks it defines, from the guide's table."""
    rows = ROW.findall(GUIDE.read_text() if text is None else text)
    return {module: tuple(re.findall(r"`(\w+)`", hooks)) for module, _, hooks in rows}


SHAPE = read_shape()
BASE_HELPERS = frozenset(
    name
    for name, value in vars(base).items()
    if inspect.isfunction(value) and value.__module__ == base.__name__ and not name.startswith("_")
)


def _class_value(ruleset: type[Ruleset], hook: str) -> Any:
    """What the ruleset's own classes (not ``Ruleset``) set ``hook`` to, or None when it keeps the default."""
    for cls in ruleset.__mro__:
        if cls is Ruleset:
            return None
        if hook in vars(cls):
            value = vars(cls)[hook]
            return value.__func__ if isinstance(value, staticmethod | classmethod) else value
    return None


def _defined_in(value: Any, module: ModuleType) -> bool:
    """A function of ``module``, one of its module-level objects, or an instance of one of its classes."""
    if inspect.isfunction(value):
        return value.__module__ == module.__name__
    return any(v is value for v in vars(module).values()) or type(value).__module__ == module.__name__


def _forwarders(tree: ast.Module) -> list[str]:
    """Top-level functions whose whole body passes their own parameters on to another function."""
    out = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
        if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call):
            continue
        call = body[0].value
        params = [a.arg for a in node.args.args]
        passed = [a.id for a in call.args if isinstance(a, ast.Name)]
        if params and passed == params and len(call.args) == len(params) and not call.keywords:
            out.append(node.name)
    return out


def shape_problems(ruleset: type[Ruleset], shape: dict[str, tuple[str, ...]] = SHAPE) -> list[str]:
    """Where the package of ``ruleset`` departs from the table ``shape``."""
    package = sys.modules[ruleset.__module__]
    folder = pathlib.Path(str(package.__file__)).parent
    files = {p.name for p in folder.glob("*.py")}
    problems = [f"no {m}" for m in sorted(set(shape) - OPTIONAL - files)]
    guide = GUIDE.read_text()
    problems += [
        f"{f}: a module the guide does not name"
        for f in sorted(files - set(shape))
        if f"{folder.name}/{f}" not in guide
    ]
    for module_file, hooks in shape.items():
        if module_file not in files:
            continue
        name = package.__name__ if module_file == "__init__.py" else f"{package.__name__}.{module_file[:-3]}"
        module = importlib.import_module(name)
        for hook in hooks:
            value = _class_value(ruleset, hook)
            if value is None:
                if module_file in ALWAYS:
                    problems.append(f"{hook}: not defined (it belongs in {module_file})")
            elif not _defined_in(value, module):
                problems.append(f"{hook}: not from {module_file}")
    for f in sorted(files):
        source = (folder / f).read_text()
        tree = ast.parse(source)
        functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
        problems += [f"{f}: {n} rewrites base.{n}" for n in sorted(functions & BASE_HELPERS)]
        problems += [f"{f}: {n} only forwards" for n in _forwarders(tree)]
        if f == "rules.py" and EFFECTS.search(source):
            problems.append("rules.py: rolls, emits or opens a decision")
        if f == "__init__.py":
            classes = [n.name for n in tree.body if isinstance(n, ast.ClassDef)]
            if classes != [ruleset.__name__] or functions:
                problems.append(f"__init__.py: holds {classes + sorted(functions)}, not the Ruleset alone")
    return problems
