"""The fast reader of well-formed positions reads exactly what the checking reader
reads, and leaves everything else to it (so that every refusal keeps its reason)."""

from __future__ import annotations

import ast
import copy
import random
from pathlib import Path
from typing import Any

import pytest

import engine
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


# The compiled core's C reader (engine/_native_position.c, read_fields) answers the
# fields of the State in the order of setup.py's _FIELDS (decks dealt from the seed
# when ``deal``).
def _kernel_fields() -> list[str]:
    tree = ast.parse((Path(__file__).resolve().parents[2] / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "_FIELDS":
            fields: list[str] = ast.literal_eval(node.value)
            return fields
    raise AssertionError("setup.py has no _FIELDS")


_KERNEL_FIELDS = _kernel_fields()


def _read_fields(d: Any) -> Any:
    from engine._native import read_fields  # type: ignore[import-not-found]

    return read_fields(d)


def _kernel_same(d: Any) -> bool:
    """The core's C reader reads ``d`` as ``_read_checked`` does, or answers None
    (True: it read it).  Compared by repr: a bool is no int, a tuple no list."""
    if engine.ENGINE != "core":
        return False
    got = _read_fields(copy.deepcopy(d))
    try:
        checked = _read_checked(copy.deepcopy(d))
    except NotationError:
        assert got is None
        return False
    if got is None:
        return False
    fields = dict(zip(_KERNEL_FIELDS, got, strict=True))
    want = _fields(checked)
    want_decks = dict(want.pop("decks"))
    decks, deal = fields.pop("decks"), fields.pop("deal")
    if deal:  # dealt from the seed by the Python code: the rest must be as given
        assert repr({k: want_decks[k] for k in decks}) == repr(decks)
        assert len(decks) < len(want_decks)
    else:
        assert repr(decks) == repr(want_decks)
    assert want.pop("castles") is None and want.pop("undo") == []
    assert [(k, repr(want[k])) for k in want] == [(k, repr(fields[k])) for k in want]
    return True


def _same(d: Any) -> None:
    """``_read_usual`` reads ``d`` as ``_read_checked`` does, or passes it on (and so
    does the core's C reader)."""
    _kernel_same(d)
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


core_only = pytest.mark.skipif(engine.ENGINE != "core", reason="the C reader is the core's")


@core_only
def test_the_c_reader_reads_every_written_position() -> None:
    for pos in POSITIONS:
        assert _kernel_same(pos)


@core_only
def test_the_c_reader_reads_odd_positions_alike_or_not_at_all() -> None:
    rng = random.Random(99)
    read = tried = 0
    for pos in rng.sample(POSITIONS, 12):
        for mutant in _mutants(pos, rng):
            tried += 1
            read += _kernel_same(mutant)
    assert 0 < read < tried  # both ways taken


class _Str(str):
    pass


def _odd_cases(pos: dict[str, Any]) -> list[dict[str, Any]]:
    """Hand-made odd positions on ``pos`` (a common-deck game in a turn)."""
    names = pos["players"]
    first, second = names[0], names[1]
    no_decks = {k: v for k, v in pos.items() if k != "decks"}
    out = [
        {**pos, "seed": 10**40},
        {**pos, "seed": -(10**40)},
        {**pos, "seed": True},
        {**pos, "seed": None},
        {**pos, "scores": {**pos["scores"], first: 10**30}},
        {**pos, "scores": {**pos["scores"], first: True}},
        {**pos, "scores": {second: 1, first: 2}},  # out of order
        {**pos, "heights": {**pos["heights"], "e5": 10**20}, "supply": None},
        {**pos, "heights": {**pos["heights"], "e5": 2**63}},
        {**pos, "heights": {**pos["heights"], "e5": -(2**63) - 1}},
        {**pos, "heights": {**pos["heights"], "E5": 1}},
        {**pos, "heights": {**pos["heights"], _Str("e5"): 1}},
        {**pos, "heights": {"e5": False}},
        {**pos, "stacks": {first: [10**25]}, "supply": None},
        {**pos, "stacks": {first: [2**62, 2**62, 2**62]}, "supply": None},
        {**pos, "stacks": {first: [True]}},
        {**pos, "stacks": {}},
        {**pos, "stacks": None, "supply": None},
        {**pos, "supply": None},
        {**pos, "supply": 10**30},
        {**pos, "supply": -1},
        {**pos, "turn": {**pos["turn"], "ap": 10**30}},
        {**pos, "turn": {**pos["turn"], "ap": 1.0}},
        {**pos, "turn": {**pos["turn"], "stack": 10**30}, "supply": None},
        {**pos, "turn": {**pos["turn"], "played": 1}},
        {**pos, "turn": {**pos["turn"], "drawn": ["jump", "hidden"]}},
        {**pos, "turn": {**pos["turn"], "drawn": [_Str("jump")]}},
        {**pos, "turn": {**pos["turn"], "revealed": ["jump"]}},
        {**pos, "turn": {}},
        {**pos, "turn": None},
        {**pos, "turn": []},
        {**pos, "players": [first, _Str(second), *names[2:]]},
        {**pos, "players": [" \u2003", *names[1:]]},
        {**pos, "players": [first, first, *names[2:]]},
        {**pos, "players": [*names, "x", "y"][:5]},
        {**pos, "to_move": _Str(second)},
        {**pos, "to_move": second.upper()},
        {**pos, "stage": "over", "to_move": second},
        {**pos, "stage": "king", "phase": 3},
        {**pos, "stage": "place", "king": "a1"},
        {**pos, "stage": "draw-keep"},
        {**pos, "stage": "draw-keep", "turn": {**pos["turn"], "revealed": ["jump"]}},
        {**pos, "stage": _Str("play")},
        {**pos, "phase": 2**64},
        {**pos, "round": 0},
        {**pos, "variant": _Str("common")},
        {**pos, "variant": "personal"},
        {**pos, "variant": "personal", "decks": {second: pos["decks"]["common"][:5]}},
        {**pos, "variant": "personal", "decks": {second: [], first: []}},
        {**pos, "variant": "personal", "decks": {second: [], "nobody": []}},
        {**pos, "variant": "personal", "decks": {_Str(second): []}},
        {**pos, "variant": "master", "master_card": "moat"},
        {**pos, "variant": "master", "decks": {}},
        {**pos, "variant": "master", "decks": None},
        {**pos, "decks": {}},
        {**pos, "decks": {"common": [], "other": []}},
        {**pos, "decks": {"common": ("jump",)}},
        {**pos, "hands": {first: [["jump"]]}},
        {**pos, "hands": {first: []}},
        {**pos, "knights": {first: ["a1", "a1"]}},
        {**pos, "knights": {first: ["a1"], second: ["a1"]}},
        {**pos, "knights": {first: ["A1"]}},
        {**pos, "knights": {first: ["a1"] * 7}},
        {**pos, "knights": {second: ["a1"]}},
        {**pos, "king": "b2", "knights": {first: ["b2"]}},
        {**pos, "format": _Str("torres-position/1")},
        {**pos, "extra": [1, 2], "RED": {}},
        no_decks,
        {**no_decks, "variant": "personal"},
    ]
    for players in (["a", " \u2003"], ["a", "a"], ["a", ""], ["a"], list("abcde"), ["a", 1]):
        out.append({"format": pos["format"], "players": players})
    return out


@core_only
def test_the_c_reader_on_hand_made_odd_positions() -> None:
    pos = next(
        p
        for p in POSITIONS
        if p["variant"] == "common" and p["stage"] == "play" and p["phase"] == 2 and p["king"]
    )
    read = 0
    for case in _odd_cases(pos):
        read += _kernel_same(case)
        _same(case)
    assert read > 20
