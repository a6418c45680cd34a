"""The SQLite store: migrations, the append-only log, one active game per channel."""

from __future__ import annotations

import sqlite3

import aiosqlite
import pytest

from bot.store import SCHEMA_VERSION, ChannelBusy, Store, StoreError


async def _new_game(store: Store, channel: int = 10, author: int = 1) -> int:
    return await store.create_game(
        guild_id=5,
        channel_id=channel,
        author_id=author,
        author_display="ann",
        seats_wanted=2,
        bots=0,
        variant="common",
        seed=3,
        reminder_interval=60.0,
        reminder_limit=3,
        idle_cancel_after=600.0,
        now=1000.0,
    )


async def test_migrations_from_an_empty_database(tmp_path):
    """A fresh file is migrated to the current schema, and reopening migrates nothing."""
    path = str(tmp_path / "t.db")
    store = await Store.open(path)
    assert await store.schema_version() == SCHEMA_VERSION
    await store.close()
    with sqlite3.connect(path) as conn:
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        assert {"schema_version", "meta", "games", "seats", "actions"} <= tables
        assert conn.execute("SELECT COUNT(*) FROM schema_version").fetchone()[0] == 1
    store = await Store.open(path)
    assert await store.schema_version() == SCHEMA_VERSION
    await store.close()


async def test_a_newer_database_is_refused(tmp_path):
    """A database written by a newer bot is not touched."""
    path = str(tmp_path / "t.db")
    store = await Store.open(path)
    await store.close()
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE schema_version SET version = ?", (SCHEMA_VERSION + 1,))
    with pytest.raises(StoreError, match="newer than this bot"):
        await Store.open(path)


async def test_one_active_game_per_channel(tmp_path):
    """A second open game in a channel is refused; another channel is fine."""
    store = await Store.open(str(tmp_path / "t.db"))
    first = await _new_game(store, channel=10)
    with pytest.raises(ChannelBusy):
        await _new_game(store, channel=10, author=2)
    assert await _new_game(store, channel=11) != first
    assert await store.finish(first, status="cancelled", result={}, now=1.0)
    assert not await store.finish(first, status="cancelled", result={}, now=1.0)
    await _new_game(store, channel=10, author=2)  # the channel is free again
    await store.close()


async def test_action_log_is_append_only(tmp_path):
    """Updating or deleting a log row is refused by the database itself."""
    store = await Store.open(str(tmp_path / "t.db"))
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
    async with store.transaction() as conn:
        with pytest.raises(aiosqlite.IntegrityError, match="append-only"):
            await conn.execute("UPDATE actions SET action = 'x'")
        with pytest.raises(aiosqlite.IntegrityError, match="append-only"):
            await conn.execute("DELETE FROM actions")
    rows = await store.actions(game_id)
    assert [(r.seq, r.action, r.player) for r in rows] == [(1, "place c3", "red")]
    await store.close()


async def test_stale_write_is_refused(tmp_path):
    """A write computed against an older log length is not committed."""
    store = await Store.open(str(tmp_path / "t.db"))
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


async def test_failed_transaction_leaves_nothing(tmp_path):
    """An exception inside a transaction rolls all of it back."""
    store = await Store.open(str(tmp_path / "t.db"))
    with pytest.raises(RuntimeError):
        async with store.transaction() as conn:
            await conn.execute("INSERT INTO meta (key, value) VALUES ('k', 'v')")
            raise RuntimeError("boom")
    assert await store.get_meta("k") is None
    await store.set_meta("k", "v")
    assert await store.get_meta("k") == "v"
    await store.close()


async def test_leaving_renumbers_seats(tmp_path):
    """Seats stay numbered 1..n in join order after someone leaves."""
    store = await Store.open(str(tmp_path / "t.db"))
    game_id = await _new_game(store)
    await store.add_seat(game_id, 2, "bob", 5.0)
    await store.add_seat(game_id, 3, "cy", 6.0)
    await store.remove_seat(game_id, 2, 7.0)
    seats = await store.seats(game_id)
    assert [(s.seat, s.user_id) for s in seats] == [(1, 1), (2, 3)]
    await store.close()


async def test_version_1_database_is_migrated_with_its_data(tmp_path):
    """A database from schema version 1 gets the outbox and keeps its games."""
    from bot.store import _MIGRATIONS

    path = str(tmp_path / "old.db")
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE schema_version (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO schema_version VALUES (1)")
        for statement in _MIGRATIONS[0]:
            conn.execute(statement)
        conn.execute(
            "INSERT INTO games (channel_id, author_id, status, seats_wanted, bots, variant, seed,"
            " created_at, updated_at, last_activity, reminder_interval, reminder_limit,"
            " idle_cancel_after) VALUES (10, 1, 'open', 2, 0, 'common', 3, 0, 0, 0, 60, 3, 600)"
        )
    store = await Store.open(path)
    assert await store.schema_version() == SCHEMA_VERSION == 2
    assert (await store.active_game(10)) is not None
    assert await store.unsent(1) == [] and await store.games_with_unsent() == []
    await store.close()


async def test_outbox_is_written_with_the_action(tmp_path):
    """Posts queued with an action are committed with it, and listed until marked sent."""
    store = await Store.open(str(tmp_path / "t.db"))
    game_id = await _new_game(store)
    (first,) = await store.start_game(
        game_id,
        seats=[(1, "ann", "red", False)],
        initial={"a": 1},
        now=2.0,
        outbox=[{"text": "start"}],
    )
    seq, (second,) = await store.record(
        game_id,
        expected_seq=0,
        player="red",
        user_id=1,
        kind="play",
        action="end",
        position={"b": 2},
        turn_ended=True,
        result=None,
        now=3.0,
        outbox=[{"text": "turn"}],
    )
    assert seq == 1 and first < second
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
    # a refused (stale) write queues nothing
    assert await store.record(
        game_id,
        expected_seq=0,
        player="red",
        user_id=1,
        kind="play",
        action="end",
        position={},
        turn_ended=True,
        result=None,
        now=5.0,
        outbox=[{"text": "x"}],
    ) == (-1, [])
    assert [i for i, _, _ in await store.unsent(game_id)] == [third]
    await store.close()


async def test_pruning_keeps_unsent_posts_and_each_games_latest(tmp_path):
    """Delivered posts are forgotten after a while; unsent ones and the latest stay."""
    store = await Store.open(str(tmp_path / "t.db"))
    game_id = await _new_game(store)
    ids = await store.start_game(
        game_id,
        seats=[(1, "ann", "red", False)],
        initial={"a": 1},
        now=1.0,
        outbox=[{"n": 1}, {"n": 2}, {"n": 3}, {"n": 4}],
    )
    for outbox_id in ids[:2] + ids[3:]:
        await store.mark_sent(outbox_id, 2.0)
    assert await store.prune_outbox(sent_before=1.5) == 0
    assert await store.prune_outbox(sent_before=3.0) == 2  # the first two
    assert [i for i, _, _ in await store.unsent(game_id)] == [ids[2]]
    assert await store.last_payload(game_id) == {"n": 4}
    await store.close()


async def test_a_held_write_lock_refuses_writes_as_busy_and_never_blocks_reads(
    tmp_path, monkeypatch
):
    """Another connection holds the write lock: reads answer at once, a write is Busy, unchanged."""
    import bot.store
    from bot.errors import Busy

    monkeypatch.setattr(bot.store, "WRITE_BUSY_SECONDS", 0.2)
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

    import bot.store
    from bot.errors import Busy

    monkeypatch.setattr(bot.store, "WRITE_BUSY_SECONDS", 0.2)
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
    from bot.store import DatabaseDamaged

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

    from bot.store import committed_here

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
