"""The Discord client: command tree, persistent buttons, posting, background work."""

from __future__ import annotations

import asyncio
import hashlib
import io
import json
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Iterable
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import discord
from discord import app_commands

from bot.cog import TorresGroup, report_error
from bot.config import BotConfig
from bot.service import GameService, Outcome, Post
from bot.store import Store
from bot.views import TurnButton, turn_view

log = logging.getLogger(__name__)

_SYNC_KEY = "commands_hash"
_MAX_AI_STEPS = 64  # computer decisions in a row before handing back to the background loop


def _render_png(position: dict[str, Any], viewer: str | None, highlight: list[str]) -> bytes:
    from renderer import render_board

    return render_board(position, viewer, highlight)


def _warm_up() -> None:
    import renderer  # noqa: F401  (import once per worker, before the first turn)


def _init_worker(parent: int) -> None:
    """Runs first in each render process: import the renderer, and die with the bot.

    A killed bot (SIGKILL) cannot stop its pool, and the workers would wait for
    work forever; so each one watches its parent and exits when it is gone.
    """
    _warm_up()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


class Renderer:
    """Draws board pictures off the event loop.

    With *processes* > 0 the drawing runs in that many worker processes, so it
    neither holds the interpreter lock the event loop needs nor is limited to
    one core; with 0 it runs in a thread of this process.
    """

    def __init__(self, processes: int) -> None:
        self._pool: ProcessPoolExecutor | None = None
        if processes > 0:
            self._pool = ProcessPoolExecutor(
                max_workers=processes,
                mp_context=multiprocessing.get_context("spawn"),
                initializer=_init_worker,
                initargs=(os.getpid(),),
            )
        self._processes = processes

    async def start(self) -> None:
        """Start the workers now rather than on the first turn."""
        if self._pool is not None:
            loop = asyncio.get_running_loop()
            await asyncio.gather(
                *(loop.run_in_executor(self._pool, _warm_up) for _ in range(self._processes))
            )

    async def render(
        self, position: dict[str, Any], viewer: str | None, highlight: Iterable[str]
    ) -> bytes:
        squares = sorted(highlight)
        if self._pool is None:
            return await asyncio.to_thread(_render_png, position, viewer, squares)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, _render_png, position, viewer, squares)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)


class TorresTree(app_commands.CommandTree):
    """A command tree whose errors all go through one handler."""

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError, /
    ) -> None:
        await report_error(interaction, error)


class TorresBot(discord.Client):
    """The bot. The store and service are built by the caller and passed in."""

    def __init__(self, *, config: BotConfig, store: Store, service: GameService) -> None:
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(
            intents=intents,
            chunk_guilds_at_startup=False,
            guild_ready_timeout=config.guild_ready_timeout,
            allowed_mentions=discord.AllowedMentions.none(),
        )
        self.config = config
        self.store = store
        self.service = service
        self.tree = TorresTree(self)
        self.tree.add_command(TorresGroup(self, service))
        self._ai_tasks: dict[int, asyncio.Task[None]] = {}
        self._background: asyncio.Task[None] | None = None
        self.renderer = Renderer(config.render_processes)

    async def setup_hook(self) -> None:
        self.add_dynamic_items(TurnButton)
        await self.renderer.start()
        await self.sync_commands()
        self._background = asyncio.create_task(self._background_loop(), name="torres-background")

    async def close(self) -> None:
        if self._background is not None:
            self._background.cancel()
        for task in list(self._ai_tasks.values()):
            task.cancel()
        await asyncio.gather(
            *(t for t in [self._background, *self._ai_tasks.values()] if t is not None),
            return_exceptions=True,
        )
        self.renderer.close()
        await super().close()

    # -- command sync -----------------------------------------------------------------

    def command_payload(self) -> list[dict[str, Any]]:
        return [command.to_dict(self.tree) for command in self.tree.get_commands()]

    async def sync_commands(self) -> bool:
        """Sync the command tree if its payload changed since the last sync; True if synced."""
        guild = self.config.sync_guild
        payload = json.dumps(self.command_payload(), sort_keys=True)
        key = f"{self.application_id}:{guild or 'global'}:{payload}"
        digest = hashlib.sha256(key.encode()).hexdigest()
        if await self.store.get_meta(_SYNC_KEY) == digest:
            log.info("slash commands unchanged; not syncing")
            return False
        if guild is not None:
            target = discord.Object(id=guild)
            self.tree.copy_global_to(guild=target)
            await self.tree.sync(guild=target)
        else:
            await self.tree.sync()
        await self.store.set_meta(_SYNC_KEY, digest)
        log.info("slash commands synced (%s)", f"guild {guild}" if guild else "global")
        return True

    # -- sending ----------------------------------------------------------------------

    async def render(
        self, position: dict[str, Any], viewer: str | None, highlight: Iterable[str]
    ) -> io.BytesIO:
        """The board picture as a file-like object, drawn off the event loop."""
        return io.BytesIO(await self.renderer.render(position, viewer, highlight))

    async def deliver(self, interaction: discord.Interaction, outcome: Outcome) -> None:
        """Send an outcome: the public posts, then the private reply, then let computers move.

        Posting first means that when a player sees the reply, the channel
        already shows what their command changed.
        """
        failed = False
        for post in outcome.posts:
            failed |= not await self.send_post(post)
        reply = outcome.reply or "Done."
        if failed:
            reply += (
                "\nYour command was carried out, but I could not post in this channel: "
                "I need the Send Messages, Attach Files and Embed Links permissions here."
            )
        await interaction.followup.send(reply, ephemeral=True)
        if outcome.ai_game is not None:
            self.kick_ai(outcome.ai_game)

    async def send_post(self, post: Post) -> bool:
        """Post publicly in the game's channel; False (logged) if Discord refused."""
        channel = self.get_channel(post.channel_id) or self.get_partial_messageable(post.channel_id)
        kwargs: dict[str, Any] = {
            "allowed_mentions": discord.AllowedMentions(
                everyone=False, roles=False, users=[discord.Object(id=u) for u in post.mentions]
            )
        }
        try:
            if post.position is not None:
                png = await self.render(post.position, None, post.highlight)
                kwargs["file"] = discord.File(png, filename="board.png")
            if post.buttons and post.turn is not None:
                kwargs["view"] = turn_view(post.game_id, post.turn, post.buttons)
            await channel.send(post.text[:2000], **kwargs)  # type: ignore[union-attr]
        except discord.HTTPException:
            log.exception("could not post in channel %s (game %s)", post.channel_id, post.game_id)
            return False
        return True

    # -- computer players and reminders ------------------------------------------------

    def kick_ai(self, game_id: int) -> None:
        """Let the computer players of a game move, unless they are already at it."""
        task = self._ai_tasks.get(game_id)
        if task is not None and not task.done():
            return
        self._ai_tasks[game_id] = asyncio.create_task(
            self._run_ai(game_id), name=f"torres-ai-{game_id}"
        )

    async def _run_ai(self, game_id: int) -> None:
        try:
            for _ in range(_MAX_AI_STEPS):
                outcome = await self.service.ai_step(game_id)
                if outcome is None:
                    return
                for post in outcome.posts:
                    await self.send_post(post)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("computer player failed in game %s", game_id)
        finally:
            self._ai_tasks.pop(game_id, None)

    async def _background_loop(self) -> None:
        """Resume computer turns (e.g. after a restart) and send due reminders."""
        await self.wait_until_ready()
        while not self.is_closed():
            try:
                for game_id in await self.service.games_awaiting_ai():
                    self.kick_ai(game_id)
                for post in await self.service.due_reminders():
                    await self.send_post(post)
            except asyncio.CancelledError:
                raise
            except Exception:
                log.exception("background loop failed; retrying")
            await asyncio.sleep(self.config.reminder_check_seconds)
