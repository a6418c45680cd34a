"""Suggestions for ``/torres play``: the autocomplete's choices and the quick player's
hint (computed on a game whose hidden cards are made up, so it can't leak them)."""

from __future__ import annotations

import asyncio
import logging

from bot.core.actions import normalize, split_actions
from bot.core.apply import _apply
from bot.core.complete import complete, why
from bot.core.errors import IllegalMove
from bot.core.games import GameCore
from bot.core.players import _as_seen_by_mover
from bot.core.values import HINT_SECONDS, SUGGEST_SECONDS, SUGGEST_WAIT
from bot.db.rows import GameRow
from bot.texts import posts as texts
from bot.texts.i18n import DEFAULT, t
from bot.texts.markup import (
    CHOICE_LIMIT,
    cut_end,
    cut_start,
)
from engine import Game

log = logging.getLogger(__name__)


class Hints(GameCore):
    """Autocomplete and hints."""

    async def suggest(
        self, *, channel_id: int, user_id: int, typed: str, lang: str = DEFAULT
    ) -> list[tuple[str, str]]:
        """Autocomplete ``(label, value)`` pairs for ``/torres play actions:`` (at most 25).

        Labels speak *lang* (the user's); values stay in the notation.

        Only the player to move gets actions; anyone else one entry saying why.
        What the user typed before the last ``;`` is kept as a prefix; the
        suggestions continue it. If that prefix is illegal the single
        suggestion says why (see :mod:`bot.core.complete`). Nothing is suggested
        past a draw: what may follow depends on cards not drawn yet.
        """
        row = await self._store.active_game(channel_id)
        if row is None:
            return why(t(lang, "No Torres game in this channel: open one with /torres new."), typed)
        if row.status != "running":
            return why(t(lang, "Game #{game} hasn't started yet.", game=row.id), typed)
        seats = await self._store.seats(row.id)
        game = await self._load(row)
        seat = self._seat_named(seats, game.to_move)
        mine = next((s for s in seats if s.user_id == user_id and not s.resigned), None)
        if mine is None:
            return why(t(lang, "You're not playing in this game."), typed)
        if seat is None or seat.user_id != user_id or seat.is_ai:
            if seat is None:
                return why(t(lang, "It's not your turn: nobody is to move."), typed)
            return why(
                t(
                    lang,
                    "It's not your turn: {player} is to move.",
                    player=texts.seat_name(seat, lang),
                ),
                typed,
            )
        head, sep, partial = typed.replace("\n", ";").rpartition(";")
        done_text = normalize(head) if sep else ""
        work = game
        if "draw" in split_actions(done_text):
            return _suggest_past_draw(game, done_text, lang)
        if done_text:
            try:
                work, _, finished = _apply(game, done_text, lang=lang)
            except IllegalMove as exc:
                return why(exc.message, done_text)
            if finished:
                label = t(lang, "{actions} (ends your turn)", actions=done_text)
                return [(_fit(label), _fit(done_text))]
        hint = await self._hint(row, done_text, work)
        return complete(work, done_text, partial, hint, lang=lang)

    async def _suggested_turn(self, row: GameRow, game: Game) -> tuple[str, ...]:
        """The rest of the mover's decision as the quick computer player would play it
        (the panel's 💡), computed in the worker pool when there is one, once per state.

        Like the hint, it is computed on a game whose hidden cards are made up."""
        cached = self._suggested.get(row.id)
        if cached is not None and cached[0] == row.last_seq:
            return tuple(cached[1])
        seen = _as_seen_by_mover(game, row.last_seq)
        try:
            if self._workers is not None:
                work = self._workers.run(self._suggest_actions, seen, SUGGEST_SECONDS)
            else:
                work = asyncio.to_thread(self._suggest_actions, seen, SUGGEST_SECONDS)
            actions = tuple(await asyncio.wait_for(work, SUGGEST_WAIT))
        except TimeoutError:
            actions = ()
        except Exception:
            log.exception("the suggested turn for game %s failed", row.id)
            actions = ()
        try:  # what is offered must be legal as a whole here, hidden cards and all
            game.copy().play("; ".join(actions))
        except Exception:
            actions = ()
        self._suggested[row.id] = (row.last_seq, actions)
        return actions

    async def _hint(self, row: GameRow, done_text: str, game: Game) -> str | None:
        """The next action the quick computer player would choose here, offered first.

        Computed once per game state and typed prefix (autocomplete asks at every
        keystroke) and given at most a second. The computer is handed a game in
        which everything the player can't see (decks, other hands) is made up,
        so the hint cannot depend on hidden cards even by accident.
        """
        key = (row.last_seq, done_text)
        cached = self._hints.get(row.id)
        if cached is not None and cached[0] == key:
            return cached[1]
        try:
            seen = _as_seen_by_mover(game, row.last_seq)
            actions = await asyncio.wait_for(
                asyncio.to_thread(self._suggest_actions, seen, HINT_SECONDS), 1.0
            )
            hint: str | None = actions[0] if actions else None
        except TimeoutError:
            hint = None
        except Exception:
            log.exception("the hint for game %s failed", row.id)
            hint = None
        self._hints[row.id] = (key, hint)
        return hint


def _suggest_past_draw(game: Game, done_text: str, lang: str = DEFAULT) -> list[tuple[str, str]]:
    """The one suggestion for a typed prefix holding a draw, without drawing anything.

    Only what comes before the first draw is played (on a copy), and the draw
    itself is checked with ``legal()``, which depends only on what everybody
    sees (action points, draws so far, whether the deck is empty).
    """
    actions = split_actions(done_text)
    first = actions.index("draw")
    work = game
    try:
        if first:
            work, _, finished = _apply(game, "; ".join(actions[:first]), lang=lang)
            if finished:  # refused before the draw is reached: "already finishes your turn"
                _apply(game, "; ".join(actions[: first + 1]), lang=lang)
        if "draw" not in work.legal():
            _apply(work, "draw", lang=lang)  # refused for a reason everybody can see
    except IllegalMove as exc:
        return why(exc.message, done_text)
    if len(done_text) > CHOICE_LIMIT:
        return []
    if actions[-1] == "draw":
        label = t(
            lang,
            "🃏 {actions} — send it; then pick what follows from your new card(s)",
            actions=done_text,
        )
    else:
        label = t(
            lang,
            "🃏 {actions} — what follows the draw is checked against the card(s) you draw",
            actions=done_text,
        )
    return [(label if len(label) <= CHOICE_LIMIT else _label(done_text), done_text)]


def _label(value: str) -> str:
    """Choice labels show the end of a long value, which is the part that differs."""
    return cut_start(value, CHOICE_LIMIT)


def _fit(text: str) -> str:
    return cut_end(text, CHOICE_LIMIT)
