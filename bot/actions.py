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
        elif head == "score" and len(args) == 1 and _steps(args[0]) is not None:
            out.extend(["score"] * int(args[0]))
        else:
            out.append(clause)
    return out


def _steps(word: str) -> int | None:
    """``score N``'s N when it is 1-50 in ASCII digits; anything else goes to the engine.

    ``str.isdigit`` is true for "²" (which ``int`` refuses) and ``int`` refuses
    numbers over 4,300 digits, so neither is called on unchecked text.
    """
    if len(word) > 2 or not word.isascii() or not word.isdigit():
        return None
    n = int(word)
    return n if 1 <= n <= 50 else None


def _clauses(text: str) -> list[str]:
    parts = (" ".join(p.split()).lower() for p in _SEPARATORS.split(text))
    return [p for p in parts if p]
