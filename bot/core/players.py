"""The computer players the service runs: the engine's levels, a random legal fallback,
and the game as the player to move sees it (for hints that can't see hidden cards)."""

from __future__ import annotations

import functools
import random

from bot.core.values import ChooseActions
from engine import Game
from engine.ai import random_decision


def _as_seen_by_mover(game: Game, salt: int) -> Game:
    """*game* with what its player to move can't see replaced by a sample of it.

    The sample depends only on that player's view and *salt* (something public),
    so whatever is computed from it cannot tell two deck orders apart.
    """
    from engine.ai._hidden import sample_game

    me = game.to_move
    if me is None:
        return game.copy()
    view = game.position(viewer=me)
    seen: Game = sample_game(game, me, random.Random(salt), view)
    return seen


def _random_decision(game: Game, rng: random.Random) -> list[str]:
    """A legal decision chosen at random: the safety net when the AI fails."""
    return random_decision(game, rng, cap=6, end_chance=0.2, through_draw=True)


def _engine_ai(level: str) -> ChooseActions:
    """The engine's computer player at *level* (``random``, ``heuristic``, ``search``,
    ``expert``)."""
    return functools.partial(_engine_choose, level=level)


def _engine_choose(game: Game, seconds: float, *, level: str) -> list[str]:
    """Module-level, so that it pickles into a worker process."""
    from engine.ai import choose_actions

    return list(choose_actions(game, seconds=seconds, level=level))
