"""Sharding settings, which games a process owns, and one process per shard."""

from __future__ import annotations

import pytest

from bot.__main__ import claim_shards
from bot.core.config import BotConfig, ConfigError
from bot.core.service import ServiceConfig
from bot.db.contract import open_store


def test_shard_settings():
    base = {"DISCORD_TOKEN": "t"}
    plain = BotConfig.from_env(base)
    assert plain.shard_count is None and plain.shard_ids is None
    cfg = BotConfig.from_env({**base, "TORRES_SHARD_COUNT": "4", "TORRES_SHARD_IDS": " 3, 1 "})
    assert cfg.shard_count == 4 and cfg.shard_ids == (1, 3)
    every = BotConfig.from_env({**base, "TORRES_SHARD_COUNT": "2"})
    assert every.shard_ids == (0, 1)
    for env, message in (
        ({"TORRES_SHARD_IDS": "0"}, "TORRES_SHARD_IDS needs TORRES_SHARD_COUNT"),
        ({"TORRES_SHARD_COUNT": "2", "TORRES_SHARD_IDS": "2"}, "must name shards 0 to 1"),
        ({"TORRES_SHARD_COUNT": "2", "TORRES_SHARD_IDS": "a"}, "whole numbers separated"),
        ({"TORRES_SHARD_COUNT": "0"}, "TORRES_SHARD_COUNT must be at least 1"),
    ):
        with pytest.raises(ConfigError, match=message):
            BotConfig.from_env({**base, **env})


def test_a_process_owns_the_games_of_its_shards():
    """Discord's routing: (guild_id >> 22) % count; games without a guild belong to shard 0."""
    guild_on = {s: (999 + s) << 22 for s in range(3)}  # guild ids on shards 0, 1, 2 of 3
    one = ServiceConfig(shard_count=3, shard_ids=(1,))
    assert [one.owns(guild_on[s]) for s in range(3)] == [False, True, False]
    assert not one.owns(None)
    assert ServiceConfig(shard_count=3, shard_ids=(0, 2)).owns(None)
    assert all(ServiceConfig().owns(g) for g in [*guild_on.values(), None])


async def test_a_second_process_for_a_shard_is_refused(postgres, capsys):
    """Two processes configured for one shard on one PostgreSQL: the second one stops."""
    url = postgres.create_database("claim")
    cfg = BotConfig.from_env(
        {"DISCORD_TOKEN": "t", "TORRES_DB": url, "TORRES_SHARD_COUNT": "2", "TORRES_SHARD_IDS": "1"}
    )
    first, second = await open_store(url), await open_store(url)
    assert await claim_shards(first, cfg, wait=0)
    assert not await claim_shards(second, cfg, wait=0.5)
    err = capsys.readouterr().err
    assert "shard 1 of 2 is already run by another bot process" in err
    assert "give every process its own TORRES_SHARD_IDS" in err
    await first.close()  # (a SIGKILL closes its connection just the same)
    assert await claim_shards(second, cfg, wait=5)
    await second.close()
