"""Sizes that keep the code readable (issue 34): no module in bot/ or renderer/ over 600
lines, no class over 40 methods. A class put together from parts (the game service over
GameCore, the home, the client over its delivery) counts each part on its own."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MODULES = sorted(p for room in ("bot", "renderer") for p in (ROOT / room).rglob("*.py"))
MAX_LINES = 600
MAX_METHODS = 40


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_module_and_class_sizes(path: Path) -> None:
    text = path.read_text()
    lines = len(text.splitlines())
    assert lines <= MAX_LINES, f"{path.relative_to(ROOT)}: {lines} lines (at most {MAX_LINES})"
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.ClassDef):
            methods = sum(isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) for n in node.body)
            assert methods <= MAX_METHODS, f"{path.name}: class {node.name} has {methods} methods"


def test_the_walk_sees_the_rooms() -> None:
    names = {str(p.relative_to(ROOT)) for p in MODULES}
    assert {"bot/core/service.py", "bot/db/sqlite.py", "renderer/_draw.py"} <= names
