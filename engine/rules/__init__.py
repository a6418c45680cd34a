"""The rules, one home each (docs/rules.md): functions over ``engine.state.State``.

- ``tables``: the fixed numbers (rounds, stacks, start squares, limits);
- ``common``: checks and refusal texts several rules share, piece and marker moves;
- ``setup``: a new game, castle placement, first knights, the king, dealing stacks;
- ``turn``: moves (steps and doors), builds, knights, stacks, draw/keep, score, end;
- ``cards``: the action cards, one block per card (targets, refusal, effect);
- ``moveblock``: the "move a tower block" card, whose targets need the most work;
- ``scoring``: phase scoring, the king's bonus, the master cards (pure functions);
- ``actions``: one action applied by stage and kind, and the legal-action list.
"""

from __future__ import annotations

from .tables import (
    ALLOTMENT,
    BASE_AP,
    DEFAULT_NAMES,
    KING_BONUS,
    MAX_DRAWS,
    MAX_KNIGHTS,
    MAX_STACK,
    ROUNDS,
    START_SQUARES,
    TOTAL_BLOCKS,
    VARIANTS,
)

__all__ = [
    "ALLOTMENT",
    "BASE_AP",
    "DEFAULT_NAMES",
    "KING_BONUS",
    "MAX_DRAWS",
    "MAX_KNIGHTS",
    "MAX_STACK",
    "ROUNDS",
    "START_SQUARES",
    "TOTAL_BLOCKS",
    "VARIANTS",
]
