"""Fixtures for the end-to-end tests: a fake Discord and the real bot process."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from tests.bot.e2e._harness import BotRunner
from tests.fakediscord import FakeDiscord


@pytest_asyncio.fixture
async def runner(tmp_path: Path, request: pytest.FixtureRequest) -> AsyncIterator[BotRunner]:
    extra = getattr(request, "param", {}) or {}
    fake = await FakeDiscord(
        members=("alice", "bob", "carol", "dana"),
        moderators=("dana",),
        channels=("general", "games"),
        threads={"games-2": "games"},
    ).start()
    r = BotRunner(fake, tmp_path / "torres.db", tmp_path / "bot.log", extra)
    try:
        await r.start()
        yield r
        # Nothing the bot sent may have been refused by "Discord"; no "thinking…" left dangling.
        assert fake.errors == [], f"Discord would have refused: {fake.errors}"
        dangling = [
            m
            for m in fake.messages.values()
            if m.loading and not m.deleted and m.interaction.id not in r.abandoned
        ]
        assert dangling == [], (
            f"deferred replies never resolved: {[m.interaction for m in dangling]}"
        )
        late = [
            ix
            for ix in fake.interactions.values()
            if ix.callback_type is None and ix.id not in r.abandoned
        ]
        assert late == [], f"interactions never acknowledged: {late}"
        leaked = [m for m in fake.messages.values() if "Traceback" in m.text or 'File "' in m.text]
        assert leaked == [], f"a traceback reached users: {leaked}"
        assert r.unexpected_log_errors() == [], "the bot logged errors"
    finally:
        (tmp_path / "transcript.txt").write_text(fake.transcript())
        pictures = [m for m in sorted(fake.messages.values(), key=lambda m: m.seq) if m.attachments]
        for label, m in (("first", pictures[:1]), ("last", pictures[-1:])):
            for msg in m:
                (tmp_path / f"{label}_{msg.attachments[0].filename}").write_bytes(
                    msg.attachments[0].data
                )
        await r.stop()
        print("--- bot log (shown by pytest when the test fails) ---\n" + r.log_text())
        await fake.stop()
