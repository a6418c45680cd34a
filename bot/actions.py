"""Splitting a player's command text into single actions (NOTATION.md shorthands).

The bot applies a command one action at a time so that it can refuse a command
that runs past the end of the player's own decision (after ``end`` the engine
would happily take the next player's actions), and so that the turn summary can
count actions the way ``undo`` does. Parsing proper stays with the engine: a
clause this module does not understand is passed on unchanged and the engine
reports it.
"""

from __future__ import annotations

import re

_SQUARE = re.compile(r"^[a-h][1-8]$")
_SEPARATORS = re.compile(r"[;\n]")


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

    >>> split_actions("Move c3 d3 d4;  build e4 e5\\nscore 2")
    ['move c3 d3', 'move d3 d4', 'build e4', 'build e5', 'score', 'score']
    """
    out: list[str] = []
    for clause in _clauses(text):
        words = clause.split(" ")
        head, args = words[0], words[1:]
        if head == "move" and len(args) > 2 and all(_SQUARE.match(a) for a in args):
            out.extend(f"move {a} {b}" for a, b in zip(args, args[1:], strict=False))
        elif head == "build" and len(args) > 1 and all(_SQUARE.match(a) for a in args):
            out.extend(f"build {a}" for a in args)
        elif head == "score" and len(args) == 1 and args[0].isdigit() and 1 <= int(args[0]) <= 50:
            out.extend(["score"] * int(args[0]))
        else:
            out.append(clause)
    return out


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
