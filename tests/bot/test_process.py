"""The real `python -m bot` against the fake Discord: sync, shutdown, reminders, computer players.

(The whole-game end-to-end test lives in tests/bot/e2e/; these cover the
bot's background behaviour and start-up rules.)
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest_asyncio

from bot.core.service import GameService, ServiceConfig, User
from bot.db.sqlite import Store
from tests.fakediscord import BotProcess, FakeDiscord, FakeMessage

TIMEOUT = 20.0


class Runner:
    """The bot process on one database, startable again after a stop or a kill."""

    def __init__(self, fake: FakeDiscord, db: Path, log: Path, env: dict[str, str]) -> None:
        self.fake, self.db, self.log, self.extra = fake, db, log, env
        self.proc: BotProcess | None = None

    async def start(self) -> None:
        before = self.fake.identify_count
        env = {
            **self.fake.env(),
            "DISCORD_TOKEN": "test-token",
            "TORRES_DB": str(self.db),
            "TORRES_GUILD_READY_TIMEOUT": "0.1",
            **self.extra,
        }
        self.proc = await BotProcess(["-m", "bot"], env=env, log_path=self.log).start()
        try:
            await self.fake.wait_until(
                lambda: self.fake.identify_count > before and self.fake.connected,
                40,
                "the bot to connect",
            )
            await self.fake.wait_synced(20, names=["torres"])
        except AssertionError as exc:
            raise AssertionError(f"{exc}\n--- bot log ---\n{self.log_text()}") from None

    async def stop(self) -> None:
        if self.proc is not None:
            await self.proc.stop()

    def log_text(self) -> str:
        return self.proc.log_text(20000) if self.proc else ""


@pytest_asyncio.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    server = await FakeDiscord(members=("alice", "bob", "dana"), moderators=("dana",)).start()
    yield server
    await server.stop()


def _runner(fake: FakeDiscord, tmp_path: Path, **env: str) -> Runner:
    return Runner(fake, tmp_path / "torres.db", tmp_path / "bot.log", env)


async def _reply(fake: FakeDiscord, who: str, sub: str, **options: object) -> FakeMessage:
    ix = await fake.slash(who, "games", "torres", sub, **options)
    return await ix.reply(TIMEOUT)


async def test_commands_sync_only_when_changed_and_sigterm_is_clean(fake, tmp_path):
    """A restart with the same commands does not sync again; SIGTERM exits 0."""
    runner = _runner(fake, tmp_path)
    await runner.start()
    assert fake.sync_count == 1
    assert runner.proc is not None
    assert await runner.proc.stop() == 0
    await runner.start()
    await _reply(fake, "alice", "rules")  # the bot is up and answering
    assert fake.sync_count == 1
    assert "slash commands unchanged; not syncing" in runner.log_text()
    assert await runner.proc.stop() == 0
    assert "Traceback" not in runner.log_text()


async def test_reminders_mention_the_idle_player_a_bounded_number_of_times(fake, tmp_path):
    """With a 1 s interval and a limit of 2: exactly two reminders, with Discord timestamps."""
    runner = _runner(
        fake,
        tmp_path,
        TORRES_REMINDER_SECONDS="1",
        TORRES_REMINDER_COUNT="2",
        TORRES_REMINDER_CHECK_SECONDS="0.2",
    )
    await runner.start()
    try:
        await _reply(fake, "alice", "new", thread=False)
        await _reply(fake, "bob", "join")
        await _reply(fake, "alice", "start")
        alice = fake.users["alice"]

        def reminders() -> list[FakeMessage]:
            return [m for m in fake.channel_messages("games") if "it's your move" in m.text]

        await fake.wait_until(lambda: len(reminders()) >= 2, TIMEOUT, "two reminders")
        await asyncio.sleep(2.5)  # long enough for a third, which must not come
        sent = reminders()
        assert len(sent) == 2
        assert all(m.pinged_ids == [alice.id] for m in sent)
        assert re.search(r"Next reminder <t:\d+:R>", sent[0].text)
        assert "last reminder" in sent[1].text and re.search(r"<t:\d+:R>", sent[1].text)
    finally:
        await runner.stop()


async def test_computer_players_post_their_turns(fake, tmp_path):
    """A game with a computer seat: its decisions are posted with the picture."""
    runner = _runner(fake, tmp_path, TORRES_AI_SECONDS="0.1", TORRES_REMINDER_CHECK_SECONDS="0.3")
    await runner.start()
    try:
        await _reply(fake, "alice", "new", bots=1, thread=False)
        await _reply(fake, "alice", "start")
        ix = await fake.slash("alice", "games", "torres", "play", actions="place c3")
        await ix.reply(TIMEOUT)
        # The computer places its knight and the king: one public message, one picture.
        msg = await fake.wait_for_message(
            lambda m: m.text.count("Computer (blue)** played") == 2,
            channel="games",
            public=True,
            after=ix.sent_seq,
            timeout=TIMEOUT,
        )
        assert [a.filename for a in msg.attachments] == ["board.png"]
        assert msg.attachments[0].description  # the alt text
        assert "`place " in msg.text and "`king " in msg.text
        assert fake.users["alice"].id in msg.pinged_ids
    finally:
        await runner.stop()


async def test_a_computer_turn_pending_at_start_up_is_played(fake, tmp_path):
    """The database says the computer is to move (as after a crash): the new process plays it."""
    channel = fake.channels["games"].id
    alice = fake.users["alice"]
    store = await Store.open(str(tmp_path / "torres.db"))
    service = GameService(store, ServiceConfig(seed=5))
    user = User(alice.id, "alice")
    await service.new(guild_id=fake.guild_id, channel_id=channel, user=user, bots=1)
    await service.start(channel_id=channel, user=user)
    out = await service.play(channel_id=channel, user=user, text="place c3")
    assert out.ai_game == 1  # nobody asks the computer to move: the process must notice
    await store.close()

    runner = _runner(fake, tmp_path, TORRES_AI_SECONDS="0.1", TORRES_REMINDER_CHECK_SECONDS="0.3")
    await runner.start()
    try:
        msg = await fake.wait_for_message(
            lambda m: "Computer (blue)** played `place " in m.text,
            channel="games",
            public=True,
            timeout=TIMEOUT,
        )
        assert msg.attachments
    finally:
        await runner.stop()
