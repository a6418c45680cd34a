"""Splitting a player's command text into single actions (docs/notation.md shorthands).

The bot applies a command one action at a time so that it can refuse a command
that runs past the end of the player's own decision (after ``end`` the engine
would happily take the next player's actions), and so that the turn summary can
count actions the way ``undo`` does. Parsing and the shorthands stay with the
engine: a clause it does not understand is passed on unchanged and the engine
reports it when it is played.
"""

from __future__ import annotations

import re

from engine import split_actions as engine_split_actions

_SEPARATORS = re.compile(r"[;\n]")


def normalize(text: str) -> str:
    """Lower case, single spaces, clauses joined by ``; `` (the log and echo form)."""
    return "; ".join(_clauses(text))


def split_actions(text: str) -> list[str]:
    """Expand the shorthands ``move A B C``, ``build A B`` and ``score N`` into single actions.

    The engine's own expansion (``engine.split_actions``); a clause it cannot read is
    passed on as typed, for the engine to explain when it is played.

    >>> split_actions("Move c3 d3 d4;  build e4 e5\\nscore 2")
    ['move c3 d3', 'move d3 d4', 'build e4', 'build e5', 'score', 'score']
    """
    return engine_split_actions("; ".join(_clauses(text)))


def _clauses(text: str) -> list[str]:
    parts = (" ".join(p.split()).lower() for p in _SEPARATORS.split(text))
    return [p for p in parts if p]
