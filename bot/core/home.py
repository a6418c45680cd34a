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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bot.core.clocks import AWAY_DAYS, CLOCK_NAMES, Clocks
from bot.core.errors import NoGame, NotAllowed
from bot.core.past_games import server_game, stored_record
from bot.core.ratings import PlayerStats, Ratings
from bot.core.service import (
    BoardView,
    picture_labels,
    public_action,
)
from bot.core.settings import SETTINGS_FRESH
from bot.db.rows import GameRow, SeatRow
from bot.texts import posts as texts
from bot.texts.home_words import (
    _date,
    _game_line,
    _history_line,
    _local_date,
    _record_name,
    _result_text,
    _waiting_on,
    turn_notice,
    turn_ping,
)
from bot.texts.i18n import DEFAULT, N_, t, tn
from bot.texts.markup import timestamp
from engine import changed_squares
from engine.record import Record, RecordError, format_record, replay

__all__ = [
    "AWAY_DAYS",
    "CLOCK_NAMES",
    "SETTINGS_FRESH",
    "Export",
    "HomeService",
    "PlayerStats",
    "turn_notice",
    "turn_ping",
]


_LIST_LIMIT = 15  # games shown by /torres games and /torres history


@dataclass(frozen=True, slots=True)
class Export:
    """A game record ready to attach."""

    filename: str
    text: str
    reply: str


_RUNNING_EXPORT = N_(
    "Game #{game} is still going: a record is exported once the game is over, because its "
    "seed gives away the order of the cards. `/torres board decision:K` shows earlier positions."
)


class HomeService(Clocks, Ratings):
    """Players' games, history, export, results and ratings (see the module doc)."""

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
            out += f", ⏰ {timestamp(since + seconds)}"
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
        return await server_game(self._store, lang, game_id, guild_id)

    async def _record(
        self, row: GameRow, seats: Sequence[SeatRow], *, headers: bool = False
    ) -> Record:
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
            return await stored_record(self._store, row, seats, head)
        except RecordError as exc:  # the log is the service's own: this is a bug
            raise RuntimeError(f"game {row.id}: its log makes no record: {exc}") from exc
