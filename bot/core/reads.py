"""What the service shows without changing a game: the board, a hand, reminders due,
replays."""

from __future__ import annotations

from typing import Any

from bot.core.apply import _apply
from bot.core.errors import NoGame, NotAllowed, NotSeated
from bot.core.games import GameCore
from bot.core.values import BoardView, Post, User
from bot.db.rows import GameRow, SeatRow
from bot.texts import posts as texts
from bot.texts.i18n import DEFAULT, t
from engine import Game, changed_squares


class Reads(GameCore):
    """Reads of a game."""

    # -- information -----------------------------------------------------------------

    async def lobby_card(self, game_id: int) -> tuple[GameRow, list[SeatRow]] | None:
        """A game in a thread of its own, as its lobby card shows it (None: no card)."""
        row, seats = await self._store.game_and_seats(game_id)
        if row is None or row.lobby_message_id is None:
            return None
        return row, seats

    async def game_channel(self, game_id: int, *, lang: str = DEFAULT) -> int:
        """Where a game plays (its thread, for a game in a thread of its own)."""
        row = await self._store.game(game_id)
        if row is None:
            raise NoGame(t(lang, "There is no game #{game}.", game=game_id))
        return row.channel_id

    async def board(self, *, channel_id: int, user: User) -> BoardView:
        """The current picture, as the asking player may see it (in their language)."""
        lang = user.lang
        row = await self._active(channel_id, lang=lang)
        if row.status != "running" or row.position is None:
            raise NotAllowed(t(lang, "The game hasn't started yet: there is no board to show."))
        seats = await self._store.seats(row.id)
        game = await self._load(row)
        mine = next((s for s in seats if s.user_id == user.id and not s.resigned), None)
        viewer = mine.name if mine else None
        highlight = frozenset(
            changed_squares(row.turn_start_position or row.position, row.position)
        )
        note = t(lang, "changed this turn so far")
        if not highlight:  # nothing done yet this turn: show what the last turn changed
            last = await self._store.last_payload(row.id) or {}
            highlight = frozenset(last.get("highlight") or ())
            note = t(lang, "changed by the last turn")
            if last.get("highlight_note") and (last.get("language") or DEFAULT) == lang:
                note = last["highlight_note"]  # its own words, when they are the asker's
        return BoardView(
            text=texts.status_line(row.id, game, seats, lang),
            position=game.position(),
            viewer=viewer,
            highlight=highlight,
            highlight_note=note,
            labels=texts.picture_labels(seats, lang),
            language=lang,
        )

    async def hand(
        self,
        *,
        channel_id: int | None = None,
        game_id: int | None = None,
        turn: int | None = None,
        user: User,
    ) -> str:
        """The asking player's cards; nobody else's (in their language)."""
        lang = user.lang
        if game_id is None:
            assert channel_id is not None
            row = await self._active(channel_id, lang=lang)
        else:
            if turn is not None:
                row, seats = await self._check_button(game_id, turn, lang=lang)
            else:
                row, seats = await self._fresh_seated(game_id, lang=lang)
        if row.status != "running":
            raise NotAllowed(t(lang, "The game hasn't started yet: nobody holds cards."))
        if game_id is None:
            seats = await self._store.seats(row.id)
        mine = next((s for s in seats if s.user_id == user.id), None)
        if mine is None or mine.name is None:
            raise NotSeated(t(lang, "You're not playing in this game, so you have no hand."))
        if mine.resigned:
            raise NotSeated(
                t(lang, "You resigned from this game; the computer holds your cards now.")
            )
        game = await self._load(row)
        return texts.hand(game, mine.name, lang)

    # -- reminders -----------------------------------------------------------------

    async def due_reminders(self) -> list[Post]:
        """Reminder posts for players who have been idle too long; each is counted as sent."""
        now = self._clock()
        posts = []
        clocks: dict[int, tuple[float, float]] | None = None  # game -> (time per turn, turn began)
        for row in await self._store.games_with_status("running"):
            if row.reminders_sent >= row.reminder_limit or row.position is None:
                continue
            if not self.config.owns(row.guild_id):
                continue
            due = row.last_activity + row.reminder_interval * (row.reminders_sent + 1)
            if now < due:
                continue
            seats = await self._store.seats(row.id)
            seat = self._seat_named(seats, row.position.get("to_move"))
            if seat is None or seat.is_ai or seat.user_id is None:
                continue
            if await self._store.away_users([seat.user_id], now):  # /torres away: paused
                continue
            if clocks is None:
                clocks = {r.id: (sec, since) for r, sec, since in await self._store.clocked_games()}
            ends = None
            if row.id in clocks:  # the computer plays the turn then (bot.core.clocks.due_clocks)
                seconds, since = clocks[row.id]
                back = (await self._store.user_settings(seat.user_id)).away_until or 0.0
                ends = max(since, back) + seconds
            text = texts.reminder(row, seat, row.reminders_sent + 1, now, clock_ends=ends)
            post = Post(
                row.channel_id, row.id, text, mentions=(seat.user_id,), language=row.language
            )
            queued: list[int] = []  # counted and queued in one commit
            if not await self._store.note_reminder(
                row.id,
                expected_sent=row.reminders_sent,
                expected_seq=row.last_seq,
                outbox=[post.to_payload()],
                queued=queued,
            ):
                continue
            (post.outbox_id,) = queued
            posts.append(post)
        return posts

    # -- replay ---------------------------------------------------------------------

    async def replay(self, game_id: int) -> Game:
        """Rebuild a game from its starting position and action log."""
        return (await self._replayed(game_id))[0]

    async def replay_frames(self, game_id: int) -> list[dict[str, Any]]:
        """The starting position and the position after every finished decision.

        Rebuilt from the log, so the animated replay posted at the game's end
        needs nothing stored beyond what crash safety already keeps.
        """
        return (await self._replayed(game_id))[1]

    async def _replayed(self, game_id: int) -> tuple[Game, list[dict[str, Any]]]:
        row = await self._store.game(game_id)
        if row is None or row.initial is None:
            raise NoGame(f"Game #{game_id} never started.")
        game = Game.from_position(row.initial)
        frames = [game.position()]
        for entry in await self._store.actions(game_id):
            if entry.kind == "undo":
                if not game.undo():
                    raise RuntimeError(f"game {game_id} log row {entry.seq}: undo failed")
            elif entry.kind == "play":
                game, _, done = _apply(game, entry.action)
                if done:
                    frames.append(game.position())
        return game, frames
