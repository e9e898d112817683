"""Reading a module's imports from its source (the layout and the layers tests)."""

from __future__ import annotations

import ast


def imported_modules(source: str, module: str) -> list[tuple[int, str]]:
    """(line, dotted name) of every module ``source`` imports from, relative imports resolved.

    ``from tests.e2e import seats`` counts as importing ``tests.e2e.seats`` (and ``tests.e2e``).
    """
    package = module.split(".")[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            name = ".".join([*base, *([node.module] if node.module else [])])
            found.append((node.lineno, name))
            found += [(node.lineno, f"{name}.{alias.name}") for alias in node.names]
    return found
