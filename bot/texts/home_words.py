"""The home's words: a player's game lines, history lines, results in words, records'
names, dates, numbers and durations in the reader's language, and the turn notices."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from babel.dates import format_datetime, format_timedelta
from babel.lists import format_list
from babel.numbers import format_decimal, format_percent

from bot.db.rows import GameRow, SeatRow
from bot.texts import posts as texts
from bot.texts.i18n import t
from bot.texts.markup import channel_link, mention, shown_name, timestamp
from bot.texts.posts import stand_ins_count

PlayerKey = tuple[str, int | str]
"""``("user", id)`` for a person, ``("ai", level)`` for the computer at a level."""


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
    channel = channel_link(row.channel_id)
    began = timestamp(since)
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
        player=shown_name(mover.display),
        since=began,
    )


def _history_line(lang: str, row: GameRow, seats: Sequence[SeatRow]) -> str:
    return t(
        lang,
        "• #{game} in {channel}, {date}: {result}",
        game=row.id,
        channel=channel_link(row.channel_id),
        date=timestamp(row.updated_at, "d"),
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
        who = t(lang, "Computer (for {player})", player=shown_name(seat.display))
    else:
        who = shown_name(seat.display)
    return f"{who} ({texts.colour(name, lang)})"


def _people(lang: str, by_name: dict[str, SeatRow], names: Collection[str]) -> str:
    """The players of the seats *names*, with their colours, as a list in *lang*."""
    return format_list(
        [
            f"{shown_name(s.display)} ({texts.colour(n, lang)})"
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
    return format_timedelta(timedelta(seconds=seconds), threshold=1, locale=lang)


def turn_notice(lang: str, *, game_id: int, channel_id: int, jump_url: str) -> str:
    """The direct message telling a player it is their turn (in the game's language)."""
    return t(
        lang,
        "Your turn in Torres game #{game} in {channel}: {link}",
        game=game_id,
        channel=channel_link(channel_id),
        link=jump_url,
    )


def turn_ping(lang: str, *, user_id: int, game_id: int) -> str:
    """The channel ping instead of a turn DM that Discord refused (in the game's language)."""
    return t(
        lang,
        "{player}, it's your turn in game #{game} (I could not send you a direct message).",
        player=mention(user_id),
        game=game_id,
    )


def _stat_name(lang: str, key: PlayerKey) -> str:
    """A player on the leaderboard: a mention, or the computer with its level."""
    kind, who = key
    if kind == "ai":
        return t(lang, "Computer ({level})", level=who)
    return mention(who)
