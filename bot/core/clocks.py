"""Time per turn and away periods: the computer plays a turn whose time ran out (and keeps
the seat after two in a row), a player takes their seat back, an away period pauses clocks."""

from __future__ import annotations

import functools
from dataclasses import replace

from bot.core.errors import NotAllowed
from bot.core.locks import game_lock
from bot.core.service import (
    GameService,
    Outcome,
    Post,
    User,
)
from bot.core.settings import HomeCore
from bot.db.rows import GameRow
from bot.texts import posts as texts
from bot.texts.home_words import _duration, _waiting_on
from bot.texts.i18n import DEFAULT, N_, t, tn
from bot.texts.markup import mention, shown_name, timestamp

AWAY_DAYS = 14  # the longest away period, in days (/torres away days:0-14)


CLOCK_NAMES = {1: N_("1 hour"), 24: N_("1 day"), 72: N_("3 days"), 168: N_("7 days")}
"""The times per turn ``/torres new clock:`` offers, in hours (English: ``t(lang, name)``)."""


class Clocks(HomeCore):
    """Clocks, seats taken back, away periods."""

    # -- clocks and away periods -----------------------------------------------------------

    async def set_clock(self, game_id: int, hours: int) -> str:
        """Give a new game a time per turn; the line that says so in the lobby message.

        The line speaks the game's language, as the lobby message does.
        """
        seconds = hours * 3600 * self._clock_scale
        async with game_lock(self._store, game_id):  # like every other change of the game
            # Three reminders inside the time, at a quarter, half and three quarters of it.
            await self._store.set_turn_clock(game_id, seconds, seconds / 4)
            row = await self._store.game(game_id)
        lang = row.language if row is not None else DEFAULT
        name = CLOCK_NAMES.get(hours)
        shown = t(lang, name) if name else tn(lang, "{n} hour", "{n} hours", hours)
        return t(
            lang,
            "Time per turn: {time}. When it runs out the computer plays that turn; after two "
            "such turns in a row it takes the seat (its player gets it back with `/torres join`).",
            time=shown,
        )

    async def due_clocks(self, service: GameService) -> list[Outcome]:
        """Let the computer play the turns whose time ran out (see :meth:`set_clock`)."""
        out = []
        for row, seconds, since in await self._store.clocked_games():
            seats = await self._store.seats(row.id)
            mover = _waiting_on(row, seats)
            if mover is None or mover.is_ai or mover.user_id is None or mover.name is None:
                continue
            ran_out = functools.partial(self._ran_out, mover.user_id, since, seconds)
            if not await ran_out():
                continue
            twice = await self._timed_out_before(row, mover.name)
            # A public post: the game's language.
            lang = row.language
            note = t(
                lang,
                "⏰ {player}'s time for this turn ({time}) ran out in game #{game}: "
                "the computer plays it for them.",
                player=mention(mover.user_id),
                time=_duration(lang, seconds),
                game=row.id,
            )
            if twice:
                note += " " + t(
                    lang,
                    "That is twice in a row, so the computer takes over their seat; "
                    "{player} can come back with `/torres join` in this channel.",
                    player=mention(mover.user_id),
                )
            # Asked again under the game's lock: an away period begun meanwhile stops the clock.
            outcome = await service.play_for(
                row.id, turn=row.turn_no, note=note, take_seat=twice, still_due=ran_out
            )
            if outcome is not None:
                out.append(outcome)
        return out

    async def _ran_out(self, user_id: int, since: float, seconds: float) -> bool:
        """Whether the time of the turn its player began waiting at *since* ran out: an away
        period stops the clock, and once back the turn's time starts again."""
        settings = await self._store.user_settings(user_id)
        away = settings.away_until or 0.0
        now = self._clock()
        return not (away > now or now < max(since, away) + seconds)

    async def _timed_out_before(self, row: GameRow, name: str) -> bool:
        """Whether the computer played this seat's previous decision (its time ran out)."""
        before = [
            a
            for a in await self._store.actions(row.id)
            if a.seq <= row.turn_start_seq and a.player == name and a.kind == "play"
        ]
        return bool(before) and before[-1].user_id is None

    async def rejoin(self, *, channel_id: int, user: User) -> Outcome | None:
        """Take back one's seat from the computer (after timeouts); None if that isn't the case."""
        found = await self._store.active_game(channel_id)
        if found is None:  # a channel whose games play in threads: its one game, if just one
            here = await self._store.lobby_games(channel_id)
            found = here[0] if len(here) == 1 else None
        if found is None:
            return None
        async with game_lock(self._store, found.id):  # a seat changes under the game's lock
            row, seats = await self._store.game_and_seats(found.id)
            if row is None or row.status != "running":
                return None
            seat = next((s for s in seats if s.user_id == user.id), None)
            if seat is None or seat.name is None or not seat.is_ai or seat.resigned:
                return None
            await self._store.set_seat_ai(row.id, seat.name, False)
        text = t(
            row.language,
            "{player} is back in game #{game} and plays {seat} again.",
            player=shown_name(user.display),
            game=row.id,
            seat=texts.colour(seat.name, row.language),
        )
        return Outcome(
            reply=t(
                user.lang,
                "You're back in your seat ({seat}) in game #{game}.",
                seat=texts.colour(seat.name, user.lang),
                game=row.id,
            ),
            posts=[Post(row.channel_id, row.id, text, language=row.language)],
        )

    async def away(self, *, user: User, days: int) -> Outcome:
        """Pause the user's clocks and reminders in all their games for *days* (0: back now).

        *days* outside 0-:data:`AWAY_DAYS` (a forged request: Discord offers only those)
        is refused, changing nothing.
        """
        if not (isinstance(days, int) and 0 <= days <= AWAY_DAYS):
            raise NotAllowed(
                t(
                    user.lang,
                    "An away period lasts 1 to {max} days (`days:0` ends one now); "
                    "nothing was changed.",
                    max=AWAY_DAYS,
                )
            )
        now = self._clock()
        current = await self._store.user_settings(user.id)
        until = now + days * 86400 * self._clock_scale if days else None
        await self._save_settings(replace(current, away_until=until))
        posts = []
        for row, _ in await self._store.user_games(user.id):
            if row.status != "running":
                continue
            if until is None:
                text = t(
                    row.language,
                    "{player} is back: their clock and reminders in game #{game} run again.",
                    player=shown_name(user.display),
                    game=row.id,
                )
            else:
                text = t(
                    row.language,
                    "{player} is away until {time}: their clock and reminders in game #{game} "
                    "are paused until then.",
                    player=shown_name(user.display),
                    time=timestamp(until, "f"),
                    game=row.id,
                )
            posts.append(Post(row.channel_id, row.id, text, language=row.language))
        if until is None:
            reply = t(user.lang, "Welcome back: your clocks and reminders run again.")
        else:
            reply = tn(
                user.lang,
                "You're away until {time}: your clocks and reminders are paused in "
                "{n} running game. `/torres away days:0` ends it sooner.",
                "You're away until {time}: your clocks and reminders are paused in "
                "{n} running games. `/torres away days:0` ends it sooner.",
                len(posts),
                time=timestamp(until, "f"),
            )
        return Outcome(reply=reply, posts=posts)
