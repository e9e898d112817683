"""A fresh clone can follow every pointer: the rules catalogue and its coverage tool are in the repository."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = {".git", ".venv", "node_modules", ".mypy_cache", ".ruff_cache", ".hypothesis", "artifacts"}
TEXT = {".py", ".md", ".toml", ".cfg", ".ini", ".yaml", ".yml", ".html", ".js", ".css", ".txt", ".sh", ""}
OUTSIDE = re.compile(r"\.\./shared\b|\bshared/(tools|RULESETS|seeds)")


def _files():
    for path in ROOT.rglob("*"):
        if path.is_file() and not SKIP & set(path.relative_to(ROOT).parts) and path.suffix in TEXT:
            yield path


def test_nothing_points_outside_the_repository():
    assert OUTSIDE.search("python ../shared/tools/rule_coverage.py")  # the check sees such a pointer
    offenders = [
        str(p.relative_to(ROOT))
        for p in _files()
        if p != Path(__file__).resolve()
        and p.stat().st_size < 2_000_000
        and OUTSIDE.search(p.read_text(errors="replace"))
    ]
    assert offenders == []


def test_ci_and_make_check_rule_coverage_with_the_tool_and_catalogue_of_the_repository():
    tool = (ROOT / "tools" / "rule_coverage.py").read_text()
    assert 'RULES = ROOT / "docs" / "RULESETS.md"' in tool and (ROOT / "docs" / "RULESETS.md").is_file()
    assert (
        "tools/rule_coverage.py --tests tests --strict ENG MIST PARA LUCK BLOCK"
        in (ROOT / "Makefile").read_text()
    )
    assert "make rules" in (ROOT / ".ci" / "run").read_text()
