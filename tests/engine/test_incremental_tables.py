"""The castle tables and masks the engine keeps up to date action by action equal
freshly computed ones (an internal check of the fast paths, over random games)."""

from __future__ import annotations

import random

import pytest

from engine import Game
from engine.board import ALL, Castles, mask_of
from engine.rules import moveblock
from engine.rules.common import build_mask
from engine.rules.turn import move_reach


def _canonical(cc: Castles, h: list[int]) -> dict:
    """The tables with castles named by their squares (numbering may differ)."""
    name = {c: frozenset(m) for c, m in enumerate(cc.members)}
    cc.adj  # noqa: B018 - materialize the lazy table
    return {
        "castles": {
            name[c]: (cc.area[c], cc.height[c], cc.member_mask[c], cc.front[c])
            for c in range(len(cc.members))
        },
        "comp": [name[c] if c >= 0 else None for c in cc.comp],
        "adj": [frozenset(name[c] for c in a) for a in cc.adj],
        "le": {k: cc.le[k] for k in {x + d for x in h for d in (-1, 0, 1) if x + d >= 0}},
    }


def _check(game: Game) -> None:
    st = game._st
    cc = st.castles
    pieces = mask_of(s for s in range(64) if st.occupant[s] >= 0)
    assert st.pieces == pieces
    if cc is None:
        return
    h = st.heights
    for m in cc.members:
        assert all(h[s] > 0 for s in m)
    fresh = Castles(h)
    assert _canonical(cc, h) == _canonical(fresh, h)
    kept_build = cc.build
    kept_reach = dict(cc.reach)
    kept_moveblock = cc.moveblock
    st.castles = fresh
    assert build_mask(st) == (build_mask(st) if kept_build is None else kept_build)
    if kept_moveblock is not None and kept_moveblock[0] == st.pieces:  # kept for these pieces
        assert moveblock.plays(st) == kept_moveblock[2]
        assert moveblock.targets(st) == kept_moveblock[1]
    for a, r in kept_reach.items():
        assert move_reach(st, a) == r, a
    top = cc.top
    for c in range(len(cc)):
        f = fresh.comp[cc.members[c][0]]
        assert cc.doors_up_to(h, c, top) == fresh.doors_up_to(h, f, top)
    for c, low in enumerate(cc._low):
        for level, doors in (low or {}).items():
            assert doors == fresh.doors_up_to(h, fresh.comp[cc.members[c][0]], level)
    assert cc.reach_keys == mask_of(cc.reach)
    st.castles = cc
    assert ALL & ~cc.le[0] == mask_of(s for s in range(64) if h[s] > 0)


@pytest.mark.parametrize("variant", ["common", "personal", "master"])
@pytest.mark.parametrize("seed", range(8))
def test_kept_tables_equal_fresh_ones(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    game = Game.new(4 - seed % 3, variant=variant, seed=seed)
    while not game.over:
        legal = game.legal()
        _check(game)  # with the tables the legal list just filled in
        plays = [a for a in legal if a.startswith("play")]
        action = rng.choice(plays) if plays and rng.random() < 0.5 else rng.choice(legal)
        game.play(action)
        if rng.random() < 0.1 and game.can_undo:
            game.undo()
        _check(game)
        copy = Game.from_position(game.position())
        assert copy.legal() == game.legal()


@pytest.mark.parametrize("tall", [70, 10**9])
def test_absurdly_tall_towers(tall: int) -> None:
    """Heights are not bounded by the notation: a billion-block tower is no problem
    (nor one taller than the levels Castles() makes room for at first)."""
    game = Game.from_position(
        {
            "format": "torres-position/1",
            "players": ["a", "b"],
            "heights": {"d4": tall, "e4": tall + 1, "d5": tall + 2, "c4": 1},
            "knights": {"a": ["d4"]},
        }
    )
    moves = [m for m in game.legal() if m.startswith("move")]
    expected = "b4 c3 c4 c5 d3 d6 e3 e4 e5 f4"  # as the engine before the masks said
    assert moves == [f"move d4 {sq}" for sq in expected.split()]
    game.play("move d4 e4")
    assert "move e4 d4" in game.legal()  # one level down
    _check(game)
