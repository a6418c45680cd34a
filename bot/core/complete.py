"""Autocomplete for ``/torres play actions:``: labels in words, values in the notation.

Discord shows at most 25 choices. What the player typed before the last ``;``
is kept as a prefix; the choices continue it. ``end`` is always among them when
legal, the 💡 hint (if any) comes first, and a typed square matches wherever it
appears in an action (``e5`` lists every action involving e5). When nothing
matches, a single entry says why. Labels speak the user's language (*lang*);
values stay in the notation, whatever the language.
"""

from __future__ import annotations

import difflib
import re

from bot.core.actions import normalize
from bot.core.panel import describe
from bot.texts.i18n import DEFAULT, t
from engine import Game

_SQUARE = re.compile(r"[a-h][1-8]")
LIMIT = 25
MAX = 100  # characters in a choice's label and value
KINDS = (
    "move",
    "build",
    "knight",
    "stack",
    "draw",
    "score",
    "play",
    "keep",
    "end",
    "castle",
    "place",
    "king",
)


def why(message: str, value: str) -> list[tuple[str, str]]:
    """The single entry that explains an empty list (its value runs the typed text)."""
    return [(_fit("⚠ " + message), _fit(value.strip() or "help"))]


def matches(action: str, typed: str) -> bool:
    """Whether *action* fits what was typed: a prefix, or squares found anywhere in it.

    >>> matches("move c3 e5", "e5"), matches("build e5", "e5 build"), matches("move b3 b4", "b")
    (True, False, False)
    """
    if not typed or action.startswith(typed):
        return True
    tokens = typed.split()
    words = action.split()
    return all(_SQUARE.fullmatch(t) for t in tokens) and all(t in words for t in tokens)


def unknown_word(typed: str, lang: str = DEFAULT) -> str | None:
    """The first word, if it is no action's name; with a guess at what was meant."""
    first = typed.split(" ", 1)[0]
    if not first or any(k.startswith(first) for k in KINDS):
        return None
    if len(first) == 2 and first[0] in "abcdefgh" and first[1] in "12345678":
        return None
    if len(first) <= 2 and first[0] in "abcdefgh" and (len(first) == 1 or first[1].isdigit()):
        return None  # the start of a square
    guess = difflib.get_close_matches(first, KINDS, n=1)
    if guess:
        return t(
            lang, "Unknown word `{word}`. Did you mean `{guess}`?", word=first[:20], guess=guess[0]
        )
    return t(lang, "Unknown word `{word}`.", word=first[:20])


def complete(
    game: Game, done_text: str, partial: str, hint: str | None, *, lang: str = DEFAULT
) -> list[tuple[str, str]]:
    """Up to 25 ``(label, value)`` choices continuing *done_text* with one action;
    the labels in *lang* (the user's)."""
    from bot.core.service import rank_actions

    prefix = f"{done_text}; " if done_text else ""
    typed = normalize(partial) if partial.strip() else ""
    legal = game.legal()
    fitting = [a for a in legal if matches(a, typed)]
    if not fitting:
        problem = unknown_word(typed, lang)
        if problem is None and game.ap is not None and game.stage == "play":
            problem = t(
                lang,
                "No legal action matches `{typed}` ({ap} AP left).",
                typed=typed[:40],
                ap=game.ap,
            )
        elif problem is None:
            problem = t(lang, "No legal action matches `{typed}`.", typed=typed[:40])
        return why(problem, prefix + partial)
    ranked = rank_actions(fitting, LIMIT)
    if hint is not None and hint in fitting:
        ranked = [hint] + [a for a in ranked if a != hint]
        if len(ranked) > LIMIT:  # drop the last non-end action, never `end`
            drop = next(a for a in reversed(ranked) if a not in ("end", hint))
            ranked.remove(drop)
    out = []
    for action in ranked:
        value = prefix + action
        if len(value) > MAX:
            continue
        words = describe(action, game, lang=lang)
        if action == hint:
            words = "💡 " + words
        out.append((_label(words, value), value))
    return out


def _label(words: str, value: str) -> str:
    """``Knight c3 → d3 (1 AP) · move c3 d3``: words first, then the notation's end."""
    label = f"{words} · {value}"
    if len(label) <= MAX:
        return label
    room = MAX - len(words) - 4
    if room >= 12:
        return f"{words} · …{value[-room:]}"
    return _fit(words)


def _fit(text: str) -> str:
    return text if len(text) <= MAX else text[: MAX - 1] + "…"
