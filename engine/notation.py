"""Reading and writing the action notation of docs/notation.md (context-free parts only).

Parsing yields small tuples; the game resolves what depends on the position
(e.g. which stack ``play lift A`` takes).
"""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterable
from typing import Any

from .board import SQUARE_INDEX, SQUARE_NAMES
from .cards import CARDS
from .errors import NotationError, notation_error

# ("move", a, b), ("build", sq), ("play", card, *args), ...: squares as ints 0..63
Action = tuple[Any, ...]

_SPLIT = re.compile(r"[;\n\r]")
_INT = re.compile(r"[0-9]+")  # ASCII digits only: "²" or "٣" are not numbers here
_MAX_DIGITS = 3  # no count in the game reaches 1000; larger numbers are malformed
_TWO_SQUARE_CARDS = ("jump", "doorclimb", "diagonal", "moveblock", "relocate", "vault")
# Parsing the same short texts again and again (legal(), the bot, the AI) is
# common; hostile texts are not, so only short texts are cached, and the least
# recently used entry goes first: the cache stays under a few hundred KiB.
_CACHE: OrderedDict[str, tuple[Action, ...]] = OrderedDict()
_CACHE_MAX = 4096
_CACHE_TEXT_MAX = 64


# The canonical texts of the commonest single actions (those the legal-action list
# hands out), parsed once: parsing one of them is then a dict lookup.
MOVE_TEXT: list[list[str]] = [
    [f"move {SQUARE_NAMES[a]} {SQUARE_NAMES[b]}" for b in range(64)] for a in range(64)
]
BUILD_TEXT: list[str] = [f"build {name}" for name in SQUARE_NAMES]
KNIGHT_TEXT: list[str] = [f"knight {name}" for name in SQUARE_NAMES]
_CANONICAL: dict[str, tuple[Action, ...]] = {"end": (("end",),), "draw": (("draw",),)}
_CANONICAL["score"] = (("score", 1),)
_CANONICAL["king pass"] = (("king", -1),)
for _a in range(64):
    for _b in range(64):
        _CANONICAL[MOVE_TEXT[_a][_b]] = (("move", _a, _b),)
    for _verb, _texts in (("build", BUILD_TEXT), ("knight", KNIGHT_TEXT)):
        _CANONICAL[_texts[_a]] = ((_verb, _a),)
    for _verb in ("castle", "place", "king"):
        _CANONICAL[f"{_verb} {SQUARE_NAMES[_a]}"] = ((_verb, _a),)
for _a in range(10):
    _CANONICAL[f"stack {_a}"] = (("stack", _a),)


def parse_square(word: str) -> int:
    """Square name -> index; NotationError naming the bad word."""
    sq = SQUARE_INDEX.get(word)
    if sq is None:
        raise notation_error("not_a_square", text=_short(word))
    return sq


def parse_actions(text: str) -> tuple[Action, ...]:
    """Parse every clause of ``text``; raises NotationError on the first malformed one."""
    if type(text) is str:
        found = _CANONICAL.get(text)
        if found is not None:
            return found
    elif not isinstance(text, str):
        raise notation_error("actions_not_text")
    cached = _CACHE.get(text)
    if cached is not None:
        _CACHE.move_to_end(text)
        return cached
    out: list[Action] = []
    for clause in _SPLIT.split(text.lower()):
        words = clause.split()
        if words:
            out.extend(_parse_clause(words))
    result = tuple(out)
    if len(text) <= _CACHE_TEXT_MAX:
        _CACHE[text] = result
        if len(_CACHE) > _CACHE_MAX:
            _CACHE.popitem(last=False)
    return result


def _parse_clause(words: list[str]) -> list[Action]:
    verb, args = words[0], words[1:]
    clause = " ".join(words)
    if verb in ("castle", "place", "knight"):
        _count(clause, args, 1, f"{verb} SQ")
        return [(verb, parse_square(args[0]))]
    if verb == "king":
        if len(args) != 1:
            raise notation_error("malformed_king", text=_short(clause))
        if args[0] == "pass":
            return [("king", -1)]
        return [("king", parse_square(args[0]))]
    if verb == "move":
        if len(args) < 2:
            raise notation_error("move_needs_squares", text=_short(clause))
        squares = [parse_square(a) for a in args]
        return [("move", a, b) for a, b in zip(squares, squares[1:], strict=False)]
    if verb == "build":
        if not args:
            raise notation_error("build_needs_square", text=_short(clause))
        return [("build", parse_square(a)) for a in args]
    if verb == "stack":
        _count(clause, args, 1, "stack K")
        size = _number(args[0])
        if size is None:
            raise notation_error("bad_stack_size", text=_short(clause))
        return [("stack", size)]
    if verb in ("draw", "end"):
        _count(clause, args, 0, verb)
        return [(verb,)]
    if verb == "score":
        if not args:
            return [("score", 1)]
        _count(clause, args, 1, "score N")
        steps = _number(args[0])
        if steps is None or steps < 1:
            raise notation_error("bad_score_steps", text=_short(clause))
        return [("score", steps)]
    if verb == "keep":
        if len(args) != 2 or args[1] not in ("top", "bottom"):
            raise notation_error("bad_keep", text=_short(clause))
        _card(args[0])
        return [("keep", args[0], args[1])]
    if verb == "play":
        if not args:
            raise notation_error("play_needs_card", text=_short(clause))
        card, rest = args[0], args[1:]
        _card(card)
        if card in _TWO_SQUARE_CARDS:
            _count(clause, rest, 2, f"play {card} A B", offset=1)
            return [("play", card, parse_square(rest[0]), parse_square(rest[1]))]
        if card == "lift":
            if len(rest) not in (1, 2):
                raise notation_error("bad_lift", text=_short(clause))
            sq = parse_square(rest[0])
            if len(rest) == 1:
                return [("play", "lift", sq, None)]
            if rest[1] == "turn":
                return [("play", "lift", sq, "turn")]
            size = _number(rest[1])
            if size is None:
                raise notation_error("bad_lift_source", text=_short(clause))
            return [("play", "lift", sq, size)]
        if card == "extra":
            _count(clause, rest, 1, "play extra SQ", offset=1)
            return [("play", "extra", parse_square(rest[0]))]
        _count(clause, rest, 0, f"play {card}", offset=1)
        return [("play", card)]
    raise notation_error("not_an_action", text=_short(clause))


def _number(word: str) -> int | None:
    """A count written in ASCII digits, or None: never int() on what a player typed.

    ``str.isdigit`` accepts "²" and ``int`` refuses it; ``int`` also refuses
    numbers over 4,300 digits. Both would be crashes, not notation errors.
    """
    digits = word.lstrip("0")
    if not _INT.fullmatch(word) or len(digits) > _MAX_DIGITS:
        return None
    return int(digits or "0")


def _short(clause: str) -> str:
    """A clause as echoed in a message: a player may type thousands of characters."""
    return clause if len(clause) <= 80 else clause[:77] + "…"


def _count(clause: str, args: list[str], n: int, form: str, offset: int = 0) -> None:
    if len(args) != n:
        raise notation_error("malformed", text=_short(clause), form=form)


def _card(word: str) -> None:
    if word not in CARDS:
        raise notation_error("not_a_card", text=_short(word), cards=", ".join(CARDS))


def format_action(action: Action) -> str:
    """The text of one parsed action, which parses back to the same action.

    Every action but ``score N`` is a single action and this is its canonical text;
    ``("score", 3)`` is ``score 3`` (never plain ``score``, which would lose two
    steps). ``canonical_actions`` writes the single steps.
    """
    kind = action[0]
    if kind in ("castle", "place", "knight", "build"):
        return f"{kind} {SQUARE_NAMES[action[1]]}"
    if kind == "king":
        return "king pass" if action[1] < 0 else f"king {SQUARE_NAMES[action[1]]}"
    if kind == "move":
        return f"move {SQUARE_NAMES[action[1]]} {SQUARE_NAMES[action[2]]}"
    if kind == "stack":
        return f"stack {action[1]}"
    if kind == "keep":
        return f"keep {action[1]} {action[2]}"
    if kind == "score":
        return "score" if action[1] == 1 else f"score {action[1]}"
    if kind == "play":
        card = action[1]
        if card == "lift":
            src = action[3]
            tail = "" if src is None else f" {src}"
            return f"play lift {SQUARE_NAMES[action[2]]}{tail}"
        return " ".join(["play", card, *(SQUARE_NAMES[s] for s in action[2:])])
    return str(kind)


_MAX_SCORE_SPLIT = 50  # more steps than any turn has action points: left as one clause


def canonical_actions(actions: Iterable[Action]) -> list[str]:
    """The canonical single actions of parsed ``actions``: ``score N`` as N ``score``.

    Records and replays write this (docs/notation.md: "``score`` always as single
    steps"). More steps than any turn has action points stay one ``score N``, which
    the game refuses at the first step without an action point.
    """
    out: list[str] = []
    for a in actions:
        if a[0] == "score" and 1 < a[1] <= _MAX_SCORE_SPLIT:
            out.extend(["score"] * a[1])
        else:
            out.append(format_action(a))
    return out


def split_actions(text: str) -> list[str]:
    """The single actions of ``text`` in canonical form, shorthands expanded.

    ``move A B C``, ``build A B`` and ``score N`` become single actions; a clause
    that does not parse is kept as written (lower case, single spaces), for
    ``Game.play`` to explain.  Callers that apply a command one action at a time
    (the bot) use this instead of expanding the notation themselves.

    >>> split_actions("Move c3 d3 d4;  build e4 e5\\nscore 2")
    ['move c3 d3', 'move d3 d4', 'build e4', 'build e5', 'score', 'score']
    """
    out: list[str] = []
    for clause in _SPLIT.split(text.lower()):
        words = clause.split()
        if not words:
            continue
        try:
            actions = _parse_clause(words)
        except NotationError:
            out.append(" ".join(words))
            continue
        out.extend(canonical_actions(actions))
    return out
