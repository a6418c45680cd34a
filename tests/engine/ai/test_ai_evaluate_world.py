"""The computer players evaluate games without writing positions: the same numbers as
the evaluation of ``game.position()``, bit for bit, so that a decision is the same."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from engine import Game
from engine.ai import _evaluate, _expert_eval
from engine.ai._hidden import sample_game
from engine.ai._plan import _key


def _worlds(seed: int, players: int, variant: str) -> Iterator[Game]:
    """Every position of a random game, and a sampled world (hidden cards dealt at
    random) for the player to move at each of them."""
    rng = random.Random(seed)
    game = Game.new(players, variant=variant, seed=seed)
    while True:
        yield game
        if game.over:
            return
        me = game.to_move
        assert me is not None
        yield sample_game(game, me, rng, game.position(viewer=me))
        game.play(rng.choice(game.legal()))


def _position_key(pos: dict[str, Any], me: str) -> tuple[Any, ...]:
    """What the beam tells apart, read from the position (as before it read games)."""
    turn = pos["turn"]
    return (
        tuple(sorted(pos["heights"].items())),
        tuple(tuple(sorted(v)) for v in pos["knights"].values()),
        pos["king"],
        tuple(pos["scores"].values()),
        tuple(sorted(pos["hands"][me])),
        tuple(pos["stacks"][me]),
        (turn["ap"], turn["stack"], turn["played"], tuple(turn["revealed"])),
        pos["stage"],
        pos["supply"],
    )


@pytest.mark.parametrize(
    ("seed", "players", "variant"),
    [(1, 4, "common"), (2, 3, "personal"), (3, 4, "master"), (4, 2, "master")],
)
def test_world_evaluation_equals_the_positions(seed: int, players: int, variant: str) -> None:
    """Through whole games, each player's worth and value from the game's state equal
    those from its position exactly, for the shared and the expert's evaluation, and
    the transposition key tells positions apart exactly as the positions do."""
    keys: dict[Any, Any] = {}
    back: dict[Any, Any] = {}
    for world in _worlds(seed, players, variant):
        pos = world.position()
        assert _evaluate.world_values(world) == _evaluate.player_values(pos)
        for me in world.players:
            assert _evaluate.evaluate_world(world, me) == _evaluate.evaluate(pos, me)
            assert _expert_eval.evaluate_world(world, me) == _expert_eval.evaluate(pos, me)
            new, old = _key(world, me), _position_key(pos, me)
            assert keys.setdefault(new, old) == old
            assert back.setdefault(old, new) == new
    assert len(keys) > 100


def test_kept_terms_do_not_change_values() -> None:
    """Values read with the kept castle and card terms, filled in one order and read
    in another, equal those of the positions (which keep nothing)."""
    worlds = list(_worlds(5, 4, "master"))[::3] + list(_worlds(6, 3, "personal"))[::3]
    for table in (_evaluate._TERMS, _evaluate._CARDS, _evaluate._NEAR):
        table.clear()
    for w in worlds:
        for me in w.players:
            _evaluate.evaluate_world(w, me)
    random.Random(7).shuffle(worlds)
    for w in worlds:
        pos = w.position()
        for me in w.players:
            assert _evaluate.evaluate_world(w, me) == _evaluate.evaluate(pos, me)
    assert _evaluate._TERMS and _evaluate._CARDS
