"""Retiring a turn message (its buttons disabled) leaves nothing in discord.py's view store.

The soak benchmark (bench/soak_bench.py) found the bot's memory growing by one live
view per turn message: the disabled copy of the buttons was kept for good.
"""

from __future__ import annotations

from typing import Any

import discord
import pytest

from bot.client.app import TorresBot
from bot.core.config import BotConfig
from bot.core.service import Post
from tests.bot.conftest import Env


@pytest.fixture
def bot(env: Env) -> TorresBot:
    return TorresBot(config=BotConfig(token="x"), store=env.store, service=env.service)


def _data(message_id: int, components: list[dict[str, Any]]) -> dict[str, Any]:
    """A channel message as Discord sends it."""
    return {
        "id": str(message_id),
        "channel_id": "1",
        "author": {"id": "5", "username": "torres", "discriminator": "0", "avatar": None},
        "content": "turn",
        "timestamp": "2026-01-01T00:00:00+00:00",
        "edited_timestamp": None,
        "tts": False,
        "mention_everyone": False,
        "mentions": [],
        "mention_roles": [],
        "attachments": [],
        "embeds": [],
        "pinned": False,
        "type": 0,
        "components": components,
    }


def _turn_message(bot: TorresBot, message_id: int, turn: int) -> discord.Message:
    buttons = [
        {"type": 2, "style": 3, "label": name, "custom_id": f"torres:7:{turn}:{name}"}
        for name in ("play", "end", "undo", "hand")
    ]
    data = _data(message_id, [{"type": 1, "components": buttons}])
    return discord.Message(state=bot._connection, channel=bot.get_partial_messageable(1), data=data)


async def test_retired_turn_messages_leave_no_view_behind(bot: TorresBot, monkeypatch):
    edits: list[dict[str, Any]] = []

    async def edit_message(channel_id: int, message_id: int, *, params: Any) -> dict[str, Any]:
        edits.append(params.payload)
        return _data(message_id, params.payload.get("components", []))

    monkeypatch.setattr(bot.http, "edit_message", edit_message)
    for turn in range(1, 30):
        post = Post(1, 7, "turn", position={"p": turn})
        await bot._retire_turn_message(post, _turn_message(bot, 1000 + turn, turn))
    # Every earlier turn message had its buttons disabled ...
    assert len(edits) == 28
    assert all(c["disabled"] for e in edits for row in e["components"] for c in row["components"])
    # ... and none of those views is kept: nothing can press a disabled button.
    store = bot._connection._view_store
    assert store._synced_message_views == {}
    assert [key for key in store._views if key is not None] == []
