"""Position generators for the computer-player tests (public engine API only)."""

from __future__ import annotations

import random
from collections.abc import Iterator

from engine import Game
from engine.ai import choose_actions

VARIANTS = ("common", "personal", "master")


def advance(game: Game, decisions: int, seed: int) -> Game:
    """Play *decisions* random decisions (fewer if the game ends first)."""
    for k in range(decisions):
        if game.stage == "over":
            break
        game.play("; ".join(choose_actions(game, level="random", seed=seed * 7919 + k)))
    return game


def mid_turn(game: Game, seed: int) -> Game:
    """Play a random prefix of the current turn (never its `end`), if there is a turn."""
    if game.stage != "play":
        return game
    rng = random.Random(seed)
    turn = choose_actions(game, level="random", seed=seed)
    cut = rng.randrange(len(turn))
    for action in turn[:cut]:
        if action == "end" or game.stage != "play":
            break
        game.play(action)
    return game


def sample_positions(count: int, seed: int = 0) -> Iterator[tuple[str, Game]]:
    """Games in every variant and stage: setup, turn start, mid-turn, draw-keep, late."""
    rng = random.Random(seed)
    for i in range(count):
        variant = VARIANTS[i % 3]
        players = 2 + (i // 3) % 3
        game = Game.new(players=players, variant=variant, seed=rng.randrange(10_000))
        depth = rng.choice([0, 1, 3, 6, 10, 20, 30, 45])
        advance(game, depth, seed=i)
        if game.stage == "over":
            continue
        if rng.random() < 0.5:
            mid_turn(game, seed=i)
        yield f"{variant}/{players}p/{depth}/{game.stage}", game


def games_in_stage(stage: str, variant: str, seed: int, limit: int = 400) -> Game:
    """A game where *stage* is the stage to move in (random play until it comes up)."""
    for attempt in range(20):
        game = Game.new(players=2 + (seed + attempt) % 3, variant=variant, seed=seed + attempt)
        for k in range(limit):
            if game.stage == stage and k > 0 or game.stage == stage == "castles":
                return game
            if game.stage == "over":
                break
            game.play("; ".join(choose_actions(game, level="random", seed=seed * 31 + k)))
    raise AssertionError(f"no {stage} stage came up in {variant} games")
