"""The board lists a state shares with its copies and undo snapshots are never
changed in place (engine.state.State): over random games in every variant, with
refused actions and undo, a copy made before an action still reads as it did, and
undoing every action of a turn gives back the position at the turn's start."""

from __future__ import annotations

import random

import pytest

from engine import Game, IllegalAction, NotationError
from engine.board import SQUARE_NAMES

_CARDS = ("jump", "diagonal", "vault", "doorclimb", "relocate", "moveblock", "lift", "extra")


def _wrong(rng: random.Random) -> str:
    """An action text that is most often refused."""
    a, b = rng.choice(SQUARE_NAMES), rng.choice(SQUARE_NAMES)
    kind = rng.randrange(5)
    if kind == 0:
        return f"build {a}"
    if kind == 1:
        return f"move {a} {b}"
    if kind == 2:
        return f"knight {a}"
    if kind == 3:
        card = rng.choice(_CARDS)
        return f"play {card} {a}" if card in ("extra", "lift") else f"play {card} {a} {b}"
    return f"move {a} {b}, build {b}"


@pytest.mark.parametrize("variant", ["common", "personal", "master"])
@pytest.mark.parametrize("seed", range(6))
def test_copies_and_undo_see_no_later_change(variant: str, seed: int) -> None:
    rng = random.Random(seed)
    game = Game.new(4 - seed % 3, variant=variant, seed=seed)
    turn_start = game.position()
    turn_player = game.to_move
    while not game.over:
        legal = game.legal()
        before = game.position()
        copy = game.copy()
        plays = [a for a in legal if a.startswith("play")]
        action = rng.choice(plays) if plays and rng.random() < 0.5 else rng.choice(legal)
        if rng.random() < 0.3:
            action = _wrong(rng)
            try:
                game.play(action)
            except (IllegalAction, NotationError):
                assert game.position() == before
                assert game.legal() == legal
                assert copy.position() == before
                continue
        else:
            game.play(action)
        assert copy.position() == before
        copy.play(action)  # the copy goes its own way, the game is unchanged by it
        assert copy.position() == game.position()
        if game.to_move != turn_player or not game.can_undo:
            turn_start = game.position()
            turn_player = game.to_move
        elif rng.random() < 0.15:
            while game.undo():
                pass
            assert game.position() == turn_start
