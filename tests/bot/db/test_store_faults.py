"""The SQLite store when its file is swapped or its disk fills: writes are refused with a
clear message, nothing is acknowledged into a file that lost its name, and the log says
so in one line (docs/bot.md, "Guarantees")."""

from __future__ import annotations

import logging
import os
import sqlite3
from pathlib import Path

import pytest

from bot.core.errors import DISK_FULL, REPLACED, Unavailable
from bot.core.service import GameService, User
from bot.db.sqlite import Store
from tests.bot.conftest import CONFIG, Clock

ANN, BOB = User(1, "Ann"), User(2, "Bob")


async def _lobby(service: GameService) -> None:
    await service.new(guild_id=1, channel_id=5, user=ANN, players=2)
    await service.join(channel_id=5, user=BOB)


def _copy(source: Path, target: Path) -> None:
    """A consistent copy of the live database (what ``python -m bot backup`` makes)."""
    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()


def _lines(caplog: pytest.LogCaptureFixture, level: int) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= level and r.name.startswith("bot.db.")]


@pytest.mark.parametrize("how", ["replaced", "deleted"])
async def test_a_swapped_database_file_refuses_every_write_and_says_so_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, how: str
):
    db = tmp_path / "torres.db"
    store = await Store.open(str(db))
    try:
        service = GameService(store, CONFIG, clock=Clock())
        await _lobby(service)
        backup = tmp_path / "backup.db"
        _copy(db, backup)
        await service.start(channel_id=5, user=ANN)  # acknowledged: in the file, after the backup
        if how == "replaced":
            os.replace(backup, db)  # an older backup moved into place while the bot runs
        else:
            db.unlink()
        assert not store.lost.is_set()
        with pytest.raises(Unavailable) as refused:
            await service.play(channel_id=5, user=ANN, text="place c3")  # the one-trip writer
        assert refused.value.message == REPLACED
        assert store.lost.is_set()
        with pytest.raises(Unavailable):
            await store.set_meta("k", "v")  # and any later write
        with pytest.raises(Unavailable):
            async with store.transaction() as conn:  # the multi-statement writer too
                await conn.execute("INSERT INTO meta (key, value) VALUES ('a', 'b')")
        (line,) = _lines(caplog, logging.ERROR)
        assert line.levelno == logging.CRITICAL and line.exc_info is None
        assert str(db) in line.getMessage() and how in line.getMessage()
        assert "stopping" in line.getMessage()
    finally:
        await store.close()
    if how == "replaced":  # the file now at the path has nothing written after the swap
        conn = sqlite3.connect(db)
        try:
            assert conn.execute("SELECT COUNT(*) FROM actions").fetchone() == (0,)
            assert conn.execute("SELECT COUNT(*) FROM meta WHERE key IN ('k', 'a')").fetchone() == (
                0,
            )
        finally:
            conn.close()


async def test_the_same_file_moved_back_is_not_a_swap(tmp_path: Path):
    """Only another file at the path counts: renaming the open file away and back is harmless."""
    db = tmp_path / "torres.db"
    store = await Store.open(str(db))
    try:
        await store.set_meta("a", "1")
        os.replace(db, tmp_path / "elsewhere.db")
        os.replace(tmp_path / "elsewhere.db", db)
        await store.set_meta("a", "2")
        assert await store.get_meta("a") == "2" and not store.lost.is_set()
    finally:
        await store.close()


async def test_a_full_disk_refuses_writes_with_one_log_line_not_a_traceback_each(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
):
    db = tmp_path / "torres.db"
    store = await Store.open(str(db))
    try:
        service = GameService(store, CONFIG, clock=Clock())
        await _lobby(service)
        # The disk "fills": SQLite may not grow the file by another page.
        [pages] = await (await store._conn.execute("PRAGMA page_count")).fetchone()
        await store._conn.execute(f"PRAGMA max_page_count = {pages}")
        for _ in range(3):
            with pytest.raises(Unavailable) as refused:
                # A big write: more than the file's last free page can hold.
                await store.set_meta("big", "x" * 200_000)
            assert refused.value.message == DISK_FULL
        with pytest.raises(Unavailable):
            async with store.transaction() as conn:
                await conn.execute(
                    "INSERT INTO meta (key, value) VALUES (?, ?)", ("b", "y" * 200_000)
                )
        (line,) = _lines(caplog, logging.WARNING)  # once a minute, not once per command
        assert line.levelno == logging.ERROR and line.exc_info is None
        assert "disk is full" in line.getMessage() and str(db) in line.getMessage()
        assert not store.lost.is_set()  # a full disk passes: the bot keeps running
        await store._conn.execute("PRAGMA max_page_count = 1073741823")
        await store.set_meta("big", "fits now")
        assert await store.get_meta("big") == "fits now"
        await service.start(channel_id=5, user=ANN)
    finally:
        await store.close()
