"""The shape of the code: the import graph of combat/ and vtt/, the largest files and functions.

    python tools/code_shape.py [ROOT]

Prints the imports between layers (engine = ``combat.engine``, combat = the rest of ``combat``,
vtt), every import of vtt into combat outside the engine, the files over 400 and 500 lines and the
functions over 60 lines (``bench/`` aside). The figures the layering tests hold and the notes of a
refactoring compare.
"""

from __future__ import annotations

import ast
import collections
import pathlib
import sys

PACKAGES = ("combat", "vtt")


def layer(module: str) -> str:
    if module == "combat.engine" or module.startswith("combat.engine."):
        return "engine"
    return module.split(".", 1)[0]


def modules(root: pathlib.Path) -> dict[str, pathlib.Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports(path: pathlib.Path, name: str, known: set[str]) -> set[str]:
    """The project modules ``name`` imports (``from a import b`` counts ``a.b`` when that is a module)."""
    tree = ast.parse(path.read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: from the module's package, one level up per extra dot
                package = name.split(".") if path.stem == "__init__" else name.split(".")[:-1]
                package = package[: len(package) - (node.level - 1)]
                base = ".".join([*package, *([base] if base else [])])
            for alias in node.names:
                full = f"{base}.{alias.name}"
                out.add(full if full in known else base)
    return {m for m in out if m in known and m != name}


def long_functions(path: pathlib.Path, limit: int = 60) -> list[tuple[str, int]]:
    tree = ast.parse(path.read_text())
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > limit:
                found.append((node.name, length))
    return found


def main(root: pathlib.Path) -> None:
    found = modules(root)
    known = set(found)
    edges = {name: imports(path, name, known) for name, path in found.items()}
    by_layer: collections.Counter[str] = collections.Counter()
    upward = []
    for name, targets in edges.items():
        for target in targets:
            by_layer[f"{layer(name)}->{layer(target)}"] += 1
            if layer(name) == "vtt" and layer(target) == "combat":
                upward.append(f"{name} -> {target}")
    print(f"modules {len(found)}, imports {sum(len(t) for t in edges.values())}")
    print("imports by layer:", dict(sorted(by_layer.items())))
    print(f"vtt -> combat outside the engine: {len(upward)}")
    for line in sorted(upward):
        print("  ", line)
    sizes = sorted(((len(p.read_text().splitlines()), n) for n, p in found.items()), reverse=True)
    print(
        f"files over 400 lines: {sum(1 for s, _ in sizes if s > 400)}, over 500: {sum(1 for s, _ in sizes if s > 500)}"
    )
    for size, name in sizes:
        if size > 400:
            print(f"   {size:5d} {name}")
    longs = sorted(((n, f, m) for m, p in found.items() for f, n in long_functions(p)), reverse=True)
    print(f"functions over 60 lines: {len(longs)}")
    for length, function, module in longs:
        print(f"   {length:5d} {module}.{function}")


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve())
