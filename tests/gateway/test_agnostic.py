"""The gateway is game-agnostic: it reaches a game only through the registry, by the name in the game's meta."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_gateway_never_imports_a_game() -> None:
    # Given the gateway's modules
    sources = sorted((ROOT / "services" / "gateway").rglob("*.py"))
    assert len(sources) >= 10

    # Then none imports a game's rules or events (schemas come from the name-keyed events.schemas registry)
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import | ast.ImportFrom):
                names = [node.module or ""] if isinstance(node, ast.ImportFrom) else [a.name for a in node.names]
                for name in names:
                    assert "shadow" not in name and "toy" not in name, (path, name)
