"""The store, against both backends (SQLite and a real PostgreSQL server): migrations,
the append-only log, one active game per channel, optimistic concurrency, the outbox."""

from __future__ import annotations

import asyncio
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiosqlite
import asyncpg
import pytest

from bot.db import postgres as pg_store
from bot.db.contract import GameStore, open_store
from bot.db.rows import ChannelBusy, StoreError
from bot.db.sqlite import SCHEMA_VERSION, Store


@dataclass
class Backend:
    """One database of one backend, and raw access to it from outside the store."""

    name: str
    target: str
    integrity_error: type[Exception]

    async def open(self) -> GameStore:
        return await open_store(self.target)

    async def raw(self, *statements: str) -> list[tuple]:
        """Run SQL outside the store (as an operator would); the last statement's rows."""
        if self.name == "sqlite":
            with sqlite3.connect(self.target) as conn:
                rows: list[tuple] = []
                for statement in statements:
                    rows = list(conn.execute(statement))
                return rows
        conn = await asyncpg.connect(self.target)
        try:
            rows = []
            for statement in statements:
                rows = [tuple(r) for r in await conn.fetch(statement)]
            return rows
        finally:
            await conn.close()

    async def tables(self) -> set[str]:
        if self.name == "sqlite":
            sql = "SELECT name FROM sqlite_master WHERE type='table'"
        else:
            sql = "SELECT tablename FROM pg_tables WHERE schemaname = 'public'"
        return {r[0] for r in await self.raw(sql)}


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Backend:
    if request.param == "sqlite":
        return Backend("sqlite", str(tmp_path / "t.db"), aiosqlite.IntegrityError)
    pg = request.getfixturevalue("postgres")
    return Backend("postgresql", pg.create_database(), asyncpg.IntegrityConstraintViolationError)


async def _new_game(store: GameStore, channel: int = 10, author: int = 1, **options: Any) -> int:
    """A two-seat game; *options* override any of create_game's settings."""
    settings: dict[str, Any] = {
        "guild_id": 5,
        "channel_id": channel,
        "author_id": author,
        "author_display": "ann",
        "seats_wanted": 2,
        "bots": 0,
        "variant": "common",
        "seed": 3,
        "reminder_interval": 60.0,
        "reminder_limit": 3,
        "idle_cancel_after": 600.0,
        "now": 1000.0,
    }
    return await store.create_game(**(settings | options))


async def test_migrations_from_an_empty_database(backend):
    """A fresh database is migrated to the current schema, and reopening migrates nothing."""
    store = await backend.open()
    assert await store.schema_version() == SCHEMA_VERSION == pg_store.SCHEMA_VERSION
    await store.close()
    tables = await backend.tables()
    assert {"schema_version", "meta", "games", "seats", "actions", "outbox"} <= tables
    assert await backend.raw("SELECT COUNT(*) FROM schema_version") == [(1,)]
    store = await backend.open()
    assert await store.schema_version() == SCHEMA_VERSION
    await store.close()


async def test_processes_migrating_at_once_agree(backend):
    """Several processes opening a fresh database together migrate it once."""
    if backend.name == "sqlite":  # one process per SQLite file; opening twice must be fine
        stores = [await backend.open() for _ in range(3)]
    else:
        stores = list(await asyncio.gather(*(backend.open() for _ in range(3))))
    assert [await s.schema_version() for s in stores] == [SCHEMA_VERSION] * 3
    for s in stores:
        await s.close()
    assert await backend.raw("SELECT version FROM schema_version") == [(SCHEMA_VERSION,)]


async def test_a_newer_database_is_refused(backend):
    """A database written by a newer bot is not touched."""
    store = await backend.open()
    await store.close()
    await backend.raw(f"UPDATE schema_version SET version = {SCHEMA_VERSION + 1}")
    with pytest.raises(StoreError, match="newer than this bot"):
        await backend.open()
    assert await backend.raw("SELECT version FROM schema_version") == [(SCHEMA_VERSION + 1,)]


async def test_one_active_game_per_channel(backend):
    """A second open game in a channel is refused; another channel is fine."""
    store = await backend.open()
    first = await _new_game(store, channel=10)
    with pytest.raises(ChannelBusy):
        await _new_game(store, channel=10, author=2)
    assert await _new_game(store, channel=11) != first
    assert await store.finish(first, status="cancelled", result={}, now=1.0)
    assert not await store.finish(first, status="cancelled", result={}, now=1.0)
    await _new_game(store, channel=10, author=2)  # the channel is free again
    await store.close()


async def test_games_in_threads_are_found_by_their_lobby_channel(backend):
    """Several games may run from one channel, each in a thread of its own (the thread is
    the game's channel); the channel finds them by their lobby card's channel."""
    store = await backend.open()
    try:
        first = await _new_game(store, channel=101, lobby_channel_id=10, lobby_message_id=101)
        second = await _new_game(store, channel=102, lobby_channel_id=10, lobby_message_id=102)
        elsewhere = await _new_game(store, channel=11)
        found = await store.lobby_games(10)
        assert [(g.id, g.channel_id, g.lobby_message_id) for g in found] == [
            (first, 101, 101),
            (second, 102, 102),
        ]
        assert (await store.game(elsewhere)).lobby_channel_id is None  # type: ignore[union-attr]
        assert await store.active_game(10) is None
        await store.finish(first, status="cancelled", result={}, now=2000.0)
        assert [g.id for g in await store.lobby_games(10)] == [second]
    finally:
        await store.close()


async def test_action_log_is_append_only(backend):
    """Updating or deleting a log row is refused by the database itself."""
    store = await backend.open()
    game_id = await _new_game(store)
    await store.start_game(
        game_id,
        seats=[(1, "ann", "red", False), (None, "Computer", "blue", True)],
        initial={"format": "torres-position/1", "players": ["red", "blue"]},
        now=2.0,
    )
    seq, _ = await store.record(
        game_id,
        expected_seq=0,
        player="red",
        user_id=1,
        kind="play",
        action="place c3",
        position={"p": 1},
        turn_ended=True,
        result=None,
        now=3.0,
    )
    assert seq == 1
    for statement in ("UPDATE actions SET action = 'x'", "DELETE FROM actions"):
        with pytest.raises(backend.integrity_error, match="append-only"):
            async with store.transaction() as conn:
                await conn.execute(statement)
        # ... and from outside the bot, too
        with pytest.raises(backend.integrity_error, match="append-only"):
            await backend.raw(statement)
    if backend.name == "postgresql":
        with pytest.raises(backend.integrity_error, match="append-only"):
            await backend.raw("TRUNCATE actions")
    rows = await store.actions(game_id)
    assert [(r.seq, r.action, r.player) for r in rows] == [(1, "place c3", "red")]
    await store.close()


async def test_stale_write_is_refused(backend):
    """A write computed against an older log length is not committed."""
    store = await backend.open()
    game_id = await _new_game(store)
    await store.start_game(game_id, seats=[(1, "ann", "red", False)], initial={"a": 1}, now=2.0)
    common = dict(
        player="red", user_id=1, kind="play", action="end", turn_ended=False, result=None, now=3.0
    )
    assert await store.record(game_id, expected_seq=0, position={"b": 2}, **common) == (1, [])
    assert await store.record(game_id, expected_seq=0, position={"c": 3}, **common) == (-1, [])
    row = await store.game(game_id)
    assert row is not None and row.position == {"b": 2} and row.last_seq == 1
    await store.close()


async def test_failed_transaction_leaves_nothing(backend):
    """An exception inside a transaction rolls all of it back."""
    store = await backend.open()
    with pytest.raises(RuntimeError):
        async with store.transaction() as conn:
            await conn.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
            raise RuntimeError("boom")
    assert await store.get_meta("k") is None
    await store.set_meta("k", "v")
    assert await store.get_meta("k") == "v"
    await store.close()


async def test_leaving_renumbers_seats(backend):
    """Seats stay numbered 1..n in join order after someone leaves."""
    store = await backend.open()
    game_id = await _new_game(store)
    await store.add_seat(game_id, 2, "bob", 5.0)
    await store.add_seat(game_id, 3, "cy", 6.0)
    await store.remove_seat(game_id, 2, 7.0)
    seats = await store.seats(game_id)
    assert [(s.seat, s.user_id) for s in seats] == [(1, 1), (2, 3)]
    await store.close()


async def test_game_and_seats_read_together_equal_the_separate_reads(backend):
    """One read of a game with its seats (one round trip in PostgreSQL) gives exactly what
    ``game`` and ``seats`` give, a computer seat and a null user included."""
    store = await backend.open()
    game_id = await _new_game(store, seats_wanted=3)
    await store.start_game(
        game_id,
        seats=[(1, "ann", "red", False), (2**62 + 7, "bob", "blue", False), (None, "C", "g", True)],
        initial={"format": "torres-position/1", "players": ["red", "blue", "g"]},
        now=5.25,
    )
    row, seats = await store.game_and_seats(game_id)
    assert row is not None and row == await store.game(game_id)
    assert seats == await store.seats(game_id)
    assert [(s.user_id, s.is_ai) for s in seats] == [(1, False), (2**62 + 7, False), (None, True)]
    assert await store.game_and_seats(game_id + 1000) == (None, [])
    await store.close()


async def _old_database(backend: Backend, version: int, seed: int) -> None:
    """A database made by the bot of schema *version*, with one open game in channel 10."""
    from bot.db.sqlite import _MIGRATIONS

    migrations = _MIGRATIONS if backend.name == "sqlite" else pg_store._MIGRATIONS
    await backend.raw(
        "CREATE TABLE schema_version (version INTEGER NOT NULL)",
        f"INSERT INTO schema_version VALUES ({version})",
        *(statement for step in migrations[:version] for statement in step),
        "INSERT INTO games (channel_id, author_id, status, seats_wanted, bots, variant, seed,"
        " created_at, updated_at, last_activity, reminder_interval, reminder_limit,"
        f" idle_cancel_after) VALUES (10, 1, 'open', 2, 0, 'common', {seed}, 0, 0, 0, 60, 3, 600)",
    )


async def test_version_1_database_is_migrated_with_its_data(backend):
    """A database from schema version 1 gets the outbox and keeps its games."""
    await _old_database(backend, 1, seed=3)
    store = await backend.open()
    assert await store.schema_version() == SCHEMA_VERSION
    assert (await store.active_game(10)) is not None
    assert await store.unsent(1) == [] and await store.games_with_unsent() == []
    assert await store.results(None) == []
    await store.close()


# red ends a turn: the parts of a record() call that the outbox tests do not vary
_AN_END: dict[str, Any] = dict(
    player="red", user_id=1, kind="play", action="end", turn_ended=True, result=None
)


async def test_outbox_is_written_with_the_action(backend):
    """Posts queued with an action are committed with it, and listed until marked sent."""
    store = await backend.open()
    game_id = await _new_game(store)
    (first,) = await store.start_game(
        game_id,
        seats=[(1, "ann", "red", False)],
        initial={"a": 1},
        now=2.0,
        outbox=[{"text": "start"}],
    )
    earlier: list[int] = []
    seq, (second,) = await store.record(
        game_id, expected_seq=0, position={"b": 2}, now=3.0, outbox=[{"text": "turn"}],
        earlier=earlier, **_AN_END,
    )  # fmt: skip
    assert seq == 1 and first < second
    assert earlier == [first]  # unsent before this change: not its own row
    assert await store.unsent(game_id) == [
        (first, 2.0, {"text": "start"}),
        (second, 3.0, {"text": "turn"}),
    ]
    assert await store.games_with_unsent() == [game_id]
    await store.mark_sent(first, 4.0)
    assert [i for i, _, _ in await store.unsent(game_id)] == [second]
    # marking sent can queue what must follow, in the same commit, once only
    (third,) = await store.mark_sent(second, 5.0, then=[{"text": "replay"}])
    assert await store.mark_sent(second, 6.0, then=[{"text": "replay"}]) == []
    assert await store.unsent(game_id) == [(third, 5.0, {"text": "replay"})]
    earlier.clear()
    seq, _ = await store.record(
        game_id, expected_seq=1, position={"c": 3}, now=5.5, earlier=earlier, **_AN_END
    )
    assert seq == 2 and earlier == [third]  # the marked ones are not listed
    # a refused (stale) write queues nothing
    stale = await store.record(
        game_id, expected_seq=1, position={}, now=5.0, outbox=[{"text": "x"}], **_AN_END
    )
    assert stale == (-1, [])
    assert [i for i, _, _ in await store.unsent(game_id)] == [third]
    # notes taken with a mark, in the same commit (a turn message's id), marked or not
    assert await store.mark_sent(third, 7.0, meta={"turn_message:1": "5:6", "b": "c"}) == []
    assert await store.get_meta("turn_message:1") == "5:6" and await store.get_meta("b") == "c"
    await store.mark_sent(third, 8.0, meta={"turn_message:1": "5:7"})
    assert await store.get_meta("turn_message:1") == "5:7"
    assert await store.unsent(game_id) == []
    await store.close()


async def _started_with_posts(
    store: GameStore, payloads: list[dict[str, Any]], now: float
) -> tuple[int, list[int]]:
    """A one-seat game started with *payloads* queued; its id and the posts' ids."""
    game_id = await _new_game(store)
    ids = await store.start_game(
        game_id, seats=[(1, "ann", "red", False)], initial={"a": 1}, now=now, outbox=payloads
    )
    return game_id, ids


async def test_several_posts_are_marked_sent_in_one_commit(backend):
    """mark_many_sent: every row marked, the notes written, a row marked before untouched."""
    store = await backend.open()
    game_id, ids = await _started_with_posts(store, [{"text": t} for t in "abc"], now=2.0)
    await store.mark_sent(ids[0], 3.0)
    await store.mark_many_sent(ids[:2], 4.0, meta={"turn_message:1": "5:6"})
    assert [i for i, _, _ in await store.unsent(game_id)] == [ids[2]]
    assert await store.get_meta("turn_message:1") == "5:6"
    await store.mark_many_sent([ids[2]], 5.0)
    assert await store.unsent(game_id) == [] and await store.games_with_unsent() == []
    await store.close()


async def test_pruning_keeps_unsent_posts_and_each_games_latest(backend):
    """Delivered posts are forgotten after a while; unsent ones and the latest stay."""
    store = await backend.open()
    game_id, ids = await _started_with_posts(store, [{"n": n} for n in (1, 2, 3, 4)], now=1.0)
    for outbox_id in ids[:2] + ids[3:]:
        await store.mark_sent(outbox_id, 2.0)
    assert await store.prune_outbox(sent_before=1.5) == 0
    assert await store.prune_outbox(sent_before=3.0) == 2  # the first two
    assert [i for i, _, _ in await store.unsent(game_id)] == [ids[2]]
    assert await store.last_payload(game_id) == {"n": 4}
    await store.close()


async def test_two_processes_racing_for_one_move_commit_it_once(backend):
    """Two stores on one database (two bot processes) write the same move: one wins."""
    first, second = await backend.open(), await backend.open()
    game_id = await _new_game(first)
    await first.start_game(game_id, seats=[(1, "ann", "red", False)], initial={"a": 1}, now=2.0)
    common = dict(
        expected_seq=0,
        player="red",
        user_id=1,
        kind="play",
        action="end",
        turn_ended=True,
        result=None,
        now=3.0,
    )
    results = await asyncio.gather(
        *(
            s.record(game_id, position={"by": i}, outbox=[{"by": i}], **common)
            for i, s in enumerate([first, second] * 3)
        )
    )
    winners = [i for i, (seq, _) in enumerate(results) if seq == 1]
    assert len(winners) == 1 and sum(seq == -1 for seq, _ in results) == 5
    row = await second.game(game_id)
    assert row is not None and row.position == {"by": winners[0]} and row.last_seq == 1
    assert [a.seq for a in await first.actions(game_id)] == [1]
    assert [p for _, _, p in await first.unsent(game_id)] == [{"by": winners[0]}]
    for s in (first, second):
        await s.close()


async def test_one_channel_racing_two_new_games_keeps_one(backend):
    """Two processes opening a game in one channel at once: the other gets ChannelBusy."""
    stores = [await backend.open() for _ in range(2)]
    results = await asyncio.gather(
        *(_new_game(s, channel=77, author=i) for i, s in enumerate(stores)), return_exceptions=True
    )
    assert sorted(type(r).__name__ for r in results) == ["ChannelBusy", "int"]
    for s in stores:
        await s.close()


async def test_a_game_is_changed_by_one_process_at_a_time(backend):
    """While one process holds a game's lock, another process waits for it (PostgreSQL);
    SQLite has one process per file, where the service's own lock does this."""
    first, second = await backend.open(), await backend.open()
    order: list[str] = []

    async def hold(store: GameStore, name: str, game_id: int) -> None:
        async with store.game_lock(game_id):
            order.append(f"{name} in")
            await asyncio.sleep(0.2)
            order.append(f"{name} out")

    task = asyncio.create_task(hold(first, "a", 5))
    await asyncio.sleep(0.05)
    await asyncio.gather(hold(second, "b", 5), hold(second, "c", 6))
    await task
    if backend.name == "postgresql":
        assert order.index("b in") > order.index("a out")  # same game: waited
        assert order.index("c in") < order.index("a out")  # another game: did not
    for s in (first, second):
        await s.close()


async def test_a_shard_is_claimed_by_one_process_until_it_stops(backend):
    """The shard locks: a second process cannot take a shard another holds, until it closes."""
    first, second = await backend.open(), await backend.open()
    assert await first.claim_shards([0, 1]) == []
    if backend.name == "postgresql":
        assert await second.claim_shards([1, 2]) == [1]
        await first.close()
        assert await second.claim_shards([1]) == []
    else:  # one process per SQLite file: nothing to claim
        assert await second.claim_shards([1, 2]) == []
        await first.close()
    await second.close()


async def test_many_games_locked_at_once_do_not_starve_the_store(backend):
    """More games busy at once than the store has connections: all finish (no pool deadlock)."""
    store = await backend.open()
    ids = [await _new_game(store, channel=100 + i, author=i) for i in range(30)]

    async def busy(game_id: int) -> int:
        async with store.game_lock(game_id):
            await asyncio.sleep(0.05)  # hold the lock while the game is worked on...
            return await store.add_seat(game_id, 999, "x", 2.0)  # ...which needs queries

    try:
        assert await asyncio.wait_for(asyncio.gather(*(busy(i) for i in ids)), 30) == [2] * 30
    finally:
        await store.close()


async def test_a_held_write_lock_refuses_writes_as_busy_and_never_blocks_reads(
    tmp_path, monkeypatch
):
    """Another connection holds the write lock: reads answer at once, a write is Busy, unchanged."""
    import bot.db.sqlite
    from bot.core.errors import Busy

    monkeypatch.setattr(bot.db.sqlite, "WRITE_BUSY_SECONDS", 0.2)
    path = str(tmp_path / "t.db")
    store = await Store.open(path)
    game_id = await _new_game(store)
    await store.set_meta("k", "before")
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")
    try:
        assert (await store.game(game_id)) is not None
        assert await store.get_meta("k") == "before"
        with pytest.raises(Busy, match="nothing was changed"):
            await store.set_meta("k", "after")
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert await store.get_meta("k") == "before"
    await store.set_meta("k", "after")  # free again
    assert await store.get_meta("k") == "after"
    await store.close()


async def test_writes_queued_in_the_bot_give_up_as_busy_too(tmp_path, monkeypatch):
    """A write waiting behind another of the bot's own writes is bounded as well."""
    import asyncio

    import bot.db.sqlite
    from bot.core.errors import Busy

    monkeypatch.setattr(bot.db.sqlite, "WRITE_BUSY_SECONDS", 0.2)
    store = await Store.open(str(tmp_path / "t.db"))
    release = asyncio.Event()

    async def slow_writer() -> None:
        async with store.transaction():
            await release.wait()

    task = asyncio.create_task(slow_writer())
    await asyncio.sleep(0.05)
    with pytest.raises(Busy):
        await store.set_meta("k", "v")
    release.set()
    await task
    await store.set_meta("k", "v")
    assert await store.get_meta("k") == "v"
    await store.close()


async def test_a_damaged_or_foreign_file_is_refused(tmp_path):
    """quick_check failures and files that are not databases raise DatabaseDamaged, in one line."""
    from bot.db.rows import DatabaseDamaged

    foreign = tmp_path / "notes.db"
    foreign.write_bytes(b"these are not the tables you are looking for" * 100)
    with pytest.raises(DatabaseDamaged) as refused:
        await Store.open(str(foreign))
    assert "\n" not in str(refused.value) and "backup" in str(refused.value)

    path = tmp_path / "t.db"
    store = await Store.open(str(path))
    await _new_game(store)
    await store.close()
    with sqlite3.connect(path) as conn:
        (root,) = conn.execute("SELECT rootpage FROM sqlite_master WHERE name='games'").fetchone()
        (size,) = conn.execute("PRAGMA page_size").fetchone()
    with open(path, "r+b") as f:
        f.seek((root - 1) * size + 8)
        f.write(b"\xa5" * 200)
    with pytest.raises(DatabaseDamaged) as refused:
        await Store.open(str(path))
    assert "\n" not in str(refused.value) and "damaged" in str(refused.value)


async def test_committed_here_tells_a_task_whether_it_wrote(tmp_path):
    """Only the task that committed sees committed_here(): error replies rely on it."""
    import asyncio

    from bot.db.rows import committed_here

    store = await Store.open(str(tmp_path / "t.db"))

    async def writes() -> bool:
        await store.set_meta("k", "v")
        return committed_here()

    async def reads() -> bool:
        await store.get_meta("k")
        return committed_here()

    assert await asyncio.create_task(writes()) is True
    assert await asyncio.create_task(reads()) is False
    await store.close()


async def test_postgresql_a_game_locked_by_another_process_refuses_writes_as_busy(postgres):
    """As with SQLite's held write lock: a write gives up with Busy, nothing written;
    reads answer meanwhile; once the other process lets go, writes work again."""
    from bot.core.errors import Busy

    url = postgres.create_database()
    store = await open_store(url)
    game_id = await _new_game(store)
    other = await asyncpg.connect(url)
    held = other.transaction()
    await held.start()
    await other.execute("SELECT 1 FROM games WHERE id = $1 FOR UPDATE", game_id)
    with pytest.raises(Busy, match="busy right now, so nothing was changed"):
        await store.add_seat(game_id, 2, "bob", 5.0)
    assert [s.user_id for s in await store.seats(game_id)] == [1]  # reads do not wait
    await held.rollback()
    await other.close()
    assert await store.add_seat(game_id, 2, "bob", 5.0) == 2
    await store.close()


async def test_sqlite_writes_queued_at_once_commit_in_the_order_they_came(tmp_path):
    """A write goes whole to the writer's thread (one trip), the write lock held only while
    it is queued: many at once all commit, in order, and a transaction() still waits its turn."""
    from bot.db.sqlite import Store

    store = await Store.open(str(tmp_path / "t.db"))
    game_id = await _new_game(store)

    async def in_transaction() -> None:
        async with store.transaction() as conn:
            await conn.execute("INSERT INTO meta (key, value) VALUES ('t', 'x')")

    writes = [store.set_meta("k", str(i)) for i in range(40)]
    writes.insert(20, in_transaction())
    writes.append(store.finish(game_id, status="cancelled", result={"reason": "test"}, now=9.0))
    await asyncio.gather(*writes)
    assert await store.get_meta("k") == "39"
    assert await store.get_meta("t") == "x"
    row = await store.game(game_id)
    assert row is not None and row.status == "cancelled" and row.result == {"reason": "test"}
    await store.close()


async def test_sqlite_a_write_stuck_behind_the_writer_thread_gives_up_as_busy(
    tmp_path, monkeypatch
):
    """A write that waited in the writer thread's queue longer than WRITE_BUSY_SECONDS
    is refused as Busy, nothing written, as one waiting for the write lock would be."""
    import threading

    import bot.db.sqlite
    from bot.core.errors import Busy
    from bot.db.sqlite import Store

    monkeypatch.setattr(bot.db.sqlite, "WRITE_BUSY_SECONDS", 0.2)
    store = await Store.open(str(tmp_path / "t.db"))
    await store.set_meta("k", "before")
    gate = threading.Event()
    stuck = store._submit(gate.wait)  # the writer thread busy with something slow
    late = asyncio.create_task(store.set_meta("k", "after"))
    await asyncio.sleep(0.4)
    gate.set()
    await stuck
    with pytest.raises(Busy):
        await late
    assert await store.get_meta("k") == "before"
    await store.set_meta("k", "after")
    assert await store.get_meta("k") == "after"
    await store.close()


async def _advisory_holders(url: str, game_id: int) -> list[int]:
    """Backend pids holding the game's advisory lock (granted, not waiting)."""
    conn = await asyncpg.connect(url)
    try:
        rows = await conn.fetch(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted"
            " AND classid = $1 AND objid = ($2::bigint & 4294967295)::oid",
            pg_store._LOCK_GAME,
            pg_store._key(game_id),
        )
    finally:
        await conn.close()
    return [r["pid"] for r in rows]


async def test_postgresql_a_process_keeps_a_game_lock_between_commands(postgres):
    """The lease: after a command the lock stays with the process, so the next command
    on the game needs no round trip to lock it (nor one to unlock it)."""
    url = postgres.create_database()
    store = await open_store(url)
    assert isinstance(store, pg_store.PgStore)
    async with store.game_lock(5):
        pass
    holders = await _advisory_holders(url, 5)
    assert len(holders) == 1  # kept after the block
    lease = store._leases._conn
    assert lease is not None and lease.get_server_pid() == holders[0]
    executed: list[str] = []

    class Counting:  # the lease connection, noting every query sent on it
        def __getattr__(self, name: str) -> Any:
            attr = getattr(lease, name)
            if name in ("execute", "fetch", "fetchrow", "fetchval"):
                executed.append(name)
            return attr

    store._leases._conn = Counting()  # type: ignore[assignment]
    for _ in range(3):
        async with store.game_lock(5):
            pass
    assert executed == []
    store._leases._conn = lease
    await store.close()
    assert await _advisory_holders(url, 5) == []  # closing lets every lease go


async def test_postgresql_a_leased_game_is_let_go_when_another_process_asks(postgres):
    """Another process waiting for the game gets it once the holder's command ends,
    not only when its lease would run out; and the holder then waits its own turn."""
    url = postgres.create_database()
    first, second = await open_store(url), await open_store(url)
    order: list[str] = []
    async with first.game_lock(5):
        order.append("first in")
    # Idle lease: asked, it is let go at once.
    async with asyncio.timeout(10), second.game_lock(5):
        order.append("second in")
        waiting = asyncio.create_task(_enter(first, 5, order, "first again"))
        await asyncio.sleep(0.3)
        order.append("second out")
    await asyncio.wait_for(waiting, 10)
    assert order == ["first in", "second in", "second out", "first again"]
    # Busy lease: let go when the holder's command ends.
    order.clear()
    async with first.game_lock(5):
        order.append("first in")
        other = asyncio.create_task(_enter(second, 5, order, "second in"))
        await asyncio.sleep(0.3)
        order.append("first out")
    await asyncio.wait_for(other, 10)
    assert order == ["first in", "first out", "second in"]
    for s in (first, second):
        await s.close()


async def _enter(store: GameStore, game_id: int, order: list[str], name: str) -> None:
    async with store.game_lock(game_id):
        order.append(name)


async def test_postgresql_a_lost_ask_is_asked_again(postgres, monkeypatch):
    """The holder may take its lease just after the waiter asked: the waiter asks again."""
    monkeypatch.setattr(pg_store, "_ASK_AGAIN", 0.1)
    url = postgres.create_database()
    first, second = await open_store(url), await open_store(url)
    assert isinstance(first, pg_store.PgStore)
    heard: list[str] = []
    real = first._leases._on_wanted

    def deaf_once(conn: Any, pid: int, channel: str, payload: str) -> None:
        heard.append(payload)
        if len(heard) > 1:
            real(conn, pid, channel, payload)

    monkeypatch.setattr(first._leases, "_on_wanted", deaf_once)
    async with first.game_lock(5):  # connects, listening through deaf_once
        pass
    order: list[str] = []
    await asyncio.wait_for(_enter(second, 5, order, "second in"), 10)
    assert order == ["second in"] and len(heard) >= 2
    for s in (first, second):
        await s.close()


async def test_postgresql_leases_are_bounded(postgres, monkeypatch):
    """At most _MAX_LEASES game locks are kept; the least recently used is let go."""
    monkeypatch.setattr(pg_store, "_MAX_LEASES", 2)
    url = postgres.create_database()
    store = await open_store(url)
    for game_id in (1, 2, 1, 3):
        async with store.game_lock(game_id):
            pass
    assert [bool(await _advisory_holders(url, g)) for g in (1, 2, 3)] == [True, False, True]
    await store.close()


async def test_postgresql_a_broken_lease_connection_loses_its_leases_and_recovers(postgres):
    """When the lease connection dies, its locks are gone: another process can take the
    game at once, and this process locks anew on a new connection."""
    url = postgres.create_database()
    first, second = await open_store(url), await open_store(url)
    async with first.game_lock(5):
        pass
    (pid,) = await _advisory_holders(url, 5)
    admin = await asyncpg.connect(url)
    await admin.fetchval("SELECT pg_terminate_backend($1)", pid)
    await admin.close()
    order: list[str] = []
    await asyncio.wait_for(_enter(second, 5, order, "second in"), 10)
    await asyncio.wait_for(_enter(first, 6, order, "first in"), 10)
    assert order == ["second in", "first in"]
    assert len(await _advisory_holders(url, 6)) == 1
    for s in (first, second):
        await s.close()


async def test_postgresql_a_lease_given_back_while_cancelled_ends_its_connection():
    """Cancelled while unlocking (or while taking), the lock may or may not be held
    by the session: the lease connection is closed, so no lock outlives our knowledge."""

    class Stuck:  # a lease connection whose queries never answer
        def __init__(self) -> None:
            self.terminated = False

        async def execute(self, *args: Any) -> None:
            await asyncio.Event().wait()

        fetchval = execute

        def is_closed(self) -> bool:
            return self.terminated

        def terminate(self) -> None:
            self.terminated = True

    leases = pg_store._Leases("postgresql://unused")
    for step in ("unlock", "take"):
        conn = Stuck()
        leases._conn = conn  # type: ignore[assignment]
        leases._held[5] = None
        task = asyncio.create_task(leases._let_go(5) if step == "unlock" else leases.take(6))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert conn.terminated and leases._conn is None and not leases._held, step


def test_postgresql_json_columns_read_back_as_the_json_module_would():
    """The PostgreSQL store writes its JSON with orjson: the same values come back as
    with the json module, int keys turned to strings included, for a real position."""
    import json

    from engine import Game

    game = Game.new(players=4, seed=9)
    for _ in range(12):
        game.play(game.legal()[0])
    values = [game.position(), {"scores": {1: 2.5}, "order": (3, 4)}, "text", [None, True]]
    for value in values:
        dumped = pg_store._dump(value)
        assert dumped is not None
        assert json.loads(dumped) == json.loads(json.dumps(value, sort_keys=True))


# issue 33, item 5: 128-bit seeds ---------------------------------------------------

_SEEDS = (2**128 - 1, 2**64 + 7, 2**63, 2**63 - 1, 3, 0, -(2**63))


async def test_a_128_bit_seed_and_its_positions_are_stored_exactly(backend):
    """SQLite's INTEGER and PostgreSQL's BIGINT hold 64 bits, and orjson neither writes
    nor reads a wider number exactly: the seed and the positions holding it must come
    back as they went in, in both stores."""
    from engine import Game

    store = await backend.open()
    try:
        for channel, seed in enumerate(_SEEDS, start=100):
            game_id = await _new_game(store, channel=channel, seed=seed)
            initial = Game.new(players=2, seed=seed).position()
            await store.start_game(
                game_id,
                seats=[(1, "ann", "red", False), (2, "bob", "blue", False)],
                initial=initial,
                now=1001.0,
            )
            row = await store.game(game_id)
            assert row is not None
            assert row.seed == seed and type(row.seed) is int
            assert row.initial == row.position == initial
            assert type(row.position["seed"]) is int
    finally:
        await store.close()


async def test_games_from_before_schema_7_keep_their_seeds(backend):
    """A schema-6 database (the seed in the 64-bit column only) is migrated, its games
    keep their seeds, and new games get 128-bit ones next to them."""
    await _old_database(backend, 6, seed=2**63 - 1)
    store = await backend.open()
    try:
        assert await store.schema_version() == SCHEMA_VERSION
        old = await store.active_game(10)
        assert old is not None and old.seed == 2**63 - 1
        new = await store.game(await _new_game(store, channel=11, seed=2**127 + 1))
        assert new is not None and new.seed == 2**127 + 1
    finally:
        await store.close()


async def test_new_games_get_128_bit_seeds_from_secrets(backend):
    """Without a configured seed every game gets a fresh seed wider than 64 bits (the
    old 31-bit seeds could be found by trying them all), kept exactly by the store, so
    the game replays and its record names the seed."""
    from bot.core.service import GameService, ServiceConfig, User

    store = await backend.open()
    try:
        service = GameService(store, ServiceConfig())
        seeds = []
        for channel in (20, 21, 22):
            await service.new(guild_id=1, channel_id=channel, user=User(1, "ann"), players=2)
            await service.join(channel_id=channel, user=User(2, "bob"))
            await service.start(channel_id=channel, user=User(1, "ann"))
            row = await store.active_game(channel)
            assert row is not None and row.position is not None
            seeds.append(row.seed)
            assert row.position["seed"] == row.seed
            assert (await service.replay(row.id)).position() == row.position
        assert len(set(seeds)) == 3
        # 2**-64 is the chance that one 128-bit seed fits in 64 bits
        assert all(64 < s.bit_length() <= 128 for s in seeds)
    finally:
        await store.close()
