"""Two bot processes, shards 0 and 1 of 2, sharing one real PostgreSQL; one is SIGKILLed mid-game.

Each process gets the guilds of its shard from the fake Discord and does the
background work (computer moves, re-sends) of those guilds' games only. While
shard 1's process is dead its game waits (nobody else makes its computer's
move), the other shard plays on; restarted, it takes its shard back and
continues. At the end every game's log replays to its snapshot, every decision
was announced exactly once, and nothing was logged twice.
"""

from __future__ import annotations

import asyncio
import random
import re
from collections import Counter
from pathlib import Path

from bot.core.service import _random_decision
from bot.db.contract import GameStore, open_store
from engine import Game
from tests.bot.e2e._harness import TIMEOUT, BotRunner
from tests.fakediscord import FakeDiscord

CHANNELS = {0: "games", 1: "games-g2"}  # the first guild is on shard 0, the second on shard 1
HUMANS = {0: "alice", 1: "bob"}


async def _all_unsent(store: GameStore) -> list[tuple[int, float, dict]]:
    """Every queued post not yet delivered, of every game."""
    return [row for g in await store.games_with_unsent() for row in await store.unsent(g)]


class ShardRunner(BotRunner):
    """One bot process running one shard of two."""

    def __init__(self, fake: FakeDiscord, url: str, log: Path, shard: int) -> None:
        super().__init__(fake, Path("unused"), log, {})
        self.url = url
        self.shard = shard
        self.syncs = shard == 0  # only shard 0's process syncs the commands

    def env(self) -> dict[str, str]:
        return {
            **super().env(),
            "TORRES_DB": self.url,
            "TORRES_SHARD_COUNT": "2",
            "TORRES_SHARD_IDS": str(self.shard),
            "TORRES_AI_SECONDS": "0.05",
            "TORRES_AI_PROCESSES": "1",
            "TORRES_RENDER_THREADS": "1",
            # Shard 0 looks for background work often (and would find shard 1's, were it
            # not claimed); shard 1 only at start-up, so that held posts hold its computer.
            "TORRES_REMINDER_CHECK_SECONDS": "0.3" if self.shard == 0 else "600",
        }

    def connected(self) -> bool:
        return self.fake.shard_connected(self.shard)


_channel_id: dict[int, int] = {}  # shard -> the channel (and game) the test plays there
_game_id: dict[int, int] = {}


async def _row(store: GameStore, shard: int):
    row = await store.active_game(_channel_id[shard])
    assert row is not None
    return row


async def _human_turn(fake: FakeDiscord, store: GameStore, shard: int, rng: random.Random) -> str:
    """The human of the shard's game plays a whole decision; returns the private reply."""
    row = await _row(store, shard)
    game = Game.from_position(row.position)
    text = "; ".join(_random_decision(game, rng))
    ix = await fake.slash(HUMANS[shard], CHANNELS[shard], "torres", "play", actions=text)
    reply = await ix.reply(TIMEOUT)
    return reply.text


async def _computer_done(fake: FakeDiscord, store: GameStore, shard: int) -> None:
    """Wait until the human of the shard's game is to move again (or the game ended)."""

    async def poll() -> bool:
        row = await store.game(_game_id[shard])
        assert row is not None
        return row.status != "running" or (row.position or {}).get("to_move") == "red"

    await _wait(poll, TIMEOUT, f"the computer of shard {shard} to move")


async def _wait(cond, timeout: float, what: str) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not await cond():
        if loop.time() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        await asyncio.sleep(0.05)


async def test_two_shard_processes_share_postgresql_and_survive_a_kill(tmp_path, postgres):
    url = postgres.create_database("shards")
    fake = await FakeDiscord(guilds=2, shards=2).start()
    runners = {s: ShardRunner(fake, url, tmp_path / f"bot{s}.log", s) for s in (0, 1)}
    store = await open_store(url)
    rng = random.Random(7)
    try:
        for s in (0, 1):
            await runners[s].start()
        await fake.wait_synced(20, names=["torres"])
        for s in (0, 1):
            _channel_id[s] = fake.channels[CHANNELS[s]].id
            ix = await fake.slash(
                HUMANS[s], CHANNELS[s], "torres", "new", players=2, bots=1, thread=False
            )
            m = re.search(r"game #(\d+)", (await ix.reply(TIMEOUT)).text)
            assert m is not None
            _game_id[s] = int(m.group(1))
            ix = await fake.slash(HUMANS[s], CHANNELS[s], "torres", "start")
            assert "started" in (await ix.reply(TIMEOUT)).text
        for _ in range(3):
            for s in (0, 1):
                await _computer_done(fake, store, s)
                await _human_turn(fake, store, s, rng)

        # Bob ends a turn; shard 1's process commits it and is SIGKILLed while its posts
        # are on the way (Discord never gets them).
        while True:  # a decision after which the computer is to move (setup may be red, red)
            await _computer_done(fake, store, 1)
            row = await _row(store, 1)
            game = Game.from_position(row.position)
            text = "; ".join(_random_decision(game, rng))
            game.play(text)
            if game.to_move == "blue":
                break
            ix = await fake.slash(HUMANS[1], CHANNELS[1], "torres", "play", actions=text)
            await ix.reply(TIMEOUT)
        await _computer_done(fake, store, 0)

        async def all_sent() -> bool:
            return await _all_unsent(store) == []

        await _wait(all_sent, TIMEOUT, "every post to be delivered")
        fake.hold_channel_posts()
        before = row.last_seq
        await fake.slash(HUMANS[1], CHANNELS[1], "torres", "play", actions=text)

        async def committed() -> bool:
            row = await store.game(_game_id[1])
            return row is not None and row.last_seq > before

        await _wait(committed, TIMEOUT, "bob's decision to be committed")
        await asyncio.sleep(0.5)  # its posts are held by "Discord" (its computer may move too)
        await runners[1].kill()
        fake.release_channel_posts(drop=True)
        await fake.wait_until(lambda: fake.errors, 5, "the held posts to be dropped")
        await asyncio.sleep(0.2)
        dropped = fake.take_errors()  # the held posts, answered 503 to a dead process
        assert {(e["method"], e["status"]) for e in dropped} == {("POST", 503)}, dropped
        held = await _all_unsent(store)
        assert held and {p["game_id"] for _, _, p in held} == {_game_id[1]}
        frozen = (await store.game(_game_id[1])).last_seq  # type: ignore[union-attr]
        seen = fake.last_seq
        # Shard 0 plays on meanwhile, and nobody does shard 1's work: its game stays
        # as it was, its unsent posts stay unsent (shard 0 re-sends only its own).
        for _ in range(2):
            await _computer_done(fake, store, 0)
            await _human_turn(fake, store, 0, rng)
        await _computer_done(fake, store, 0)
        await asyncio.sleep(1.0)
        row1 = await store.game(_game_id[1])
        assert row1 is not None and row1.last_seq == frozen, "another process did shard 1's work"
        assert await _all_unsent(store) == held, "another process sent shard 1's posts"
        assert [m for m in fake.channel_messages(fake.channels[CHANNELS[1]]) if m.seq > seen] == []
        assert not fake.shard_connected(1)

        await runners[1].start()  # takes shard 1 back and finishes what was interrupted
        for _ in range(3):
            for s in (0, 1):
                await _computer_done(fake, store, s)
                await _human_turn(fake, store, s, rng)
        for s in (0, 1):
            await _computer_done(fake, store, s)
        await asyncio.sleep(1.0)  # any late duplicate would arrive now

        from bot.core.service import GameService

        service = GameService(store)
        for s in (0, 1):
            row = await store.game(_game_id[s])
            assert row is not None
            actions = await store.actions(row.id)
            assert [a.seq for a in actions] == list(range(1, len(actions) + 1))
            assert (await service.replay(row.id)).position() == row.position
            # every decision announced once (a computer's consecutive decisions share one
            # message): none lost, none twice
            pictures = [
                m
                for m in fake.channel_messages(fake.channels[CHANNELS[s]])
                if m.attachments and not m.ephemeral
            ]

            def split(text: str) -> list[str]:
                return [x.strip() for x in re.split(r"[;\n]", text) if x.strip()]

            announced = [
                action
                for m in sorted(pictures, key=lambda m: m.seq)
                for played in re.findall(r"played `([^`]*)`", m.text)
                for action in split(played)
            ]
            logged = [action for a in actions for action in split(a.action)]
            assert announced == logged, (s, Counter(announced) - Counter(logged))
            assert len({m.text for m in pictures}) == len(pictures)
            assert await _all_unsent(store) == []
        assert fake.sync_count == 1, "only shard 0's process syncs the commands"
        assert fake.nonce_hits == 0, "a post was sent twice (Discord's nonce caught it)"
        assert fake.errors == []
        for r in runners.values():
            assert r.unexpected_log_errors() == [], r.log_text()
    finally:
        for r in runners.values():
            await r.stop()
        await store.close()
        (tmp_path / "transcript.txt").write_text(fake.transcript())
        for r in runners.values():
            print(f"--- bot log shard {r.shard} ---\n" + r.log_text())
        await fake.stop()
