"""The computer at the table: its own seats' decisions, and a human's turn when their
time ran out; it thinks outside the game's lock and commits only if nothing moved."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Awaitable, Callable
from dataclasses import replace

from bot.core.apply import _apply
from bot.core.errors import IllegalMove
from bot.core.players import _random_decision
from bot.core.turns import Turns
from bot.core.values import Outcome

log = logging.getLogger(__name__)


class Computer(Turns):
    """Computer seats and stand-ins."""

    async def ai_step(self, game_id: int) -> Outcome | None:
        """Let the computer make one decision if a computer seat is to move.

        Returns None when no computer player is to move (or the game ended).
        The computer thinks outside the game's lock; if the game moved on in the
        meantime the result is thrown away and an empty outcome is returned so
        that the caller asks again.
        """
        row = await self._store.game(game_id)
        if row is None or row.status != "running":
            return None
        seats = await self._store.seats(game_id)
        game = await self._load(row)
        seat = self._seat_named(seats, game.to_move)
        if seat is None or not seat.is_ai:
            return None
        seconds = self.config.ai_seconds
        try:
            if self._workers is not None:
                actions = await self._workers.run(self._chooser(row), game.copy(), seconds)
            else:
                actions = await asyncio.to_thread(self._chooser(row), game.copy(), seconds)
        except Exception:
            log.exception("the AI failed in game %s; playing a random legal decision", game_id)
            actions = _random_decision(game, random.Random(row.last_seq))
        async with self.unmoved(row) as same:
            if not same:
                return Outcome(reply="")
            text = "\n".join(actions)
            try:
                # A decision may stop short of its end (personal decks: a draw); the
                # caller then asks again while the computer is still to move.
                work, events, done = _apply(game, text)
            except IllegalMove as exc:
                log.error("the AI chose %r in game %s: %s", actions, game_id, exc.message)
                text = "\n".join(_random_decision(game, random.Random(row.last_seq)))
                work, events, done = _apply(game, text)
            return await self._commit(row, seats, seat, None, text, game, work, events, done)

    async def games_awaiting_ai(self) -> list[int]:
        """Running games whose player to move is a computer (e.g. after a restart)."""
        out = []
        for row in await self._store.games_with_status("running"):
            if not self.config.owns(row.guild_id):
                continue
            seats = await self._store.seats(row.id)
            seat = self._seat_named(seats, (row.position or {}).get("to_move"))
            if seat is not None and seat.is_ai:
                out.append(row.id)
        return out

    async def play_for(
        self,
        game_id: int,
        *,
        turn: int,
        note: str,
        take_seat: bool = False,
        still_due: Callable[[], Awaitable[bool]] | None = None,
    ) -> Outcome | None:
        """The computer plays the current decision of a human seat (their time ran out).

        *turn* is the turn the clock ran out on: if the game moved on meanwhile nothing
        is played (None). The turn message names the computer as playing for the seat
        and starts with *note* (why). *take_seat*: the computer keeps the seat from now
        on (its player's time ran out twice in a row), under the same lock. *still_due*:
        asked under the lock, before anything is written (the clock may have stopped
        meanwhile: its player went away); nothing is played (None) unless it says so.
        """
        row = await self._store.game(game_id)
        if row is None or row.status != "running" or row.turn_no != turn:
            return None
        seats = await self._store.seats(game_id)
        game = await self._load(row)
        seat = self._seat_named(seats, game.to_move)
        if seat is None or seat.is_ai:
            return None
        actions: list[str] = []
        work = game.copy()
        for _ in range(8):  # a decision may stop short of its end (a draw); go on to it
            try:
                if self._workers is not None:
                    chosen = await self._workers.run(
                        self._chooser(row), work.copy(), self.config.ai_seconds
                    )
                else:
                    chosen = await asyncio.to_thread(
                        self._chooser(row), work.copy(), self.config.ai_seconds
                    )
                work, _, done = _apply(work, "\n".join(chosen))
            except Exception:
                log.exception("the AI failed for a timed-out turn in game %s", game_id)
                chosen = _random_decision(work, random.Random(row.last_seq))
                work, _, done = _apply(work, "\n".join(chosen))
            actions += chosen
            if done:
                break
        async with self.unmoved(row) as same:
            if not same or (still_due is not None and not await still_due()):
                return None
            text = "\n".join(actions)
            work, events, done = _apply(game, text)
            stand_in = replace(seat, is_ai=True)  # "Computer (for …)" in the turn message
            outcome = await self._commit(
                row, seats, stand_in, None, text, game, work, events, done, note=note
            )
            if take_seat and seat.name is not None:
                # In the same hold of the lock: a /torres join that gives the seat back
                # comes after this, never between the play and the takeover.
                await self._store.set_seat_ai(game_id, seat.name, True)
                outcome.ai_game = game_id
            return outcome
