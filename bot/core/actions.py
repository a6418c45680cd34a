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
_SQUARE = re.compile(r"^[a-h][1-8]$")


def normalize(text: str) -> str:
    """Lower case, single spaces, clauses joined by ``; `` (the log and echo form)."""
    return "; ".join(_clauses(text))


def split_with_clauses(text: str) -> list[tuple[str, str]]:
    """Like :func:`split_actions`, each action paired with the clause it came from."""
    out: list[tuple[str, str]] = []
    for clause in _clauses(text):
        out.extend((a, clause) for a in split_actions(clause))
    return out


def split_actions(text: str) -> list[str]:
    """Expand the shorthands ``move A B C``, ``build A B`` and ``score N`` into single actions.

    The engine's own expansion (``engine.split_actions``); a clause it cannot read is
    passed on as typed, for the engine to explain when it is played.

    >>> split_actions("Move c3 d3 d4;  build e4 e5\\nscore 2")
    ['move c3 d3', 'move d3 d4', 'build e4', 'build e5', 'score', 'score']
    """
    return engine_split_actions("; ".join(_clauses(text)))


def _clauses(text: str) -> list[str]:
    parts = (_alias(" ".join(p.split()).lower()) for p in _SEPARATORS.split(text))
    return [p for p in parts if p]


_DASHED = re.compile(r"\b([a-h][1-8])\s*[-–—>]+\s*(?=[a-h][1-8]\b)")
_GLUED = re.compile(r"^([a-h][1-8])([a-h][1-8])$")
_ALIASES = {"end turn": "end", "pass": "end", "end my turn": "end", "done": "end"}


def _alias(clause: str) -> str:
    """Common ways of writing an action, in the notation.

    >>> [_alias(c) for c in ("end turn", "pass", "c3-d3", "c3d3", "c3 d3 d4", "move c3-d3")]
    ['end', 'end', 'move c3 d3', 'move c3 d3', 'move c3 d3 d4', 'move c3 d3']
    """
    if clause in _ALIASES:
        return _ALIASES[clause]
    clause = _DASHED.sub(r"\1 ", clause)
    glued = _GLUED.match(clause)
    if glued:
        clause = f"{glued[1]} {glued[2]}"
    words = clause.split(" ")
    if len(words) >= 2 and all(_SQUARE.match(w) for w in words):
        return "move " + clause
    return clause
