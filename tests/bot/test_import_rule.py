"""The bot's one import rule, read from the source of every module (docs/bot.md, "Rooms").

engine ← renderer ← bot.db ← bot.texts ← bot.core ← bot.client ← bot.__main__: a module
imports only from its own room and the rooms left of it, counting imports inside functions
and those only for type checking. Inside bot/ no module imports itself back through others
(imports run at import time or when a function runs; ``if TYPE_CHECKING:`` ones never run,
so they count for the rule but not for cycles). ``discord`` is imported only in bot/client
and bot/__main__; Discord's markup (``<@``, ``<t:``, ``<#``) is written only in
bot/texts/markup.py.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "bot"
ROOMS = ["engine", "renderer", "bot.db", "bot.texts", "bot.core", "bot.client", "bot.__main__"]
MARKUP = ("<@", "<t:", "<#")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {module_name(p): p for p in sorted(BOT.rglob("*.py"))}


def room(name: str) -> int | None:
    """The rank of the room *name* belongs to; None for modules outside the project."""
    if name == "bot":  # the package itself: empty, so it sits below every room of the bot
        return ROOMS.index("bot.db")
    for rank, prefix in reversed(list(enumerate(ROOMS))):
        if name == prefix or name.startswith(prefix + "."):
            return rank
    return None


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(name: str) -> Iterator[tuple[str, int, bool]]:
    """(imported module, line, runs) for every import in module *name*, at any depth."""
    path = MODULES[name]
    tree = ast.parse(path.read_text(), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]

    def walk(node: ast.AST, runs: bool) -> Iterator[tuple[str, int, bool]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _type_checking(child.test):
                for sub in child.body:
                    yield from walk_one(sub, False)
                for sub in child.orelse:
                    yield from walk_one(sub, runs)
            else:
                yield from walk_one(child, runs)

    def walk_one(node: ast.AST, runs: bool) -> Iterator[tuple[str, int, bool]]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno, runs
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                yield (sub if sub in MODULES else base), node.lineno, runs
        else:
            yield from walk(node, runs)

    yield from walk(tree, True)


def test_the_walk_sees_every_room_and_function_level_imports() -> None:
    assert {room(m) for m in MODULES} >= {2, 3, 4, 5, 6}
    found = {(target, runs) for target, _, runs in imports("bot.client.cog")}
    assert ("discord", True) in found
    assert any(t.startswith("bot.client.") and not runs for t, runs in found)  # TYPE_CHECKING
    # An import inside a function counts: bot.__main__ imports the migration that way.
    assert ("bot.core.migrate", True) in {(t, r) for t, _, r in imports("bot.__main__")}


@pytest.mark.parametrize("name", sorted(MODULES))
def test_imports_point_down_the_rooms(name: str) -> None:
    mine = room(name)
    assert mine is not None, f"{name} is in no room: add it to a room (docs/bot.md)"
    upward = [
        f"line {line}: {target}"
        for target, line, _ in imports(name)
        if (theirs := room(target)) is not None and theirs > mine
    ]
    assert not upward, f"{name} ({ROOMS[mine]}) imports from a room above it: {upward}"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_discord_only_in_the_client(name: str) -> None:
    allowed = name.startswith("bot.client") or name == "bot.__main__"
    found = [line for target, line, _ in imports(name) if target.split(".")[0] == "discord"]
    assert allowed or not found, f"{name} imports discord (lines {found}): only bot/client may"


@pytest.mark.parametrize("name", sorted(MODULES))
def test_discord_markup_only_in_markup(name: str) -> None:
    if name == "bot.texts.markup":
        return
    lines = MODULES[name].read_text().splitlines()
    found = [
        f"{i}: {line.strip()}" for i, line in enumerate(lines, 1) if any(m in line for m in MARKUP)
    ]
    assert not found, f"{name} writes Discord markup; use bot.texts.markup: {found}"


def test_no_import_cycles_inside_bot() -> None:
    graph = {
        name: sorted({t for t, _, runs in imports(name) if runs and t in MODULES and t != name})
        for name in MODULES
    }
    cycles = []
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for nxt in graph[node]:
            if state.get(nxt) == 1:
                cycles.append(path[path.index(nxt) :] + [nxt])
            elif nxt not in state:
                visit(nxt)
        path.pop()
        state[node] = 2

    for name in graph:
        if name not in state:
            visit(name)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)
