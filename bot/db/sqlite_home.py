"""The SQLite store's queries for the home (bot.core.home): a player's games, past games,
results, settings, clocks, away periods and the tutorial."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

from bot.db.rows import (
    TABLES,
    TURN_SINCE,
    GameRow,
    ResultRow,
    TutorialRow,
    UserSettings,
    clocked,
    result_seat_values,
    result_values,
    results_of,
    tutorial_of,
    waiting,
)
from bot.db.sqlite_base import SqliteBase, _game


class SqliteHomeQueries(SqliteBase):
    """Players' games, history, results, settings and clocks."""

    # -- players' games, history and results (bot.core.home) ---------------------------------

    async def user_games(self, user_id: int) -> list[tuple[GameRow, float]]:
        rows = await self._all(
            f"SELECT g.*, {TURN_SINCE} AS turn_since FROM games g"
            " JOIN seats s ON s.game_id = g.id"
            " WHERE s.user_id = ? AND s.resigned = 0 AND g.status IN ('open', 'running')"
            " ORDER BY g.id",
            (user_id,),
        )
        return [waiting(dict(r), _game) for r in rows]

    async def past_games(
        self, *, channel_id: int | None = None, guild_id: int | None = None, limit: int = 10
    ) -> list[GameRow]:
        column, value = (
            ("channel_id", channel_id) if channel_id is not None else ("guild_id", guild_id)
        )
        rows = await self._all(
            f"SELECT * FROM games WHERE {column} = ? AND status IN ('over', 'cancelled')"
            " ORDER BY id DESC LIMIT ?",
            (value, limit),
        )
        return [_game(r) for r in rows]

    async def games_without_result(self) -> list[int]:
        rows = await self._all(
            "SELECT id FROM games WHERE status = 'over'"
            " AND NOT EXISTS (SELECT 1 FROM results r WHERE r.game_id = games.id) ORDER BY id"
        )
        return [int(r[0]) for r in rows]

    async def add_result(self, result: ResultRow) -> bool:
        async with self.transaction() as conn:
            cur = await conn.execute(
                "INSERT INTO results (game_id, guild_id, channel_id, variant, started_at,"
                " finished_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (game_id) DO NOTHING",
                result_values(result),
            )
            if cur.rowcount != 1:
                return False
            await conn.executemany(
                "INSERT INTO result_seats (game_id, seat, name, user_id, display, ai_level,"
                " score, rank) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                result_seat_values(result),
            )
        return True

    async def results_version(self, guild_id: int | None) -> tuple[int, int]:
        row = await self._one(
            "SELECT COUNT(*), COALESCE(MAX(game_id), 0) FROM results WHERE guild_id IS ?",
            (guild_id,),
        )
        assert row is not None
        return int(row[0]), int(row[1])

    async def results(self, guild_id: int | None) -> list[ResultRow]:
        rows = await self._all(
            "SELECT r.game_id, r.guild_id, r.channel_id, r.variant, r.started_at, r.finished_at,"
            " s.seat, s.name, s.user_id, s.display, s.ai_level, s.score, s.rank"
            " FROM results r JOIN result_seats s ON s.game_id = r.game_id"
            " WHERE r.guild_id IS ? ORDER BY r.finished_at, r.game_id, s.seat",
            (guild_id,),
        )
        return results_of([tuple(r) for r in rows])

    async def user_settings(self, user_id: int) -> UserSettings:
        row = await self._one(
            "SELECT dm, dm_refused, away_until FROM user_settings WHERE user_id = ?", (user_id,)
        )
        if row is None:
            return UserSettings(user_id)
        return UserSettings(user_id, bool(row[0]), bool(row[1]), row[2])

    async def set_user_settings(self, settings: UserSettings) -> None:
        async with self.transaction() as conn:
            await conn.execute(
                "INSERT INTO user_settings (user_id, dm, dm_refused, away_until)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (user_id) DO UPDATE SET dm = excluded.dm,"
                " dm_refused = excluded.dm_refused, away_until = excluded.away_until",
                (settings.user_id, int(settings.dm), int(settings.dm_refused), settings.away_until),
            )

    async def set_turn_clock(self, game_id: int, seconds: float, reminder_interval: float) -> None:
        async with self.transaction() as conn:
            await conn.execute(
                "UPDATE games SET turn_seconds = ?, reminder_interval = ? WHERE id = ?",
                (seconds, reminder_interval, game_id),
            )

    async def clocked_games(self) -> list[tuple[GameRow, float, float]]:
        rows = await self._all(
            f"SELECT g.*, {TURN_SINCE} AS turn_since FROM games g"
            " WHERE g.status = 'running' AND g.turn_seconds IS NOT NULL ORDER BY g.id"
        )
        return [clocked(dict(r), _game) for r in rows]

    async def turn_clock(self, game_id: int) -> float | None:
        row = await self._one("SELECT turn_seconds FROM games WHERE id = ?", (game_id,))
        return None if row is None or row[0] is None else float(row[0])

    async def set_seat_ai(self, game_id: int, name: str, is_ai: bool) -> None:
        async with self.transaction() as conn:
            await conn.execute(
                "UPDATE seats SET is_ai = ? WHERE game_id = ? AND name = ?",
                (int(is_ai), game_id, name),
            )

    async def away_users(self, user_ids: Sequence[int], now: float) -> dict[int, float]:
        if not user_ids:
            return {}
        marks = ",".join("?" for _ in user_ids)
        rows = await self._all(
            f"SELECT user_id, away_until FROM user_settings WHERE user_id IN ({marks})"
            " AND away_until > ?",
            (*user_ids, now),
        )
        return {int(r[0]): float(r[1]) for r in rows}

    # -- the tutorial (bot.core.learning) ----------------------------------------------

    async def tutorial(self, user_id: int) -> TutorialRow | None:
        row = await self._one(
            f"SELECT {', '.join(TABLES['tutorials'])} FROM tutorials WHERE user_id = ?", (user_id,)
        )
        return None if row is None else tutorial_of(tuple(row))

    async def save_tutorial(self, row: TutorialRow, *, replacing: int | None) -> bool:
        columns = TABLES["tutorials"]
        values = row.values()

        def work(conn: sqlite3.Connection) -> bool:
            if replacing is None:
                conn.execute(
                    f"INSERT OR REPLACE INTO tutorials ({', '.join(columns)})"
                    f" VALUES ({', '.join('?' for _ in columns)})",
                    values,
                )
                return True
            sets = ", ".join(f"{c} = ?" for c in columns[1:])
            cursor = conn.execute(
                f"UPDATE tutorials SET {sets} WHERE user_id = ? AND version = ?",
                (*values[1:], row.user_id, replacing),
            )
            return cursor.rowcount == 1

        return await self._write(work)
