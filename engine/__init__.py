"""The Torres rules engine: pure Python, standard library only, no I/O.

>>> from engine import Game
>>> game = Game.new(players=2, seed=1)
>>> game.stage, game.to_move
(<Stage.PLACE: 'place'>, 'red')
>>> game.stage == "place"
True

Where things live (each rule has one home):

- ``game``: the ``Game`` facade (new, from_position, position, legal, play, undo, copy)
  and ``new_seed`` (a fresh 128-bit seed);
- ``state``: the ``State`` the rules work on and the frozen ``Snapshot`` undo keeps;
- ``events``: ``Stage`` and the typed events ``play`` returns, ``decision_over``;
- ``rules``: the rules, one module per part (see ``engine.rules``);
- ``position``: torres-position/1 dicts to and from a ``State`` (``position_fast``: the
  quick reader of the well-formed ones);
- ``notation``: parsing and printing actions, ``split_actions``;
- ``record``: game records (torres-record/1) and their replay;
- ``board``: squares, neighbour tables, castles; ``cards``: card names and help;
- ``errors``: ``IllegalAction``, ``NotationError``; ``messages``: their codes and
  English templates (docs/notation.md);
- ``cli``: ``python -m engine``; ``ai``: the computer players.

``ENGINE`` says which engine runs: ``"core"``, the compiled core (``engine._core``,
built by setup.py from this source), or ``"reference"``, this pure-Python source
(``TORRES_ENGINE=reference``, or the core not built); ``ENGINE_NOTE`` says why, in
one line.  The public interface is the same with either (``engine._select``).
"""

from __future__ import annotations

from ._select import choose

# first: the compiled core, if chosen, takes the rule modules' places before they load
ENGINE, ENGINE_NOTE = choose()

# ruff: noqa: E402
from .board import castles
from .cards import CARD_HELP, CARDS, MASTER_CARD_HELP, MASTER_CARDS
from .errors import IllegalAction, NotationError
from .events import Event, GameOver, PhaseScored, Stage, TurnEnd, decision_over
from .game import SEED_BITS, Game, new_seed
from .notation import split_actions
from .position import changed_squares

__all__ = [
    "CARDS",
    "CARD_HELP",
    "ENGINE",
    "ENGINE_NOTE",
    "MASTER_CARDS",
    "MASTER_CARD_HELP",
    "Event",
    "Game",
    "GameOver",
    "IllegalAction",
    "NotationError",
    "PhaseScored",
    "SEED_BITS",
    "Stage",
    "TurnEnd",
    "castles",
    "changed_squares",
    "decision_over",
    "new_seed",
    "split_actions",
]
