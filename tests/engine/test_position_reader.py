"""The fast reader of well-formed positions reads exactly what the checking reader
reads, and leaves everything else to it (so that every refusal keeps its reason)."""

from __future__ import annotations

import copy
import random
from typing import Any

import pytest

from engine import Game, NotationError
from engine.position import _read_checked
from engine.position_fast import read_usual as _read_usual
from engine.state import State


def _fields(st: State) -> dict[str, Any]:
    # the compiled core's State (mypyc) lists its fields in __mypyc_attrs__, not __slots__
    names = getattr(State, "__slots__", None) or State.__mypyc_attrs__  # type: ignore[attr-defined]
    out = {name: getattr(st, name) for name in names}
    out["decks"] = list(st.decks.items())  # the order of the decks is part of the state
    return out


def _same(d: Any) -> None:
    """``_read_usual`` reads ``d`` as ``_read_checked`` does, or passes it on."""
    try:
        checked = _read_checked(copy.deepcopy(d))
    except NotationError:
        assert _read_usual(copy.deepcopy(d)) is None
        return
    usual = _read_usual(copy.deepcopy(d))
    if usual is not None:
        assert _fields(usual) == _fields(checked)


def _positions() -> list[dict[str, Any]]:
    out = []
    for variant in ("common", "personal", "master"):
        for seed in range(3):
            rng = random.Random(seed)
            game = Game.new(4 - seed % 3, variant=variant, seed=seed)
            k = 0
            while not game.over:
                if k % 7 == 0:
                    out.append(game.position())
                game.play(rng.choice(game.legal()))
                k += 1
            out.append(game.position())
    return out


POSITIONS = _positions()


def test_written_positions_take_the_fast_way() -> None:
    for pos in POSITIONS:
        assert _read_usual(copy.deepcopy(pos)) is not None
        _same(pos)


def test_a_loaded_position_is_a_copy() -> None:
    pos = POSITIONS[len(POSITIONS) // 2]
    game = Game.from_position(pos)
    before = copy.deepcopy(pos)
    game.play(game.legal()[0])
    assert pos == before


_ODD_VALUES: list[Any] = [
    None,
    True,
    False,
    0,
    -1,
    3,
    10**30,
    -(2**64),
    "",
    "A1",
    "a1",
    "z9",
    "hidden",
    "jump",
    "red",
    [],
    ["a1"],
    ["a1", "a1"],
    ["hidden"],
    [[]],
    [True],
    [1, -1],
    {},
    {"a1": 1},
    {"red": []},
    {"common": []},
    1.5,
]


def _mutants(pos: dict[str, Any], rng: random.Random) -> list[Any]:
    """``pos`` with one value somewhere replaced (or a key removed or added)."""
    out: list[Any] = []
    paths: list[tuple[Any, ...]] = []

    def walk(v: Any, path: tuple[Any, ...]) -> None:
        paths.append(path)
        if isinstance(v, dict):
            for k, x in v.items():
                walk(x, (*path, k))
        elif isinstance(v, list):
            for i, x in enumerate(v):
                walk(x, (*path, i))

    walk(pos, ())
    for path in rng.sample(paths[1:], min(40, len(paths) - 1)):
        for value in rng.sample(_ODD_VALUES, 6):
            new = copy.deepcopy(pos)
            parent = new
            for k in path[:-1]:
                parent = parent[k]
            parent[path[-1]] = value
            out.append(new)
        new = copy.deepcopy(pos)
        parent = new
        for k in path[:-1]:
            parent = parent[k]
        if isinstance(parent, dict):
            del parent[path[-1]]
            out.append(new)
            new = copy.deepcopy(new)
            parent = new
            for k in path[:-1]:
                parent = parent[k]
            parent["extra"] = 1
            parent["RED"] = []
            out.append(new)
    return out


@pytest.mark.parametrize("k", range(6))
def test_odd_positions_read_alike_or_go_the_checking_way(k: int) -> None:
    rng = random.Random(k)
    for pos in rng.sample(POSITIONS, 8):
        for mutant in _mutants(pos, rng):
            _same(mutant)


def test_views_and_non_dicts_go_the_checking_way() -> None:
    game = Game.new(3, variant="personal", seed=5)
    for _ in range(40):
        game.play(game.legal()[-1])
    for viewer in game.players:
        _same(game.position(viewer))
    for odd in (None, [], "torres-position/1", {"format": "torres-position/1"}, {}):
        _same(odd)
