"""What /torres new stores with a game, in both stores: its language and its computer
players' level; the service then plays each game's computer seats at that level."""

from __future__ import annotations

import functools

import pytest

from bot.core.config import AI_LEVELS, BotConfig, ConfigError
from bot.core.errors import NotAllowed
from bot.core.service import GameService, _engine_choose
from tests.bot.conftest import ANN, CHANNEL, CONFIG, GUILD, Env
from tests.bot.db.test_store import Backend, _new_game, backend  # noqa: F401 - the fixture


@pytest.mark.parametrize("level", [None, "expert"])
async def test_a_games_language_and_level_are_stored(backend: Backend, level):  # noqa: F811
    store = await backend.open()
    try:
        game_id = await _new_game(store, bots=1, language="nl", ai_level=level)
        row = await store.game(game_id)
        assert row is not None
        assert (row.language, row.ai_level) == ("nl", level)
    finally:
        await store.close()


async def test_each_game_plays_its_own_level(env: Env):
    service = GameService(env.store, CONFIG, clock=env.clock)  # the engine's players
    await service.new(
        guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=2, bots=1, ai_level="random"
    )
    row = await env.store.active_game(CHANNEL)
    assert row is not None and row.ai_level == "random"
    chooser = service._chooser(row)
    assert isinstance(chooser, functools.partial) and chooser.func is _engine_choose
    assert chooser.keywords == {"level": "random"}
    configured = service._chooser(row.__class__(**{**_fields(row), "ai_level": None}))
    assert configured.keywords == {"level": CONFIG.ai_level}


async def test_an_unknown_level_is_refused_and_opens_nothing(env: Env):
    with pytest.raises(NotAllowed, match="Unknown computer level 'grandmaster'"):
        await env.service.new(
            guild_id=GUILD, channel_id=CHANNEL, user=ANN, bots=1, ai_level="grandmaster"
        )
    assert await env.store.active_game(CHANNEL) is None


def _fields(row):
    return {name: getattr(row, name) for name in row.__dataclass_fields__}


def test_the_configured_level_may_be_expert():
    env = {"DISCORD_TOKEN": "x", "TORRES_AI_LEVEL": "expert"}
    assert BotConfig.from_env(env).ai_level == "expert"
    assert AI_LEVELS[-1] == "expert"
    with pytest.raises(ConfigError, match="TORRES_AI_LEVEL"):
        BotConfig.from_env({**env, "TORRES_AI_LEVEL": "grandmaster"})


def test_new_offers_every_level_the_engine_has_weakest_first():
    from bot.client.cog import LEVEL_NAMES

    assert tuple(LEVEL_NAMES) == AI_LEVELS
