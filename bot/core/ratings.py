"""Results and ratings: a ``results`` row for every game played out, and openskill's
Plackett–Luce ratings recomputed from them per server (cached, brought up to date)."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.core.service import (
    stand_ins_count,
)
from bot.core.settings import HomeCore
from bot.db.rows import GameRow, ResultRow, ResultSeat, SeatRow
from bot.texts.home_words import PlayerKey, _decimal, _percent, _ranks, _stat_name
from bot.texts.i18n import DEFAULT, t, tn
from bot.texts.markup import shown_name

LEADERBOARD_SIZE = 10


LEADERBOARD_MIN_GAMES = 3


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


def _ranked(players: dict[PlayerKey, PlayerStats]) -> list[PlayerStats]:
    eligible = [p for p in players.values() if p.games >= LEADERBOARD_MIN_GAMES]
    return sorted(eligible, key=lambda p: (-p.rating, -p.games, str(p.key)))


class Ratings(HomeCore):
    """Results, stats, the leaderboard."""

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
        name = shown_name(name)
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
