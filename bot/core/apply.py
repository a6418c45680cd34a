"""Turn application: a player's text applied to a copy of the game with the engine,
refused as a whole (with the engine's reason, in the player's words) or not at all."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.core.actions import split_with_clauses
from bot.core.errors import IllegalMove
from bot.texts.i18n import DEFAULT, N_, t
from bot.texts.markup import (
    CHOICE_LIMIT,
    shorten,
)
from bot.texts.refusals import refusal
from engine import Game, IllegalAction, NotationError
from engine import decision_over as decision_done

TYPE_AN_ACTION = N_("Type at least one action, for example `move c3 d3` or `end`.")


def _refused(lang: str, number: int, count: int, action: str, reason: str, unchanged: bool) -> str:
    """Why action *number* of *count* was refused, as a whole sentence in *lang*."""
    if count > 1 and unchanged:
        return t(
            lang,
            "Action {number} of {count}, `{action}`: {reason} Nothing was changed.",
            number=number,
            count=count,
            action=action,
            reason=reason,
        )
    if count > 1:
        return t(
            lang,
            "Action {number} of {count}, `{action}`: {reason}",
            number=number,
            count=count,
            action=action,
            reason=reason,
        )
    if unchanged:
        return t(lang, "{reason} Nothing was changed.", reason=reason)
    return reason


def _apply(
    game: Game, text: str, *, unchanged: bool = True, lang: str = DEFAULT
) -> tuple[Game, list[Mapping[str, Any]], bool]:
    """Apply *text* to a copy of *game*, one action at a time, all or nothing.

    *unchanged*: a refusal says "Nothing was changed" (False once part of the
    command, a draw, was committed). Refusals speak *lang*.

    :raises IllegalMove: if any action is refused, or if the text goes on past
        the end of the player's decision.
    """
    if game.stage == "king" and " ".join(text.split()).lower() == "pass":
        text = "king pass"  # after a phase's scoring, "pass" means leaving the king
    pairs = split_with_clauses(text)
    actions = [a for a, _ in pairs]
    if not actions:
        raise IllegalMove(t(lang, TYPE_AN_ACTION))
    work = game.copy()
    events: list[Mapping[str, Any]] = []
    done = False
    for i, action in enumerate(actions):
        stage = work.stage
        _check_score_clause(work, pairs, i, lang)
        try:
            caused = work.play(action)
        except (IllegalAction, NotationError) as exc:
            reason = shorten(refusal(lang, exc), 600)
            raise IllegalMove(
                _refused(lang, i + 1, len(actions), action, reason, unchanged)
            ) from None
        events.extend(caused or [])
        done = decision_done(stage, caused or [])
        if done and i + 1 < len(actions):
            following = shorten(actions[i + 1], CHOICE_LIMIT)
            if unchanged:
                why = t(
                    lang,
                    "`{action}` already finishes your turn, so `{next}` would be played for the "
                    "next player. Nothing was changed. Leave out what follows `{action}`.",
                    action=action,
                    next=following,
                )
            else:
                why = t(
                    lang,
                    "`{action}` already finishes your turn, so `{next}` would be played for the "
                    "next player. Leave out what follows `{action}`.",
                    action=action,
                    next=following,
                )
            raise IllegalMove(why)
    return work, events, done


def _check_score_clause(
    game: Game, pairs: list[tuple[str, str]], i: int, lang: str = DEFAULT
) -> None:
    """``score N`` asks for N AP at once: say so rather than fail at its last step."""
    action, clause = pairs[i]
    if action != "score" or (i > 0 and pairs[i - 1][1] == clause):
        return
    words = clause.split()
    # Only plain small numbers: "²" passes isdigit() and fails int(); the engine
    # explains whatever else was typed.
    if len(words) != 2 or not (words[1].isascii() and words[1].isdigit()) or len(words[1]) > 3:
        return
    need, ap = int(words[1]), game.ap
    if ap is not None and game.stage == "play" and need > ap:
        raise IllegalMove(
            t(
                lang,
                "`{clause}` needs {need} AP and you have {ap}. Nothing was changed.",
                clause=clause,
                need=need,
                ap=ap,
            )
        )
