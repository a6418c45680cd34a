"""The engine's shape (issue 13): small modules, no import cycles, a small facade."""

from __future__ import annotations

import ast
from pathlib import Path

from engine import Game

ENGINE = Path(__file__).resolve().parents[2] / "engine"
MAX_LINES = 450


def _modules() -> dict[str, Path]:
    out = {}
    for path in ENGINE.rglob("*.py"):
        parts = path.relative_to(ENGINE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Engine modules ``name`` imports, at module level or inside functions."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package
            for _ in range(node.level - 1):
                base = base.rpartition(".")[0]
            mod = node.module or ""
            base = f"{base}.{mod}".strip(".") if node.level else mod
            targets = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(t for t in targets if t in modules and t != name)
    return found


def test_no_module_over_450_lines():
    """Every engine module stays small enough to read in one sitting."""
    sizes = {n: len(p.read_text().splitlines()) for n, p in _modules().items()}
    assert {n: s for n, s in sizes.items() if s > MAX_LINES} == {}


def test_no_import_cycles():
    """No engine module imports, directly or through others, a module importing it.

    A package's ``__init__`` re-exporting its own submodules is not a cycle.
    """
    modules = _modules()
    graph = {n: _imports(n, p, modules) for n, p in modules.items()}

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            m = todo.pop()
            for t in graph[m]:
                if t == goal:
                    return True
                if t not in seen and not goal.startswith(t + "."):
                    seen.add(t)
                    todo.append(t)
        return False

    cycles = [
        (a, b)
        for a in graph
        for b in graph[a]
        if not a.startswith(b + ".") and not b.startswith(a + ".") and reaches(b, a)
    ]
    assert cycles == []
    assert "engine.game" not in graph["engine.position"]


def test_game_facade_is_small():
    """``Game`` offers the contract and read-only properties: at most 30 public names."""
    public = [n for n in dir(Game) if not n.startswith("_")]
    assert len(public) <= 30, public
