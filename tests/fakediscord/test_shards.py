"""The fake's sharded gateway, checked with unmodified discord.py AutoShardedClients."""

from __future__ import annotations

import asyncio

import discord
import discord.gateway
import discord.http
import yarl

from tests.fakediscord import FakeDiscord


class Client(discord.AutoShardedClient):
    def __init__(self, shard_ids: list[int]) -> None:
        super().__init__(
            intents=discord.Intents.none() | discord.Intents(guilds=True),
            shard_ids=shard_ids,
            shard_count=2,
            chunk_guilds_at_startup=False,
            guild_ready_timeout=0.1,
        )
        self.interactions: list[tuple[int | None, int | None]] = []
        self.ready_event = asyncio.Event()

    async def on_ready(self) -> None:
        self.ready_event.set()

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        self.interactions.append((interaction.guild_id, self.get_guild(interaction.guild_id or 0)))
        await interaction.response.send_message("hi", ephemeral=True)


async def test_each_shard_gets_its_guilds_and_their_interactions() -> None:
    fake = await FakeDiscord(guilds=3, shards=2).start()
    saved = discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY
    discord.http.Route.BASE = fake.api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(fake.gateway_url)
    first, second = Client([0]), Client([1])
    runs = [asyncio.create_task(c.start("fake-token")) for c in (first, second)]
    try:
        for c in (first, second):
            await asyncio.wait_for(c.ready_event.wait(), 20)
        await fake.wait_connected()
        g1, g2, g3 = fake.guild_ids
        assert [fake.shard_of(g) for g in fake.guild_ids] == [0, 1, 0]
        assert sorted(g.id for g in first.guilds) == [g1, g3]
        assert [g.id for g in second.guilds] == [g2]
        assert all(g.shard_id == 1 for g in second.guilds)
        fake.global_commands = [{"id": "1", "name": "ping", "type": 1, "options": []}]
        ix = await fake.slash("alice", "games-g2", "ping")
        await ix.response()
        ix = await fake.slash("bob", "general-g3", "ping")
        await ix.response()
        assert [gid for gid, _ in second.interactions] == [g2]
        assert [gid for gid, _ in first.interactions] == [g3]
        assert all(guild is not None for _, guild in first.interactions + second.interactions)
        assert fake.errors == []
        # a shard gone: the fake no longer counts the bot as connected
        await second.close()
        await fake.wait_until(lambda: not fake.connected, 10, "shard 1 to drop")
        assert fake.shard_connected(0) and not fake.shard_connected(1)
    finally:
        for c in (first, second):
            await c.close()
        await asyncio.gather(*runs, return_exceptions=True)
        await fake.stop()
        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = saved
