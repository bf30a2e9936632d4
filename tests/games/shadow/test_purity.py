"""The rules are pure: no module of the rules (services/rules/ and services/games/, a game's bots and bench aside)
reads the environment, the clock, or runs generated code. Imports of IO are checked by
import-linter (pyproject.toml)."""

from __future__ import annotations

import ast
from pathlib import Path

SERVICES = Path(__file__).resolve().parents[3] / "services"
RULES_ROOTS = (SERVICES / "rules", SERVICES / "games")
FORBIDDEN_CALLS = {"exec", "eval", "compile", "getenv", "time", "time_ns", "now", "utcnow", "monotonic"}
FORBIDDEN_NAMES = {"environ"}


def test_given_the_rules_modules_when_read_then_no_environment_clock_or_generated_code() -> None:
    # Given every module of the rules but a game's bots and bench (a bench measures time)
    sources = [
        p
        for root in RULES_ROOTS
        for p in sorted(root.rglob("*.py"))
        if "bots" not in p.relative_to(root).parts and p.name != "bench.py"
    ]
    assert len(sources) > 20
    found = []
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            # Then no call of exec/eval/compile, os.getenv, a clock; no os.environ; no import of os or time
            if isinstance(node, ast.Call):
                fn = node.func
                name = fn.id if isinstance(fn, ast.Name) else fn.attr if isinstance(fn, ast.Attribute) else ""
                regex = isinstance(fn, ast.Attribute) and isinstance(fn.value, ast.Name) and fn.value.id == "re"
                if name in FORBIDDEN_CALLS and not regex:  # re.compile builds a pattern, it runs no code
                    found.append(f"{path.relative_to(SERVICES)}:{node.lineno} calls {name}")
            elif isinstance(node, ast.Attribute) and node.attr in FORBIDDEN_NAMES:
                found.append(f"{path.relative_to(SERVICES)}:{node.lineno} reads {node.attr}")
            elif isinstance(node, ast.Import | ast.ImportFrom):
                modules = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                found += [
                    f"{path.relative_to(SERVICES)}:{node.lineno} imports {m}" for m in modules if m in ("os", "time")
                ]
    assert not found, found
