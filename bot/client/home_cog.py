"""The ``/torres`` commands for regular players (bot.core.home): games, history, export, stats,
leaderboard. They are added to the existing ``/torres`` group by :func:`add_home_commands`.

Every answer is private: these are a player's own lists and numbers, in the asking
user's language (``interaction.locale``); what ``/torres away`` posts in a game's
channel speaks that game's language (bot.core.home).
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import discord
from discord import app_commands

from bot.client.cog import game_number, lang_of, send_private, user_of, whole
from bot.client.review_views import add_review_commands
from bot.core.home import AWAY_DAYS

if TYPE_CHECKING:
    from bot.client.app import TorresBot
    from bot.core.home import HomeService


def add_home_commands(group: app_commands.Group, bot: TorresBot, home: HomeService) -> None:
    """Attach the commands below to *group* (the ``/torres`` group)."""

    @app_commands.command(description="Your unfinished games, those waiting for you first")
    async def games(interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        text = await home.my_games(
            user_id=interaction.user.id,
            guild_id=interaction.guild_id,
            lang=lang_of(interaction),
        )
        await send_private(interaction, text)

    @app_commands.command(description="Finished games of this channel (or of this server)")
    async def history(interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        text = await home.history(
            channel_id=_channel(interaction),
            guild_id=interaction.guild_id,
            lang=lang_of(interaction),
        )
        await send_private(interaction, text)

    @app_commands.command(description="Download a finished game's record (a text file)")
    @app_commands.describe(game="The game's number (default: this channel's last finished game)")
    async def export(
        interaction: discord.Interaction, game: app_commands.Range[int, 1] | None = None
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        lang = lang_of(interaction)
        out = await home.export(
            channel_id=_channel(interaction),
            guild_id=interaction.guild_id,
            game_id=game_number(game, lang),
            lang=lang,
        )
        file = discord.File(io.BytesIO(out.text.encode()), filename=out.filename)
        await interaction.followup.send(out.reply, file=file, ephemeral=True)

    @app_commands.command(description="Games, wins, average score and rating on this server")
    @app_commands.describe(player="Whose numbers (default: yours)")
    async def stats(interaction: discord.Interaction, player: discord.User | None = None) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        who = player or interaction.user
        text = await home.stats(
            guild_id=interaction.guild_id,
            user_id=who.id,
            name=who.display_name,
            lang=lang_of(interaction),
        )
        await send_private(interaction, text)

    @app_commands.command(description="This server's top 10 players, computer levels included")
    async def leaderboard(interaction: discord.Interaction) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        text = await home.leaderboard(guild_id=interaction.guild_id, lang=lang_of(interaction))
        await send_private(interaction, text)

    @app_commands.command(description="Your settings (only you see them), e.g. turn notices by DM")
    @app_commands.describe(dm="Tell me it's my turn by direct message instead of a channel ping")
    async def settings(interaction: discord.Interaction, dm: bool | None = None) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        text = await home.settings(user_id=interaction.user.id, dm=dm, lang=lang_of(interaction))
        await send_private(interaction, text)

    @app_commands.command(description="Pause your clocks and reminders in all your games")
    @app_commands.describe(days="For how many days (1-14; 0 ends an away period now)")
    async def away(
        interaction: discord.Interaction, days: app_commands.Range[int, 0, AWAY_DAYS]
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        user = user_of(interaction)
        number = whole(days, user.lang)
        assert number is not None  # a required option
        await bot.deliver(interaction, await home.away(user=user, days=number))

    # Errors go to the tree's handler (bot.client.cog.report_error), like the other commands'.
    for command in (games, history, export, stats, leaderboard, settings, away):
        group.add_command(command)
    add_review_commands(group)  # /torres review (bot.client.review_views)


def _channel(interaction: discord.Interaction) -> int:
    if interaction.channel_id is None:  # pragma: no cover - guild_only commands have one
        raise app_commands.NoPrivateMessage()
    return interaction.channel_id
