"""A home for regular players: their games, past games, records, results, stats and ratings.

Everything here reads what the game service already stores (games, seats, the
action log) and adds one thing of its own: a ``results`` row for every game that
was played out, written once the game is over. Ratings are not stored: they are
recomputed from the results (openskill's Plackett–Luce model, per server), so the
model can change without touching the database; a per-server cache keeps the
answer quick and is brought up to date when results are added.

Languages (bot.texts.i18n): a command's answer speaks the asking user's language
(``lang``, from ``interaction.locale``); what is posted in a game's channel or
sent as its turn notice speaks the game's language (``GameRow.language``). Game
records stay in English: they are a file format, read by ``engine replay``.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from babel.dates import format_datetime, format_timedelta
from babel.lists import format_list
from babel.numbers import format_decimal, format_percent

from bot.core.errors import NoGame, NotAllowed
from bot.core.service import (
    BoardView,
    GameService,
    Lru,
    Outcome,
    Post,
    User,
    picture_labels,
    public_action,
    stand_ins_count,
)
from bot.db.contract import GameStore
from bot.db.rows import GameRow, ResultRow, ResultSeat, SeatRow, UserSettings
from bot.texts import posts as texts
from bot.texts.i18n import DEFAULT, N_, t, tn
from engine import changed_squares
from engine.record import Record, RecordError, format_record, record_from_log, replay

LEADERBOARD_SIZE = 10
LEADERBOARD_MIN_GAMES = 3
_LIST_LIMIT = 15  # games shown by /torres games and /torres history
# A user's settings read here serve the next minute's commands and turn messages
# (see HomeService._user_settings); at most this many users are remembered (~200 B each).
SETTINGS_FRESH = 60.0
CACHED_SETTINGS = 4096
AWAY_DAYS = 14  # the longest away period, in days (/torres away days:0-14)
CLOCK_NAMES = {1: N_("1 hour"), 24: N_("1 day"), 72: N_("3 days"), 168: N_("7 days")}
"""The times per turn ``/torres new clock:`` offers, in hours (English: ``t(lang, name)``)."""

PlayerKey = tuple[str, int | str]
"""``("user", id)`` for a person, ``("ai", level)`` for the computer at a level."""


@dataclass(slots=True)
class PlayerStats:
    """One player's record on a server."""

    key: PlayerKey
    name: str
    games: int = 0
    wins: int = 0
    points: int = 0
    mu: float = 0.0
    sigma: float = 0.0

    @property
    def rating(self) -> float:
        """The conservative estimate (mu - 3 sigma): what the leaderboard sorts by."""
        return self.mu - 3 * self.sigma

    @property
    def average(self) -> float:
        return self.points / self.games if self.games else 0.0


@dataclass(slots=True)
class _Ratings:
    """A server's stats as of a results version ``(count, largest game id)``."""

    version: tuple[int, int] = (0, 0)
    players: dict[PlayerKey, PlayerStats] = field(default_factory=dict)
    last: tuple[float, int] = (0.0, 0)  # (finished_at, game_id) of the last result counted


@dataclass(frozen=True, slots=True)
class Export:
    """A game record ready to attach."""

    filename: str
    text: str
    reply: str


class HomeService:
    """Players' games, history, export, results and ratings (see the module doc)."""

    def __init__(
        self,
        store: GameStore,
        *,
        ai_level: str,
        clock: Callable[[], float] = time.time,
        clock_scale: float = 1.0,
    ) -> None:
        """*clock_scale* shortens every time per turn and away period (tests)."""
        self._store = store
        self._clock_scale = clock_scale
        self._ai_level = ai_level
        self._clock = clock
        self._ratings: dict[int | None, _Ratings] = {}
        self._rating_locks: dict[int | None, asyncio.Lock] = {}
        # Users' settings as last read or written here, with when (monotonic time):
        # every command asks for a pending notice and every turn message whether
        # its player wants a DM, and each read is a database round trip.
        self._settings: Lru[int, tuple[float, UserSettings]] = Lru(CACHED_SETTINGS)

    # -- /torres games ---------------------------------------------------------------

    async def my_games(self, *, user_id: int, guild_id: int | None, lang: str = DEFAULT) -> str:
        """The caller's unfinished games: this server's first, those waiting for them first.

        Games on other servers the bot shares with the caller are listed by channel
        link only (Discord shows the caller the channel's name, as they are a member
        there): nothing names another server to anyone.
        """
        found = await self._store.user_games(user_id)
        if not found:
            return t(
                lang,
                "You have no unfinished Torres games. Open one with `/torres new`, "
                "or join an open one with `/torres join` in its channel.",
            )
        entries = []
        for row, since in found:
            seats = await self._store.seats(row.id)
            entries.append((row, since, seats, _waiting_on(row, seats)))
        here = [e for e in entries if e[0].guild_id == guild_id]
        elsewhere = [e for e in entries if e[0].guild_id != guild_id]

        def order(e: tuple[GameRow, float, list[SeatRow], SeatRow | None]) -> tuple[int, float]:
            mover = e[3]
            mine = mover is not None and mover.user_id == user_id
            return (0 if mine else 1, e[1])

        lines = []
        my_turn = sum(1 for e in entries if e[3] is not None and e[3].user_id == user_id)
        if my_turn:
            head = t(
                lang,
                "**Your Torres games** ({count} unfinished, your turn in {mine})",
                count=len(entries),
                mine=my_turn,
            )
        else:
            head = t(lang, "**Your Torres games** ({count} unfinished)", count=len(entries))
        lines.append(head)
        shown = 0
        for group, title in ((here, None), (elsewhere, t(lang, "On other servers:"))):
            if not group:
                continue
            if title and here:
                lines.append(title)
            for row, since, seats, mover in sorted(group, key=order):
                if shown >= _LIST_LIMIT:
                    break
                lines.append(
                    _game_line(lang, row, since, seats, mover, user_id)
                    + await self._extras(lang, row, since)
                )
                shown += 1
        if shown < len(entries):
            lines.append(t(lang, "…and {count} more.", count=len(entries) - shown))
        return "\n".join(lines)

    async def _extras(self, lang: str, row: GameRow, since: float) -> str:
        """A running game's clock deadline and a jump link to its latest turn message."""
        if row.status != "running":
            return ""
        out = ""
        seconds = await self._store.turn_clock(row.id)
        if seconds is not None:
            out += f", ⏰ <t:{int(since + seconds)}:R>"
        # bot.client.app keeps the latest turn message as "channel:message" (to retire its buttons).
        latest = await self._store.get_meta(f"turn_message:{row.id}")
        if latest and row.guild_id is not None:
            channel_id, _, message_id = latest.partition(":")
            url = f"https://discord.com/channels/{row.guild_id}/{channel_id}/{message_id}"
            out += " — " + t(lang, "[latest turn]({url})", url=url)
        return out

    # -- /torres history -------------------------------------------------------------

    async def history(self, *, channel_id: int, guild_id: int | None, lang: str = DEFAULT) -> str:
        """This channel's ended games, or the server's if the channel has none."""
        rows = await self._store.past_games(channel_id=channel_id, limit=_LIST_LIMIT)
        head = t(lang, "**Finished Torres games in this channel** (newest first)")
        if not rows:
            rows = await self._store.past_games(guild_id=guild_id, limit=_LIST_LIMIT)
            head = t(lang, "**Finished Torres games on this server** (newest first)")
        if not rows:
            return t(lang, "No Torres game has ended on this server yet.")
        lines = [head]
        for row in rows:
            seats = await self._store.seats(row.id)
            lines.append(_history_line(lang, row, seats))
        lines.append(
            t(
                lang,
                "See one with `/torres board game:N` (add `decision:K` for an earlier position) "
                "or get its record with `/torres export game:N`.",
            )
        )
        return "\n".join(lines)

    # -- /torres board game: decision: ------------------------------------------------

    async def past_board(
        self,
        *,
        channel_id: int,
        guild_id: int | None,
        user_id: int,
        game_id: int | None,
        decision: int | None,
        lang: str = DEFAULT,
    ) -> BoardView:
        """Any position of a game of this server, as the asking player may see it.

        Without a game number: the channel's running game, else its last ended one.
        Decisions are numbered as in the game's record (0 is the start).
        """
        row = await self._pick(lang, channel_id, guild_id, game_id)
        if row.initial is None:
            raise NotAllowed(
                t(lang, "Game #{game} hasn't started yet: there is no board to show.", game=row.id)
            )
        seats = await self._store.seats(row.id)
        record = await self._record(row, seats)
        total = len(record.decisions)
        if decision is not None and not 0 <= decision <= total:
            raise NotAllowed(
                t(
                    lang,
                    "Game #{game} has decisions 0 (the start) to {total}; "
                    "there is no decision {decision}.",
                    game=row.id,
                    total=total,
                    decision=decision,
                )
            )
        upto = total if decision is None else decision
        try:
            game = replay(record, upto)
            before = replay(record, upto - 1) if upto > 0 else game
        except RecordError as exc:  # the log is the service's own: this is a bug
            raise RuntimeError(f"game {row.id} does not replay: {exc}") from exc
        mine = next((s for s in seats if s.user_id == user_id and not s.resigned), None)
        # A player of a running game sees their own cards; an ended game shows nobody's.
        viewer = mine.name if mine and row.status == "running" else None
        text = texts.status_line(row.id, game, seats, lang)
        if upto < total or row.status != "running":
            if upto == 0:
                text = (
                    t(
                        lang,
                        "Game #{game} at the start (decision 0 of {total}).",
                        game=row.id,
                        total=total,
                    )
                    + " "
                    + text
                )
            else:
                d = record.decisions[upto - 1]
                actions = "; ".join(public_action(a) for a in d.actions)
                said = t(
                    lang,
                    "Game #{game}, decision {decision} of {total}: {player} `{actions}`.",
                    game=row.id,
                    decision=upto,
                    total=total,
                    player=texts.dotted(d.player, lang),
                    actions=actions,
                )
                text = said + "\n" + text
        if row.status == "cancelled":
            when = _local_date(lang, row.updated_at)
            text = (
                t(lang, "Game #{game} was cancelled ({date}).", game=row.id, date=when)
                + "\n"
                + text
            )
        highlight = frozenset(changed_squares(before.position(), game.position()))
        return BoardView(
            text=text,
            position=game.position(),
            viewer=viewer,
            highlight=highlight,
            labels=picture_labels(seats, lang),
            language=lang,
            game_id=row.id,
            decision=upto,
            decisions=total,
        )

    # -- /torres export --------------------------------------------------------------

    async def export(
        self,
        *,
        channel_id: int,
        guild_id: int | None,
        game_id: int | None,
        lang: str = DEFAULT,
    ) -> Export:
        """The record of an ended game, as a text file (docs/notation.md, "Game records").

        A running game is refused: the record's seed gives away the order of the deck.
        """
        if game_id is None:
            active = await self._store.active_game(channel_id)
            past = await self._store.past_games(channel_id=channel_id, limit=1)
            if not past:
                if active is not None:
                    raise NotAllowed(t(lang, _RUNNING_EXPORT, game=active.id))
                raise NoGame(
                    t(
                        lang,
                        "No Torres game has ended in this channel. Name one with "
                        "`/torres export game:N` (`/torres history` lists them).",
                    )
                )
            row = past[0]
        else:
            row = await self._pick(lang, channel_id, guild_id, game_id)
        if row.status in ("open", "running"):
            raise NotAllowed(t(lang, _RUNNING_EXPORT, game=row.id))
        if row.initial is None:
            raise NotAllowed(
                t(
                    lang,
                    "Game #{game} was cancelled before it started: it has no record.",
                    game=row.id,
                )
            )
        seats = await self._store.seats(row.id)
        record = await self._record(row, seats, headers=True)
        text = format_record(record)
        return Export(
            filename=f"torres-game-{row.id}.txt",
            text=text,
            reply=tn(
                lang,
                "The record of game #{game} ({n} decision). "
                "Replay it with `python -m engine replay FILE`.",
                "The record of game #{game} ({n} decisions). "
                "Replay it with `python -m engine replay FILE`.",
                len(record.decisions),
                game=row.id,
            ),
        )

    # -- results ---------------------------------------------------------------------

    async def record_results(self) -> int:
        """Write the result of every game that ended and has none yet; how many were written.

        Called when a game ends and by the background loop (after a crash, or for games
        that ended before this feature existed): a result is written exactly once.
        """
        written = 0
        for game_id in await self._store.games_without_result():
            row = await self._store.game(game_id)
            if row is None or row.result is None or row.initial is None:
                continue
            seats = await self._store.seats(game_id)
            if await self._store.add_result(self._result(row, seats)):
                written += 1
        return written

    def _result(self, row: GameRow, seats: Sequence[SeatRow]) -> ResultRow:
        result = row.result or {}
        scores: dict[str, int] = {str(k): int(v) for k, v in (result.get("scores") or {}).items()}
        placed = [s for s in seats if s.name is not None]
        ranks = _ranks(result, placed)
        stand_ins = set(result.get("stand_ins") or ())
        void = not stand_ins_count(placed, stand_ins)
        level = row.ai_level or self._ai_level
        out = []
        for s in placed:
            # A person's seat the computer played for them keeps its user: a loss for
            # them (``_ranks``), or, when no person really played, the computer's level
            # and so counted for nobody (``_key``). The level never gets such a seat.
            played_by_computer = s.user_id is None or (void and s.name in stand_ins)
            out.append(
                ResultSeat(
                    seat=s.seat,
                    name=s.name or "?",
                    user_id=s.user_id,
                    display="Computer" if s.user_id is None else s.display,
                    ai_level=level if played_by_computer else None,
                    score=scores.get(s.name or "", 0),
                    rank=ranks[s.name or "?"],
                )
            )
        started = min((s.joined_at for s in seats), default=row.created_at)
        return ResultRow(
            game_id=row.id,
            guild_id=row.guild_id,
            channel_id=row.channel_id,
            variant=row.variant,
            started_at=started,
            finished_at=row.updated_at,
            seats=tuple(out),
        )

    # -- /torres stats and /torres leaderboard ------------------------------------------

    async def stats(
        self, *, guild_id: int | None, user_id: int, name: str, lang: str = DEFAULT
    ) -> str:
        """A player's games, wins, average score and rating on this server.

        *name* is the player's display name, shown as typed (never as markup)."""
        name = texts.shown_name(name)
        players = await self._players(guild_id)
        p = players.get(("user", user_id))
        if p is None or not p.games:
            return t(lang, "{player} has no finished Torres games on this server yet.", player=name)
        ranked = _ranked(players)
        place = next((i for i, q in enumerate(ranked, start=1) if q.key == p.key), None)
        numbers = {
            "rating": _decimal(lang, p.rating),
            "skill": _decimal(lang, p.mu),
            "sigma": _decimal(lang, p.sigma),
        }
        if place is not None:
            rating = t(
                lang,
                "Rating {rating} (skill {skill} ± {sigma}), #{place} of {count} on the leaderboard.",
                place=place,
                count=len(ranked),
                **numbers,
            )
        else:
            rating = tn(
                lang,
                "Rating {rating} (skill {skill} ± {sigma}) (on the leaderboard after {n} game).",
                "Rating {rating} (skill {skill} ± {sigma}) (on the leaderboard after {n} games).",
                LEADERBOARD_MIN_GAMES,
                **numbers,
            )
        # Two counts, each with its own plural: they are filled into the sentence.
        record = t(
            lang,
            "**{player}** on this server: {games}, {wins} ({share}), average score {average}.",
            player=name,
            games=tn(lang, "{n} game", "{n} games", p.games),
            wins=tn(lang, "{n} win", "{n} wins", p.wins),
            share=_percent(lang, p.wins / p.games),
            average=_decimal(lang, p.average),
        )
        return record + "\n" + rating

    async def leaderboard(self, *, guild_id: int | None, lang: str = DEFAULT) -> str:
        """The server's top players by rating, the computer's levels among them."""
        ranked = _ranked(await self._players(guild_id))
        if not ranked:
            return tn(
                lang,
                "Nobody has {n} finished game on this server yet; "
                "the leaderboard fills as games end.",
                "Nobody has {n} finished games on this server yet; "
                "the leaderboard fills as games end.",
                LEADERBOARD_MIN_GAMES,
            )
        lines = [
            t(lang, "**Torres leaderboard** (rating = skill − 3 × uncertainty; Plackett–Luce)")
        ]
        for i, p in enumerate(ranked[:LEADERBOARD_SIZE], start=1):
            lines.append(
                t(
                    lang,
                    "{place}. {player} — rating {rating}, {games}, {wins}, average {average}",
                    place=i,
                    player=_stat_name(lang, p.key),
                    rating=_decimal(lang, p.rating),
                    games=tn(lang, "{n} game", "{n} games", p.games),
                    wins=tn(lang, "{n} win", "{n} wins", p.wins),
                    average=_decimal(lang, p.average),
                )
            )
        lines.append(
            tn(
                lang,
                "Players with at least {n} finished game.",
                "Players with at least {n} finished games.",
                LEADERBOARD_MIN_GAMES,
            )
        )
        return "\n".join(lines)

    async def _players(self, guild_id: int | None) -> dict[PlayerKey, PlayerStats]:
        """The server's stats, brought up to date with the stored results."""
        await self.record_results()  # a game that ended a moment ago counts already
        lock = self._rating_locks.setdefault(guild_id, asyncio.Lock())
        async with lock:
            cached = self._ratings.get(guild_id) or _Ratings()
            version = await self._store.results_version(guild_id)
            if version == cached.version:
                return cached.players
            results = await self._store.results(guild_id)
            fresh = [r for r in results if (r.finished_at, r.game_id) > cached.last]
            if cached.version != (0, 0) and len(results) != cached.version[0] + len(fresh):
                cached, fresh = _Ratings(), results  # an older result arrived late: start over
            players = {k: _copy(v) for k, v in cached.players.items()}
            await asyncio.to_thread(_rate, players, fresh)
            last = (fresh[-1].finished_at, fresh[-1].game_id) if fresh else cached.last
            self._ratings[guild_id] = _Ratings(version, players, last)
            return players

    # -- /torres settings and turn notices by DM ---------------------------------------

    async def settings(self, *, user_id: int, dm: bool | None = None, lang: str = DEFAULT) -> str:
        """Change the settings given, and say what they all are now."""
        current = await self._store.user_settings(user_id)
        if dm is not None:
            # Turning DMs on (again) clears an old refusal: the next one is news.
            current = replace(current, dm=dm, dm_refused=False if dm else current.dm_refused)
            await self._save_settings(current)
        if dm is not None:
            lines = [t(lang, "**Your Torres settings** (saved)")]
        else:
            lines = [t(lang, "**Your Torres settings**")]
        if current.dm:
            lines.append(
                t(
                    lang,
                    "• `dm`: on — when it becomes your turn I send you a direct message with a "
                    "link to the game and its picture, instead of pinging you in the channel.",
                )
            )
        else:
            lines.append(
                t(
                    lang,
                    "• `dm`: off — I ping you in the game's channel when it is your turn "
                    "(`/torres settings dm:True` sends a direct message instead).",
                )
            )
        away = current.away_until
        if away is not None and away > self._clock():
            lines.append(
                t(
                    lang,
                    "• away until {time} (`/torres away days:0` ends it).",
                    time=f"<t:{int(away)}:f>",
                )
            )
        return "\n".join(lines)

    async def _user_settings(self, user_id: int) -> UserSettings:
        """A user's settings, from memory if read or written here in the last
        ``SETTINGS_FRESH`` seconds. A change made by another process (another shard)
        shows here that much later at most; this process's own changes at once."""
        known = self._settings.get(user_id)
        if known is not None and time.monotonic() - known[0] < SETTINGS_FRESH:
            return known[1]
        return self._remember(await self._store.user_settings(user_id))

    def _remember(self, settings: UserSettings) -> UserSettings:
        self._settings[settings.user_id] = (time.monotonic(), settings)
        return settings

    async def _save_settings(self, settings: UserSettings) -> None:
        self._settings.pop(settings.user_id, None)  # unknown until the write is done
        await self._store.set_user_settings(settings)
        self._remember(settings)

    async def wants_dm(self, user_id: int) -> bool:
        return (await self._user_settings(user_id)).dm

    async def dm_refused(self, user_id: int) -> None:
        """Remember that a turn notice could not be sent by DM, to tell the user once."""
        current = await self._store.user_settings(user_id)
        if not current.dm_refused:
            await self._save_settings(replace(current, dm_refused=True))

    async def pending_notice(self, user_id: int, lang: str = DEFAULT) -> str | None:
        """What the user must hear once, privately, at their next command (then forgotten).

        *lang* is the user's (the command's ``interaction.locale``).
        """
        if not (await self._user_settings(user_id)).dm_refused:
            return None
        current = await self._store.user_settings(user_id)  # read again: it changes once
        if not current.dm_refused:
            self._remember(current)
            return None
        await self._save_settings(replace(current, dm_refused=False))
        return t(
            lang,
            "I could not send you a direct message about your turn: Discord refused it "
            "(your direct messages are closed to me). I pinged you in the game's channel "
            "instead. Allow direct messages from this server's members in its Privacy "
            "Settings, or turn DM notices off with `/torres settings dm:False`.",
        )

    # -- clocks and away periods -----------------------------------------------------------

    async def set_clock(self, game_id: int, hours: int) -> str:
        """Give a new game a time per turn; the line that says so in the lobby message.

        The line speaks the game's language, as the lobby message does.
        """
        seconds = hours * 3600 * self._clock_scale
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
        now = self._clock()
        out = []
        for row, seconds, since in await self._store.clocked_games():
            seats = await self._store.seats(row.id)
            mover = _waiting_on(row, seats)
            if mover is None or mover.is_ai or mover.user_id is None or mover.name is None:
                continue
            settings = await self._store.user_settings(mover.user_id)
            away = settings.away_until or 0.0
            if away > now or now < max(since, away) + seconds:
                continue  # away: the clock waits; back: the turn's time starts again
            twice = await self._timed_out_before(row, mover.name)
            # A public post: the game's language.
            lang = row.language
            note = t(
                lang,
                "⏰ {player}'s time for this turn ({time}) ran out in game #{game}: "
                "the computer plays it for them.",
                player=f"<@{mover.user_id}>",
                time=_duration(lang, seconds),
                game=row.id,
            )
            if twice:
                note += " " + t(
                    lang,
                    "That is twice in a row, so the computer takes over their seat; "
                    "{player} can come back with `/torres join` in this channel.",
                    player=f"<@{mover.user_id}>",
                )
            outcome = await service.play_for(row.id, turn=row.turn_no, note=note)
            if outcome is None:
                continue
            if twice:
                await self._store.set_seat_ai(row.id, mover.name, True)
                outcome.ai_game = row.id
            out.append(outcome)
        return out

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
        row = await self._store.active_game(channel_id)
        if row is None:  # a channel whose games play in threads: its one game, if just one
            here = await self._store.lobby_games(channel_id)
            row = here[0] if len(here) == 1 else None
        if row is None or row.status != "running":
            return None
        seats = await self._store.seats(row.id)
        seat = next((s for s in seats if s.user_id == user.id), None)
        if seat is None or seat.name is None or not seat.is_ai or seat.resigned:
            return None
        await self._store.set_seat_ai(row.id, seat.name, False)
        text = t(
            row.language,
            "{player} is back in game #{game} and plays {seat} again.",
            player=texts.shown_name(user.display),
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
                    player=texts.shown_name(user.display),
                    game=row.id,
                )
            else:
                text = t(
                    row.language,
                    "{player} is away until {time}: their clock and reminders in game #{game} "
                    "are paused until then.",
                    player=texts.shown_name(user.display),
                    time=f"<t:{int(until)}:f>",
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
                time=f"<t:{int(until)}:f>",
            )
        return Outcome(reply=reply, posts=posts)

    # -- internals ---------------------------------------------------------------------

    async def _pick(
        self, lang: str, channel_id: int, guild_id: int | None, game_id: int | None
    ) -> GameRow:
        """The game numbered *game_id* on this server; without a number, this channel's."""
        if game_id is None:
            row = await self._store.active_game(channel_id)
            if row is None:
                past = await self._store.past_games(channel_id=channel_id, limit=1)
                row = past[0] if past else None
            if row is None:
                raise NoGame(
                    t(
                        lang,
                        "There is no Torres game in this channel, running or finished. "
                        "`/torres history` lists the server's games; pick one with `game:N`.",
                    )
                )
            return row
        row = await self._store.game(game_id)
        if row is None or row.guild_id != guild_id:
            raise NoGame(
                t(
                    lang,
                    "There is no game #{game} on this server (`/torres history` lists them).",
                    game=game_id,
                )
            )
        return row

    async def _record(
        self, row: GameRow, seats: Sequence[SeatRow], *, headers: bool = False
    ) -> Record:
        log = [
            (a.kind, a.action)
            for a in await self._store.actions(row.id)
            if a.kind in ("play", "undo")
        ]
        players = [s.name for s in seats if s.name is not None]
        head: dict[str, Any] = {}
        if headers:
            started = min((s.joined_at for s in seats), default=row.created_at)
            head = {
                "Game": row.id,
                "Server": row.guild_id if row.guild_id is not None else "-",
                "Channel": row.channel_id,
                "Started": _date(started),
                "Finished": _date(row.updated_at),
            }
            stand_ins = (row.result or {}).get("stand_ins") or ()
            for s in seats:
                if s.name is not None:
                    head[f"Name {s.name}"] = _record_name(s, stand_ins)
            head["Result"] = _result_text(DEFAULT, row, seats)  # records stay in English
        try:
            return record_from_log(
                variant=row.variant, seed=row.seed, players=players, log=log, headers=head
            )
        except RecordError as exc:  # the log is the service's own: this is a bug
            raise RuntimeError(f"game {row.id}: its log makes no record: {exc}") from exc


_RUNNING_EXPORT = N_(
    "Game #{game} is still going: a record is exported once the game is over, because its "
    "seed gives away the order of the cards. `/torres board decision:K` shows earlier positions."
)


def _waiting_on(row: GameRow, seats: Sequence[SeatRow]) -> SeatRow | None:
    if row.status != "running" or row.position is None:
        return None
    to_move = row.position.get("to_move")
    return next((s for s in seats if s.name is not None and s.name == to_move), None)


def _game_line(
    lang: str,
    row: GameRow,
    since: float,
    seats: Sequence[SeatRow],
    mover: SeatRow | None,
    user_id: int,
) -> str:
    channel = f"<#{row.channel_id}>"
    began = f"<t:{int(since)}:R>"
    if row.status == "open":
        return t(
            lang,
            "• #{game} in {channel}: waiting to start ({joined}/{wanted} players joined), "
            "opened {since}",
            game=row.id,
            channel=channel,
            joined=len(seats),
            wanted=row.seats_wanted - row.bots,
            since=began,
        )
    mine = next((s for s in seats if s.user_id == user_id), None)
    colour = f" ({texts.dotted(mine.name, lang)})" if mine and mine.name else ""
    where = f"#{row.id}{colour}"
    if mover is None:
        return t(
            lang, "• {game} in {channel}, since {since}", game=where, channel=channel, since=began
        )
    if mover.user_id == user_id:
        return t(
            lang,
            "• {game} in {channel}: **your turn**, since {since}",
            game=where,
            channel=channel,
            since=began,
        )
    if mover.is_ai:
        return t(
            lang,
            "• {game} in {channel}: the computer is thinking, since {since}",
            game=where,
            channel=channel,
            since=began,
        )
    return t(
        lang,
        "• {game} in {channel}: {player}'s turn, since {since}",
        game=where,
        channel=channel,
        player=texts.shown_name(mover.display),
        since=began,
    )


def _history_line(lang: str, row: GameRow, seats: Sequence[SeatRow]) -> str:
    return t(
        lang,
        "• #{game} in {channel}, {date}: {result}",
        game=row.id,
        channel=f"<#{row.channel_id}>",
        date=f"<t:{int(row.updated_at)}:d>",
        result=_result_text(lang, row, seats),
    )


def _ranks(result: dict[str, Any], seats: Sequence[SeatRow]) -> dict[str, int]:
    """Each seat's place in a finished game as stats and ratings count it (1: won).

    A seat whose player left shares the last place: the one who resigned to end the
    game, those who resigned before (the computer finished their seats), and the seats
    the computer played for their players while someone really played
    (``stand_ins_count``). The others are placed by the engine's result, then by score
    (docs/bot.md, "Ratings").
    """
    scores = {str(k): int(v) for k, v in (result.get("scores") or {}).items()}
    winners = {str(w) for w in result.get("winners") or ()}
    gone = {s.name or "?" for s in seats if s.resigned}
    if result.get("reason") == "resigned":
        gone.add(str(result.get("by")))
    stand_ins = {str(n) for n in result.get("stand_ins") or ()}
    if stand_ins_count(seats, stand_ins):
        gone |= stand_ins

    def key(name: str) -> tuple[bool, bool, int]:
        if name in gone:
            return (False, False, 0)
        return (True, name in winners, scores.get(name, 0))

    names = [s.name or "?" for s in seats]
    return {n: 1 + sum(1 for o in names if key(o) > key(n)) for n in names}


def _result_text(lang: str, row: GameRow, seats: Sequence[SeatRow]) -> str:
    """How a game ended, with the scores, highest first; when the computer played
    seats for their players and someone really played, the winner as it counts."""
    result = row.result or {}
    scores = {str(k): int(v) for k, v in (result.get("scores") or {}).items()}
    by_name = {s.name: s for s in seats if s.name is not None}
    winners = [str(w) for w in result.get("winners") or ()]
    reason = result.get("reason")
    stand_ins = {str(n) for n in result.get("stand_ins") or ()}
    resigners = {n for n, s in by_name.items() if s.resigned and n != result.get("by")}
    losses = resigners | (stand_ins if stand_ins_count(by_name.values(), stand_ins) else set())
    if losses and reason == "finished":
        ranks = _ranks(result, list(by_name.values()))
        winners = [p for p in scores if ranks.get(p) == 1]
    ordered = sorted(scores, key=lambda p: (p not in winners, p in losses, -scores[p]))
    table = ", ".join(f"{_plain(lang, by_name.get(p), p, stand_ins)} {scores[p]}" for p in ordered)
    if reason == "finished":
        if len(winners) == 1:
            text = t(
                lang,
                "{player} won ({scores})",
                player=_plain(lang, by_name.get(winners[0]), winners[0], stand_ins),
                scores=table,
            )
        else:
            together = format_list(
                [_plain(lang, by_name.get(w), w, stand_ins) for w in winners], locale=lang
            )
            text = t(lang, "shared victory of {players} ({scores})", players=together, scores=table)
        return text + _resigned(lang, by_name, resigners) + _not_counted(lang, by_name, stand_ins)
    if reason == "resigned":
        by = str(result.get("by"))
        text = t(
            lang,
            "ended when {player} resigned ({scores})",
            player=_plain(lang, by_name.get(by), by),
            scores=table,
        )
        return text + _resigned(lang, by_name, resigners) + _not_counted(lang, by_name, stand_ins)
    if reason == "cancelled":
        if table:
            return t(lang, "cancelled ({scores})", scores=table)
        return t(lang, "cancelled before it started")
    return table or t(lang, "ended")


def _plain(lang: str, seat: SeatRow | None, name: str, stand_ins: Collection[str] = ()) -> str:
    """A seat in a result: the player, the computer, or the computer for a player."""
    if seat is None:
        return name
    if seat.user_id is None:
        who = t(lang, "Computer")
    elif name in stand_ins:
        who = t(lang, "Computer (for {player})", player=texts.shown_name(seat.display))
    else:
        who = texts.shown_name(seat.display)
    return f"{who} ({texts.colour(name, lang)})"


def _people(lang: str, by_name: dict[str, SeatRow], names: Collection[str]) -> str:
    """The players of the seats *names*, with their colours, as a list in *lang*."""
    return format_list(
        [
            f"{texts.shown_name(s.display)} ({texts.colour(n, lang)})"
            for n, s in by_name.items()
            if n in names
        ],
        locale=lang,
    )


def _resigned(lang: str, by_name: dict[str, SeatRow], resigners: Collection[str]) -> str:
    """What a result line adds for players who resigned before the end (the computer
    finished their seats): a loss for them, however their seats scored."""
    if not resigners:
        return ""
    return " · " + t(
        lang, "a loss for {players}: they resigned", players=_people(lang, by_name, resigners)
    )


def _not_counted(lang: str, by_name: dict[str, SeatRow], stand_ins: Collection[str]) -> str:
    """What a result line adds when the computer played seats for their players."""
    if not stand_ins:
        return ""
    if stand_ins_count(by_name.values(), stand_ins):
        return " · " + t(
            lang,
            "a loss for {players}: the computer played most of their turns",
            players=_people(lang, by_name, stand_ins),
        )
    return " · " + t(lang, "not rated")


def _record_name(seat: SeatRow, stand_ins: Collection[str] = ()) -> str:
    """A seat's name in a game record's headers (records stay in English)."""
    if seat.user_id is None:
        return "Computer"
    if seat.name in stand_ins:
        return f"Computer (for {seat.display})"
    if seat.is_ai:
        return f"{seat.display} (then the computer)"
    return seat.display


def _date(ts: float) -> str:
    """A game record's date header (always this format: records are read by programs)."""
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _local_date(lang: str, ts: float) -> str:
    """A date and time for a reader of *lang*, in UTC (``14.11.2023, 22:13 UTC``)."""
    when = datetime.fromtimestamp(ts, UTC)
    return format_datetime(when, "short", tzinfo=UTC, locale=lang) + " UTC"


def _decimal(lang: str, value: float) -> str:
    """*value* with one decimal, as *lang* writes it (``2.5``, ``2,5``).

    Rounded as ``f"{value:.1f}"`` rounds, so every language shows the same digits.
    """
    return format_decimal(Decimal(f"{value:.1f}"), format="0.0", locale=lang)


def _percent(lang: str, share: float) -> str:
    """A share as a whole percentage, as *lang* writes it (``67%``, ``67 %``)."""
    return format_percent(Decimal(f"{100 * share:.0f}") / 100, locale=lang)


def _duration(lang: str, seconds: float) -> str:
    """A time per turn in words (``1 hour``, ``3 Tage``, ``7 dagen``), rounded to its unit."""
    return format_timedelta(seconds, threshold=1, locale=lang)


def turn_notice(lang: str, *, game_id: int, channel_id: int, jump_url: str) -> str:
    """The direct message telling a player it is their turn (in the game's language)."""
    return t(
        lang,
        "Your turn in Torres game #{game} in {channel}: {link}",
        game=game_id,
        channel=f"<#{channel_id}>",
        link=jump_url,
    )


def turn_ping(lang: str, *, user_id: int, game_id: int) -> str:
    """The channel ping instead of a turn DM that Discord refused (in the game's language)."""
    return t(
        lang,
        "{player}, it's your turn in game #{game} (I could not send you a direct message).",
        player=f"<@{user_id}>",
        game=game_id,
    )


def _key(seat: ResultSeat) -> PlayerKey | None:
    """Who a result's seat counts for; None: nobody (the computer played it for a person)."""
    if seat.user_id is not None:
        return None if seat.ai_level is not None else ("user", seat.user_id)
    return ("ai", seat.ai_level or "?")


def _copy(p: PlayerStats) -> PlayerStats:
    return PlayerStats(p.key, p.name, p.games, p.wins, p.points, p.mu, p.sigma)


def _rate(players: dict[PlayerKey, PlayerStats], results: Sequence[ResultRow]) -> None:
    """Add *results*, in order, to *players*: counts and Plackett–Luce ratings.

    Several computer seats of one level in one game are one player: each seat is
    rated from the level's rating before the game, and the level takes their mean.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    for result in results:
        # The seats that count (docs/bot.md, "Ratings"): a game needs two of them.
        counted = [(s, k) for s in result.seats if (k := _key(s)) is not None]
        if len(counted) < 2:
            continue
        seats = [s for s, _ in counted]
        keys = [k for _, k in counted]
        for s, k in counted:
            p = players.get(k)
            if p is None:
                p = players[k] = PlayerStats(k, "", mu=model.mu, sigma=model.sigma)
            p.name = _stat_name(DEFAULT, k)
            p.games += 1
            p.wins += s.rank == 1
            p.points += s.score
        teams = [[model.rating(mu=players[k].mu, sigma=players[k].sigma)] for k in keys]
        rated = model.rate(teams, ranks=[s.rank for s in seats])
        for k, group in itertools.groupby(
            sorted(zip(keys, (team[0] for team in rated), strict=True), key=lambda x: str(x[0])),
            key=lambda x: x[0],
        ):
            new = [r for _, r in group]
            players[k].mu = sum(r.mu for r in new) / len(new)
            players[k].sigma = sum(r.sigma for r in new) / len(new)


def _stat_name(lang: str, key: PlayerKey) -> str:
    """A player on the leaderboard: a mention, or the computer with its level."""
    kind, who = key
    if kind == "ai":
        return t(lang, "Computer ({level})", level=who)
    return f"<@{who}>"


def _ranked(players: dict[PlayerKey, PlayerStats]) -> list[PlayerStats]:
    eligible = [p for p in players.values() if p.games >= LEADERBOARD_MIN_GAMES]
    return sorted(eligible, key=lambda p: (-p.rating, -p.games, str(p.key)))
