"""The castle tables and masks the engine keeps up to date action by action equal
freshly computed ones (an internal check of the fast paths, over random games)."""

from __future__ import annotations

import random

import pytest

from engine import Game
from engine.board import ALL, Castles, mask_of
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
        "le": [cc.le[k] if k < len(cc.le) else ALL for k in range(max(h) + 2)],
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
    st.castles = fresh
    assert build_mask(st) == (build_mask(st) if kept_build is None else kept_build)
    for a, r in kept_reach.items():
        assert move_reach(st, a) == r, a
    top = len(cc.le) - 1
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
@pytest.mark.parametrize("seed", range(4))
def test_kept_tables_equal_fresh_ones(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    game = Game.new(4 - seed % 3, variant=variant, seed=seed)
    while not game.over:
        legal = game.legal()
        plays = [a for a in legal if a.startswith("play")]
        action = rng.choice(plays) if plays and rng.random() < 0.5 else rng.choice(legal)
        game.play(action)
        if rng.random() < 0.1 and game.can_undo:
            game.undo()
        _check(game)
        copy = Game.from_position(game.position())
        assert copy.legal() == game.legal()
