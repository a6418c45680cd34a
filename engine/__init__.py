"""The Torres rules engine: pure Python, standard library only, no I/O.

>>> from engine import Game
>>> game = Game.new(players=2, seed=1)
>>> game.stage, game.to_move
('place', 'red')
"""

from __future__ import annotations

from .board import castles
from .cards import CARD_HELP, CARDS, MASTER_CARD_HELP, MASTER_CARDS
from .errors import IllegalAction, NotationError
from .game import Game
from .position import changed_squares

__all__ = [
    "CARDS",
    "CARD_HELP",
    "MASTER_CARDS",
    "MASTER_CARD_HELP",
    "Game",
    "IllegalAction",
    "NotationError",
    "castles",
    "changed_squares",
]
