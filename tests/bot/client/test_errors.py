"""Unexpected errors: logged with a traceback, an apology for the user, the game unchanged."""

from __future__ import annotations

import logging
from typing import Any

import discord
import pytest
from discord import app_commands

import bot.db.sqlite
from bot.client.cog import APOLOGY, report_error
from bot.core.errors import NotYourTurn
from tests.bot.conftest import ANN, BOB, CHANNEL, GUILD, Env


class _Response:
    def __init__(self, done: bool) -> None:
        self.done = done
        self.sent: list[tuple[str, bool]] = []

    def is_done(self) -> bool:
        return self.done

    async def send_message(self, text: str, *, ephemeral: bool = False) -> None:
        self.sent.append((text, ephemeral))
        self.done = True


class _Followup:
    def __init__(self) -> None:
        self.sent: list[tuple[str, bool]] = []

    async def send(self, text: str, *, ephemeral: bool = False, **_: Any) -> None:
        self.sent.append((text, ephemeral))


class FakeInteraction:
    """Just what report_error touches on a discord.Interaction."""

    def __init__(self, *, deferred: bool, kind: discord.InteractionType) -> None:
        self.type = kind
        self.response = _Response(deferred)
        self.followup = _Followup()
        self.command = None
        self.user = discord.Object(id=5)
        self.channel_id = 77
        self.client = None  # not the bot: replies go straight to send_private

    @property
    def private_messages(self) -> list[tuple[str, bool]]:
        return self.response.sent + self.followup.sent


async def test_refusal_is_sent_privately():
    """A service refusal (also wrapped by discord.py) reaches the user as its own message."""
    ix = FakeInteraction(deferred=True, kind=discord.InteractionType.application_command)
    await report_error(ix, NotYourTurn("It's not your turn."))  # type: ignore[arg-type]
    ix2 = FakeInteraction(deferred=False, kind=discord.InteractionType.component)
    wrapped = app_commands.CommandInvokeError.__new__(app_commands.CommandInvokeError)
    wrapped.original = NotYourTurn("Wait.")
    await report_error(ix2, wrapped)  # type: ignore[arg-type]
    assert ix.private_messages == [("It's not your turn.", True)]
    assert ix2.private_messages == [("Wait.", True)]


async def test_unexpected_error_is_logged_and_apologised_for(caplog):
    """A bug: the traceback goes to the log, the user gets a short apology and nothing else."""
    ix = FakeInteraction(deferred=True, kind=discord.InteractionType.application_command)
    try:
        raise KeyError("secret internal detail")
    except KeyError as exc:
        error = exc
    with caplog.at_level(logging.ERROR, logger="bot.client.cog"):
        await report_error(ix, error)  # type: ignore[arg-type]
    assert ix.private_messages == [(APOLOGY, True)]
    assert "secret internal detail" not in APOLOGY
    (record,) = caplog.records
    assert record.exc_info and record.exc_info[0] is KeyError


async def test_autocomplete_errors_are_only_logged(caplog):
    """An autocomplete interaction cannot take a message: the error is logged, nothing sent."""
    ix = FakeInteraction(deferred=False, kind=discord.InteractionType.autocomplete)
    with caplog.at_level(logging.ERROR, logger="bot.client.cog"):
        await report_error(ix, RuntimeError("x"))  # type: ignore[arg-type]
    assert ix.private_messages == [] and caplog.records


async def test_a_failure_while_saving_leaves_the_game_unchanged(env: Env, monkeypatch):
    """If writing fails half-way, the transaction is rolled back: no log row, old snapshot."""
    await env.service.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN)
    await env.service.join(channel_id=CHANNEL, user=BOB)
    await env.service.start(channel_id=CHANNEL, user=ANN)
    before = await env.store.game(1)
    real_dump = bot.db.sqlite._dump

    def failing_dump(value: Any) -> str | None:
        if isinstance(value, dict) and "knights" in value:
            raise OSError("disk full")
        return real_dump(value)

    monkeypatch.setattr(bot.db.sqlite, "_dump", failing_dump)
    with pytest.raises(OSError, match="disk full"):
        await env.service.play(channel_id=CHANNEL, user=ANN, text="place c3")
    monkeypatch.setattr(bot.db.sqlite, "_dump", real_dump)
    assert await env.store.game(1) == before
    assert await env.store.actions(1) == []
    # and the game goes on normally afterwards (the cached game was not advanced either)
    out = await env.service.play(channel_id=CHANNEL, user=ANN, text="place c3")
    assert "played `place c3`" in out.posts[0].text
