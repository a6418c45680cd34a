"""End-to-end: the database file swapped for an older backup while the bot runs.

The real ``python -m bot`` process against the fake Discord. The first write after the
swap is refused (the player is told nothing changed), the bot logs one line and exits
with status 1 instead of acknowledging moves into a file that no longer has a name;
started again, it serves the file now at the path.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from engine import Game
from tests.bot.e2e._harness import SEED, BotRunner, Table, open_game, play_setup

SEATS = {"red": "alice", "blue": "bob"}


async def test_a_swapped_database_stops_the_bot_with_one_line(
    runner: BotRunner, tmp_path: Path
) -> None:
    t = Table(runner)
    await open_game(t)
    game = Game.new(players=2, names=list(SEATS), variant="common", seed=SEED)
    backup = tmp_path / "older.db"
    src, dst = sqlite3.connect(runner.db), sqlite3.connect(backup)
    src.backup(dst)  # the backup: the game just started, nobody has placed a knight
    src.close()
    dst.close()
    await play_setup(t, game, SEATS)  # acknowledged, into the file opened at start-up
    os.replace(backup, runner.db)  # someone restores the older backup while the bot runs
    runner.expected_log_errors.append("was replaced by another file while the bot was running")
    _, reply = await t.slash(SEATS[game.to_move], "play", actions="end")
    assert "replaced while the bot was running, so nothing was changed" in reply.text
    assert runner.proc is not None
    await runner.fake.wait_until(lambda: not runner.proc.running, 30, "the bot to stop")
    assert runner.proc.proc.returncode == 1
    log = runner.log_text()
    assert log.count("was replaced by another file while the bot was running") == 1, log
    assert "Traceback" not in log, log
    # The old file's journal is moved aside: SQLite would apply it to the restored file.
    for suffix in ("-wal", "-shm"):
        assert not Path(f"{runner.db}{suffix}").exists()
        assert len(list(tmp_path.glob(f"torres.db{suffix}.replaced-*"))) == 1
    # Started again, the bot serves the restored file: the game as the backup had it.
    assert runner.db_row("SELECT COUNT(*) FROM actions") == (0,)
    await runner.start()
    fresh = Game.new(players=2, names=list(SEATS), variant="common", seed=SEED)
    _, reply = await t.slash(SEATS[fresh.to_move], "play", actions=fresh.legal()[0])
    assert reply.text == "Your turn is over.", reply.text
