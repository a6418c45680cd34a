"""A home for regular players through the real bot process: /torres games, history, board of
a finished game and of an earlier decision, export, stats and leaderboard.

The games are played beforehand through the game service on the bot's own database
(as if the bot had run them earlier); then the real ``python -m bot`` answers the
commands against the fake Discord.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio

from bot.core.service import GameService, ServiceConfig, User, _random_decision
from bot.db.sqlite import Store
from engine import Game
from engine.record import parse_record, replay
from tests.bot.e2e._harness import SEED, BotRunner, Table, check_png
from tests.fakediscord import FakeDiscord


async def _play_games(runner: BotRunner) -> dict[str, int]:
    """In #games: three finished games of alice, bob and a computer; in #general: one running."""
    fake = runner.fake
    users = {n: User(fake.users[n].id, n.capitalize()) for n in ("alice", "bob", "carol")}
    by_id = {u.id: u for u in users.values()}
    store = await Store.open(str(runner.db))
    service = GameService(
        store,
        ServiceConfig(seed=SEED),
        choose_actions=lambda g, s: _random_decision(g, random.Random(len(g.legal()))),
    )
    games = fake.channels["games"].id
    general = fake.channels["general"].id
    rng = random.Random(4)

    async def until(channel: int, stop: int | None) -> int:
        row = await store.active_game(channel)
        assert row is not None
        done = 0
        while stop is None or done < stop:
            row = await store.game(row.id)
            assert row is not None and row.position is not None
            if row.status != "running":
                break
            seats = await store.seats(row.id)
            game = Game.from_position(row.position)
            seat = next(s for s in seats if s.name == game.to_move)
            if seat.is_ai:
                await service.ai_step(row.id)
            else:
                text = "; ".join(_random_decision(game, rng))
                await service.play(channel_id=channel, user=by_id[seat.user_id], text=text)
            done += 1
        return row.id

    ids = {}
    for n in range(3):
        await service.new(
            guild_id=fake.guild_id, channel_id=games, user=users["alice"], players=3, bots=1
        )
        await service.join(channel_id=games, user=users["bob"])
        await service.start(channel_id=games, user=users["alice"])
        ids[f"finished{n}"] = await until(games, None)
    await service.new(guild_id=fake.guild_id, channel_id=general, user=users["bob"], players=2)
    await service.join(channel_id=general, user=users["alice"])
    await service.start(channel_id=general, user=users["bob"])
    ids["running"] = await until(general, 5)
    row = await store.game(ids["running"])
    assert row is not None and row.position is not None
    if row.position["to_move"] != "blue":  # leave alice (blue) to move
        await until(general, 1)
    await store.close()
    return ids


@pytest_asyncio.fixture
async def home_runner(tmp_path: Path) -> AsyncIterator[tuple[BotRunner, dict[str, int]]]:
    fake = await FakeDiscord(
        members=("alice", "bob", "carol", "dana"), channels=("general", "games")
    ).start()
    r = BotRunner(fake, tmp_path / "torres.db", tmp_path / "bot.log", {})
    try:
        ids = await _play_games(r)
        await r.start()
        yield r, ids
        assert fake.errors == [], f"Discord would have refused: {fake.errors}"
        leaked = [m for m in fake.messages.values() if "Traceback" in m.text]
        assert leaked == [], f"a traceback reached users: {leaked}"
        assert r.unexpected_log_errors() == [], "the bot logged errors"
    finally:
        (tmp_path / "transcript.txt").write_text(fake.transcript())
        await r.stop()
        print("--- bot log ---\n" + r.log_text())
        await fake.stop()


async def test_games_history_board_export_stats_leaderboard(home_runner):
    """Each command answers privately with what the database holds."""
    runner, ids = home_runner
    t = Table(runner, "games")
    fake = runner.fake
    general = fake.channels["general"].id
    games_channel = fake.channels["games"].id

    _, reply = await t.slash("alice", "games")
    assert reply.text.startswith("**Your Torres games** (1 unfinished, your turn in 1)")
    assert f"• #{ids['running']} (🔵 blue) in <#{general}>: **your turn**, since <t:" in reply.text
    _, reply = await t.slash("carol", "games")
    assert "no unfinished Torres games" in reply.text

    _, reply = await t.slash("bob", "history")
    lines = reply.text.splitlines()
    assert lines[0] == "**Finished Torres games in this channel** (newest first)"
    assert [int(m) for m in re.findall(r"^• #(\d+)", reply.text, re.M)] == [
        ids["finished2"],
        ids["finished1"],
        ids["finished0"],
    ]

    # this channel's last finished game, as nobody's cards
    _, reply = await t.slash("carol", "board")
    assert f"Game #{ids['finished2']}, decision " in reply.text
    check_png(reply.attachments[0].data)
    _, reply = await t.slash("carol", "board", game=ids["finished0"], decision=0)
    assert f"Game #{ids['finished0']} at the start (decision 0 of " in reply.text
    check_png(reply.attachments[0].data)
    _, reply = await t.slash("carol", "board", game=ids["finished0"], decision=9999)
    assert "there is no decision 9999" in reply.text and not reply.attachments

    _, reply = await t.slash("bob", "export", game=ids["finished1"])
    (attachment,) = reply.attachments
    assert attachment.filename == f"torres-game-{ids['finished1']}.txt"
    record = parse_record(attachment.data.decode())
    final = runner.db_row("SELECT position FROM games WHERE id = ?", ids["finished1"])[0]
    assert replay(record).position() == json.loads(final)
    assert record.headers["Name red"] == "Alice" and record.headers["Name green"] == "Computer"
    assert record.headers["Channel"] == str(games_channel)
    _, reply = await t.slash("bob", "export", game=ids["running"])
    assert "still going" in reply.text and not reply.attachments

    _, reply = await t.slash("carol", "stats", player="alice")
    assert reply.text.startswith("**Alice** on this server: 3 games, "), reply.text
    assert "Rating " in reply.text
    _, reply = await t.slash("carol", "stats")
    assert "no finished Torres games" in reply.text

    _, reply = await t.slash("dana", "leaderboard")
    lines = reply.text.splitlines()
    assert lines[0].startswith("**Torres leaderboard**")
    names = {line.split(" — ")[0].split(". ", 1)[1] for line in lines[1:4]}
    assert names == {
        f"<@{fake.users['alice'].id}>",
        f"<@{fake.users['bob'].id}>",
        "Computer (search)",
    }
    assert runner.db_row("SELECT COUNT(*) FROM results")[0] == 3
