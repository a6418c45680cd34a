"""A home for regular players: their games, past games, records, results, stats and ratings.

Everything here reads what the game service already stores (games, seats, the
action log) and adds one thing of its own: a ``results`` row for every game that
was played out, written once the game is over. Ratings are not stored: they are
recomputed from the results (openskill's Plackett–Luce model, per server), so the
model can change without touching the database; a per-server cache keeps the
answer quick and is brought up to date when results are added.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from bot import texts
from bot.errors import NoGame, NotAllowed
from bot.service import (
    BoardView,
    GameService,
    Outcome,
    Post,
    User,
    picture_labels,
    public_action,
)
from bot.storage import GameStore
from bot.store import GameRow, ResultRow, ResultSeat, SeatRow
from engine import changed_squares
from engine.record import Record, RecordError, format_record, record_from_log, replay

LEADERBOARD_SIZE = 10
LEADERBOARD_MIN_GAMES = 3
_LIST_LIMIT = 15  # games shown by /torres games and /torres history
CLOCK_NAMES = {1: "1 hour", 24: "1 day", 72: "3 days", 168: "7 days"}
"""The times per turn ``/torres new clock:`` offers, in hours."""

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

    # -- /torres games ---------------------------------------------------------------

    async def my_games(self, *, user_id: int, guild_id: int | None) -> str:
        """The caller's unfinished games: this server's first, those waiting for them first.

        Games on other servers the bot shares with the caller are listed by channel
        link only (Discord shows the caller the channel's name, as they are a member
        there): nothing names another server to anyone.
        """
        found = await self._store.user_games(user_id)
        if not found:
            return (
                "You have no unfinished Torres games. Open one with `/torres new`, "
                "or join an open one with `/torres join` in its channel."
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
        head = f"**Your Torres games** ({len(entries)} unfinished"
        head += f", your turn in {my_turn})" if my_turn else ")"
        lines.append(head)
        shown = 0
        for group, title in ((here, None), (elsewhere, "On other servers:")):
            if not group:
                continue
            if title and here:
                lines.append(title)
            for row, since, seats, mover in sorted(group, key=order):
                if shown >= _LIST_LIMIT:
                    break
                lines.append(
                    _game_line(row, since, seats, mover, user_id) + await self._extras(row, since)
                )
                shown += 1
        if shown < len(entries):
            lines.append(f"…and {len(entries) - shown} more.")
        return "\n".join(lines)

    async def _extras(self, row: GameRow, since: float) -> str:
        """A running game's clock deadline and a jump link to its latest turn message."""
        if row.status != "running":
            return ""
        out = ""
        seconds = await self._store.turn_clock(row.id)
        if seconds is not None:
            out += f", ⏰ <t:{int(since + seconds)}:R>"
        # bot.app keeps the latest turn message as "channel:message" (to retire its buttons).
        latest = await self._store.get_meta(f"turn_message:{row.id}")
        if latest and row.guild_id is not None:
            channel_id, _, message_id = latest.partition(":")
            url = f"https://discord.com/channels/{row.guild_id}/{channel_id}/{message_id}"
            out += f" — [latest turn]({url})"
        return out

    # -- /torres history -------------------------------------------------------------

    async def history(self, *, channel_id: int, guild_id: int | None) -> str:
        """This channel's ended games, or the server's if the channel has none."""
        rows = await self._store.past_games(channel_id=channel_id, limit=_LIST_LIMIT)
        where = "in this channel"
        if not rows:
            rows = await self._store.past_games(guild_id=guild_id, limit=_LIST_LIMIT)
            where = "on this server"
        if not rows:
            return "No Torres game has ended on this server yet."
        lines = [f"**Finished Torres games {where}** (newest first)"]
        for row in rows:
            seats = await self._store.seats(row.id)
            lines.append(_history_line(row, seats))
        lines.append(
            "See one with `/torres board game:N` (add `decision:K` for an earlier position) "
            "or get its record with `/torres export game:N`."
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
    ) -> BoardView:
        """Any position of a game of this server, as the asking player may see it.

        Without a game number: the channel's running game, else its last ended one.
        Decisions are numbered as in the game's record (0 is the start).
        """
        row = await self._pick(channel_id, guild_id, game_id)
        if row.initial is None:
            raise NotAllowed(f"Game #{row.id} hasn't started yet: there is no board to show.")
        seats = await self._store.seats(row.id)
        record = await self._record(row, seats)
        total = len(record.decisions)
        if decision is not None and not 0 <= decision <= total:
            raise NotAllowed(
                f"Game #{row.id} has decisions 0 (the start) to {total}; "
                f"there is no decision {decision}."
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
        text = texts.status_line(row.id, game, seats)
        if upto < total or row.status != "running":
            if upto == 0:
                text = f"Game #{row.id} at the start (decision 0 of {total}). {text}"
            else:
                d = record.decisions[upto - 1]
                actions = "; ".join(public_action(a) for a in d.actions)
                text = (
                    f"Game #{row.id}, decision {upto} of {total}: {d.player} `{actions}`.\n" + text
                )
        if row.status == "cancelled":
            text = f"Game #{row.id} was cancelled ({_date(row.updated_at)}).\n" + text
        highlight = frozenset(changed_squares(before.position(), game.position()))
        return BoardView(
            text=text,
            position=game.position(),
            viewer=viewer,
            highlight=highlight,
            labels=picture_labels(seats),
        )

    # -- /torres export --------------------------------------------------------------

    async def export(self, *, channel_id: int, guild_id: int | None, game_id: int | None) -> Export:
        """The record of an ended game, as a text file (docs/notation.md, "Game records").

        A running game is refused: the record's seed gives away the order of the deck.
        """
        if game_id is None:
            active = await self._store.active_game(channel_id)
            past = await self._store.past_games(channel_id=channel_id, limit=1)
            if not past:
                if active is not None:
                    raise NotAllowed(_RUNNING_EXPORT.format(id=active.id))
                raise NoGame(
                    "No Torres game has ended in this channel. Name one with "
                    "`/torres export game:N` (`/torres history` lists them)."
                )
            row = past[0]
        else:
            row = await self._pick(channel_id, guild_id, game_id)
        if row.status in ("open", "running"):
            raise NotAllowed(_RUNNING_EXPORT.format(id=row.id))
        if row.initial is None:
            raise NotAllowed(f"Game #{row.id} was cancelled before it started: it has no record.")
        seats = await self._store.seats(row.id)
        record = await self._record(row, seats, headers=True)
        text = format_record(record)
        return Export(
            filename=f"torres-game-{row.id}.txt",
            text=text,
            reply=(
                f"The record of game #{row.id} ({len(record.decisions)} decisions). "
                "Replay it with `python -m engine replay FILE`."
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
        winners = set(result.get("winners") or ())
        resigned_by = result.get("by") if result.get("reason") == "resigned" else None

        def key(s: SeatRow) -> tuple[int, int, int]:
            return (s.name != resigned_by, s.name in winners, scores.get(s.name or "", 0))

        placed = [s for s in seats if s.name is not None]
        out = []
        for s in placed:
            rank = 1 + sum(1 for o in placed if key(o) > key(s))
            out.append(
                ResultSeat(
                    seat=s.seat,
                    name=s.name or "?",
                    user_id=s.user_id,
                    display="Computer" if s.user_id is None else s.display,
                    ai_level=self._ai_level if s.user_id is None else None,
                    score=scores.get(s.name or "", 0),
                    rank=rank,
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

    async def stats(self, *, guild_id: int | None, user_id: int, name: str) -> str:
        """A player's games, wins, average score and rating on this server."""
        players = await self._players(guild_id)
        p = players.get(("user", user_id))
        if p is None or not p.games:
            return f"{name} has no finished Torres games on this server yet."
        ranked = _ranked(players)
        place = next((i for i, q in enumerate(ranked, start=1) if q.key == p.key), None)
        where = (
            f", #{place} of {len(ranked)} on the leaderboard"
            if place is not None
            else f" (on the leaderboard after {LEADERBOARD_MIN_GAMES} games)"
        )
        return (
            f"**{name}** on this server: {p.games} game{'s' if p.games != 1 else ''}, "
            f"{p.wins} win{'s' if p.wins != 1 else ''} ({100 * p.wins / p.games:.0f}%), "
            f"average score {p.average:.1f}.\n"
            f"Rating {p.rating:.1f} (skill {p.mu:.1f} ± {p.sigma:.1f}){where}."
        )

    async def leaderboard(self, *, guild_id: int | None) -> str:
        """The server's top players by rating, the computer's levels among them."""
        ranked = _ranked(await self._players(guild_id))
        if not ranked:
            return (
                f"Nobody has {LEADERBOARD_MIN_GAMES} finished games on this server yet; "
                "the leaderboard fills as games end."
            )
        lines = ["**Torres leaderboard** (rating = skill − 3 × uncertainty; Plackett–Luce)"]
        for i, p in enumerate(ranked[:LEADERBOARD_SIZE], start=1):
            lines.append(
                f"{i}. {p.name} — rating {p.rating:.1f}, {p.games} games, {p.wins} wins, "
                f"average {p.average:.1f}"
            )
        lines.append(f"Players with at least {LEADERBOARD_MIN_GAMES} finished games.")
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

    async def settings(self, *, user_id: int, dm: bool | None = None) -> str:
        """Change the settings given, and say what they all are now."""
        current = await self._store.user_settings(user_id)
        if dm is not None:
            # Turning DMs on (again) clears an old refusal: the next one is news.
            current = replace(current, dm=dm, dm_refused=False if dm else current.dm_refused)
            await self._store.set_user_settings(current)
        lines = ["**Your Torres settings**" + (" (saved)" if dm is not None else "")]
        if current.dm:
            lines.append(
                "• `dm`: on — when it becomes your turn I send you a direct message with a "
                "link to the game and its picture, instead of pinging you in the channel."
            )
        else:
            lines.append(
                "• `dm`: off — I ping you in the game's channel when it is your turn "
                "(`/torres settings dm:True` sends a direct message instead)."
            )
        away = current.away_until
        if away is not None and away > self._clock():
            lines.append(f"• away until <t:{int(away)}:f> (`/torres away days:0` ends it).")
        return "\n".join(lines)

    async def wants_dm(self, user_id: int) -> bool:
        return (await self._store.user_settings(user_id)).dm

    async def dm_refused(self, user_id: int) -> None:
        """Remember that a turn notice could not be sent by DM, to tell the user once."""
        current = await self._store.user_settings(user_id)
        if not current.dm_refused:
            await self._store.set_user_settings(replace(current, dm_refused=True))

    async def pending_notice(self, user_id: int) -> str | None:
        """What the user must hear once, privately, at their next command (then forgotten)."""
        current = await self._store.user_settings(user_id)
        if not current.dm_refused:
            return None
        await self._store.set_user_settings(replace(current, dm_refused=False))
        return (
            "I could not send you a direct message about your turn: Discord refused it "
            "(your direct messages are closed to me). I pinged you in the game's channel "
            "instead. Allow direct messages from this server's members in its Privacy "
            "Settings, or turn DM notices off with `/torres settings dm:False`."
        )

    # -- clocks and away periods -----------------------------------------------------------

    async def set_clock(self, game_id: int, hours: int) -> str:
        """Give a new game a time per turn; the line that says so in the lobby message."""
        seconds = hours * 3600 * self._clock_scale
        # Three reminders inside the time, at a quarter, half and three quarters of it.
        await self._store.set_turn_clock(game_id, seconds, seconds / 4)
        return (
            f"Time per turn: {CLOCK_NAMES.get(hours, f'{hours} hours')}. When it runs out the "
            "computer plays that turn; after two such turns in a row it takes the seat "
            "(its player gets it back with `/torres join`)."
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
            note = (
                f"⏰ <@{mover.user_id}>'s time for this turn ({texts.duration(seconds)}) ran out "
                f"in game #{row.id}: the computer plays it for them."
            )
            if twice:
                note += (
                    " That is twice in a row, so the computer takes over their seat; "
                    f"<@{mover.user_id}> can come back with `/torres join` in this channel."
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
        if row is None or row.status != "running":
            return None
        seats = await self._store.seats(row.id)
        seat = next((s for s in seats if s.user_id == user.id), None)
        if seat is None or seat.name is None or not seat.is_ai or seat.resigned:
            return None
        await self._store.set_seat_ai(row.id, seat.name, False)
        text = f"{user.display} is back in game #{row.id} and plays {seat.name} again."
        return Outcome(
            reply=f"You're back in your seat ({seat.name}) in game #{row.id}.",
            posts=[Post(row.channel_id, row.id, text)],
        )

    async def away(self, *, user: User, days: int) -> Outcome:
        """Pause the user's clocks and reminders in all their games for *days* (0: back now)."""
        now = self._clock()
        current = await self._store.user_settings(user.id)
        until = now + days * 86400 * self._clock_scale if days else None
        await self._store.set_user_settings(replace(current, away_until=until))
        posts = []
        for row, _ in await self._store.user_games(user.id):
            if row.status != "running":
                continue
            if until is None:
                text = f"{user.display} is back: their clock and reminders in game #{row.id} run again."
            else:
                text = (
                    f"{user.display} is away until <t:{int(until)}:f>: their clock and "
                    f"reminders in game #{row.id} are paused until then."
                )
            posts.append(Post(row.channel_id, row.id, text))
        if until is None:
            reply = "Welcome back: your clocks and reminders run again."
        else:
            reply = (
                f"You're away until <t:{int(until)}:f>: your clocks and reminders are paused in "
                f"{len(posts)} running game{'s' if len(posts) != 1 else ''}. "
                "`/torres away days:0` ends it sooner."
            )
        return Outcome(reply=reply, posts=posts)

    # -- internals ---------------------------------------------------------------------

    async def _pick(self, channel_id: int, guild_id: int | None, game_id: int | None) -> GameRow:
        """The game numbered *game_id* on this server; without a number, this channel's."""
        if game_id is None:
            row = await self._store.active_game(channel_id)
            if row is None:
                past = await self._store.past_games(channel_id=channel_id, limit=1)
                row = past[0] if past else None
            if row is None:
                raise NoGame(
                    "There is no Torres game in this channel, running or finished. "
                    "`/torres history` lists the server's games; pick one with `game:N`."
                )
            return row
        row = await self._store.game(game_id)
        if row is None or row.guild_id != guild_id:
            raise NoGame(
                f"There is no game #{game_id} on this server (`/torres history` lists them)."
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
            for s in seats:
                if s.name is not None:
                    head[f"Name {s.name}"] = _record_name(s)
            head["Result"] = _result_text(row, seats)
        try:
            return record_from_log(
                variant=row.variant, seed=row.seed, players=players, log=log, headers=head
            )
        except RecordError as exc:  # the log is the service's own: this is a bug
            raise RuntimeError(f"game {row.id}: its log makes no record: {exc}") from exc


_RUNNING_EXPORT = (
    "Game #{id} is still going: a record is exported once the game is over, because its "
    "seed gives away the order of the cards. `/torres board decision:K` shows earlier positions."
)


def _waiting_on(row: GameRow, seats: Sequence[SeatRow]) -> SeatRow | None:
    if row.status != "running" or row.position is None:
        return None
    to_move = row.position.get("to_move")
    return next((s for s in seats if s.name is not None and s.name == to_move), None)


def _game_line(
    row: GameRow, since: float, seats: Sequence[SeatRow], mover: SeatRow | None, user_id: int
) -> str:
    where = f"<#{row.channel_id}>"
    if row.status == "open":
        return (
            f"• #{row.id} in {where}: waiting to start ({len(seats)}/"
            f"{row.seats_wanted - row.bots} players joined), opened <t:{int(since)}:R>"
        )
    mine = next((s for s in seats if s.user_id == user_id), None)
    colour = f" ({texts.colour_dot(mine.name)} {mine.name})" if mine and mine.name else ""
    if mover is None:
        whose = "?"
    elif mover.user_id == user_id:
        whose = "**your turn**"
    elif mover.is_ai:
        whose = "the computer is thinking"
    else:
        whose = f"{mover.display}'s turn"
    return f"• #{row.id}{colour} in {where}: {whose}, since <t:{int(since)}:R>"


def _history_line(row: GameRow, seats: Sequence[SeatRow]) -> str:
    return f"• #{row.id} in <#{row.channel_id}>, <t:{int(row.updated_at)}:d>: " + _result_text(
        row, seats
    )


def _result_text(row: GameRow, seats: Sequence[SeatRow]) -> str:
    """How a game ended, with the scores, highest first."""
    result = row.result or {}
    scores = {str(k): int(v) for k, v in (result.get("scores") or {}).items()}
    by_name = {s.name: s for s in seats if s.name is not None}
    winners = [str(w) for w in result.get("winners") or ()]
    reason = result.get("reason")
    ordered = sorted(scores, key=lambda p: (p not in winners, -scores[p]))
    table = ", ".join(f"{_plain(by_name.get(p), p)} {scores[p]}" for p in ordered)
    if reason == "finished":
        if len(winners) == 1:
            head = f"{_plain(by_name.get(winners[0]), winners[0])} won"
        else:
            head = "shared victory of " + " and ".join(_plain(by_name.get(w), w) for w in winners)
        return f"{head} ({table})"
    if reason == "resigned":
        by = str(result.get("by"))
        return f"ended when {_plain(by_name.get(by), by)} resigned ({table})"
    if reason == "cancelled":
        return "cancelled" + (f" ({table})" if table else " before it started")
    return table or "ended"


def _plain(seat: SeatRow | None, name: str) -> str:
    if seat is None:
        return name
    who = "Computer" if seat.user_id is None else seat.display
    return f"{who} ({name})"


def _record_name(seat: SeatRow) -> str:
    if seat.user_id is None:
        return "Computer"
    if seat.is_ai:
        return f"{seat.display} (then the computer)"
    return seat.display


def _date(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M UTC")


def _key(seat: ResultSeat) -> PlayerKey:
    if seat.user_id is not None:
        return ("user", seat.user_id)
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
        keys = [_key(s) for s in result.seats]
        for s, k in zip(result.seats, keys, strict=True):
            p = players.get(k)
            if p is None:
                p = players[k] = PlayerStats(k, "", mu=model.mu, sigma=model.sigma)
            p.name = _stat_name(s)
            p.games += 1
            p.wins += s.rank == 1
            p.points += s.score
        if len(result.seats) < 2:
            continue
        teams = [[model.rating(mu=players[k].mu, sigma=players[k].sigma)] for k in keys]
        rated = model.rate(teams, ranks=[s.rank for s in result.seats])
        for k, group in itertools.groupby(
            sorted(zip(keys, (t[0] for t in rated), strict=True), key=lambda x: str(x[0])),
            key=lambda x: x[0],
        ):
            new = [r for _, r in group]
            players[k].mu = sum(r.mu for r in new) / len(new)
            players[k].sigma = sum(r.sigma for r in new) / len(new)


def _stat_name(seat: ResultSeat) -> str:
    if seat.user_id is None:
        return f"Computer ({seat.ai_level or '?'})"
    return f"<@{seat.user_id}>"


def _ranked(players: dict[PlayerKey, PlayerStats]) -> list[PlayerStats]:
    eligible = [p for p in players.values() if p.games >= LEADERBOARD_MIN_GAMES]
    return sorted(eligible, key=lambda p: (-p.rating, -p.games, str(p.key)))
