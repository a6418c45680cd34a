"""Exact legal-move sets, perft-style, worked out by hand (tests/engine/legal_sets/*.txt).

Each file holds comment lines (``#``, the reasoning), a ``[position]`` JSON
object, optional ``[actions]`` applied first, and the ``[expected]`` sorted
output of ``legal``, one action per line.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rules_helpers import run_cli

from engine import Game

SETS = sorted((Path(__file__).parent / "legal_sets").glob("*.txt"))


def parse(path: Path) -> tuple[dict, str, list[str]]:
    sections: dict[str, list[str]] = {}
    current = None
    for raw in path.read_text().splitlines():
        line = raw.rstrip()
        if current != "position" and (not line or line.startswith("#")):
            continue
        if (
            line.startswith("[")
            and line.endswith("]")
            and line[1:-1]
            in {
                "position",
                "actions",
                "expected",
            }
        ):
            current = line[1:-1]
            sections[current] = []
            continue
        if current is None:
            raise ValueError(f"{path.name}: text before the first section: {line!r}")
        sections[current].append(line)
    position = json.loads("\n".join(sections["position"]))
    actions = "\n".join(sections.get("actions", []))
    expected = [x.strip() for x in sections["expected"] if x.strip()]
    return position, actions, expected


def difference(got: list[str], expected: list[str]) -> str:
    missing = sorted(set(expected) - set(got))
    extra = sorted(set(got) - set(expected))
    lines = []
    if missing:
        lines.append("legal() is missing (hand-worked list has them):")
        lines += [f"  - {x}" for x in missing]
    if extra:
        lines.append("legal() has extra actions (hand-worked list lacks them):")
        lines += [f"  + {x}" for x in extra]
    if not lines and got != expected:
        lines.append(f"same set, but the order differs: {got}")
    return "\n".join(lines)


def test_there_are_enough_hand_worked_sets():
    """issue 2: exact legal-move sets for a handful of positions."""
    assert len(SETS) >= 5


def test_expected_lists_are_sorted_and_unique():
    """The data files themselves stay sorted and duplicate-free (so a diff is meaningful)."""
    for path in SETS:
        _, _, expected = parse(path)
        assert expected == sorted(set(expected)), path.name


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.stem)
def test_legal_set_python(path):
    """NOTATION legal(): every legal action of the player to move, canonical, sorted."""
    position, actions, expected = parse(path)
    game = Game.from_position(position)
    if actions:
        game.play(actions)
    got = game.legal()
    assert got == expected, f"{path.name}:\n{difference(got, expected)}"


@pytest.mark.parametrize("path", SETS, ids=lambda p: p.stem)
def test_legal_set_cli(path):
    """NOTATION `python -m engine legal --position - [ACTIONS]` prints the same set."""
    position, actions, expected = parse(path)
    args = ["legal", "--position", "-"] + ([actions] if actions else [])
    proc = run_cli(*args, stdin=json.dumps(position))
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    got = proc.stdout.decode().splitlines()
    assert got == expected, f"{path.name} (CLI):\n{difference(got, expected)}"
