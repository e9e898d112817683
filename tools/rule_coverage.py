#!/usr/bin/env python3
"""Which rule IDs of docs/RULESETS.md are named by at least one test.

Usage (from the repository's root): python tools/rule_coverage.py [--tests DIR] [--strict PREFIX ...] [--list]

A rule counts as covered when its ID appears in a file under the tests folder
(a test name such as test_luck_hit_3_... does not count: write the ID itself,
e.g. in a `# RULE: LUCK-HIT-3` comment or a pytest mark argument).
With --strict, exits 1 when any rule of the named prefixes is uncovered.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "RULESETS.md"
# A rule is a list item that starts with its ID: "- LUCK-HIT-3 ..."; the prefixes are the catalogue's own.
RULE_RE = re.compile(r"^- (([A-Z]+)-[A-Z0-9-]+) ", re.M)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tests", default=str(ROOT / "tests"))
    ap.add_argument("--strict", nargs="*", default=[])
    ap.add_argument("--list", action="store_true", help="list uncovered IDs")
    args = ap.parse_args()
    ids = [m.group(1) for m in RULE_RE.finditer(RULES.read_text())]
    text = ""
    tests = pathlib.Path(args.tests)
    if tests.is_dir():
        for f in tests.rglob("*"):
            if f.is_file() and f.suffix in {".py", ".js", ".ts", ".txt", ".json", ".yaml", ".yml"}:
                text += f.read_text(errors="replace") + "\n"
    found = {i for i in ids if re.search(r"(?<![A-Z0-9-])" + re.escape(i) + r"(?![A-Z0-9-])", text)}
    short = 0
    for prefix in dict.fromkeys(i.split("-")[0] for i in ids):
        mine = [i for i in ids if i.startswith(prefix + "-")]
        miss = [i for i in mine if i not in found]
        print(f"{prefix:6} {len(mine) - len(miss):3}/{len(mine):3} rules named by tests")
        if args.list and miss:
            print("       uncovered: " + " ".join(miss))
        if prefix in args.strict and miss:
            short += 1
    total = len(found)
    print(f"all    {total:3}/{len(ids):3} ({100 * total // max(len(ids), 1)}%)")
    return 1 if short else 0


if __name__ == "__main__":
    sys.exit(main())
