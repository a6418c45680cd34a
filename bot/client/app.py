"""The Discord client: command tree, persistent buttons, posting, background work."""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import secrets
import time
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.client.cog import TorresGroup
from bot.client.delivery import Delivery
from bot.client.home_cog import add_home_commands
from bot.client.learn_views import LearnButton, LearnSelect, add_learn_command
from bot.client.lobby import LobbyButton, LobbyCards
from bot.client.panel_views import ConfirmButton, PanelButton, PanelSelect
from bot.client.per_game import PerGame
from bot.client.pictures import Renderer
from bot.client.replies import (
    first_delivery,
    lang_of,
    report_error,
    send_private,
)
from bot.client.review_views import BoardButton, ReviewButton
from bot.client.translator import CommandTranslator
from bot.client.views import TurnButton
from bot.core.batch import merge_posts
from bot.core.config import BotConfig
from bot.core.errors import Busy, Unavailable
from bot.core.home import HomeService
from bot.core.learning import LearnService
from bot.core.outbox import Poster
from bot.core.review import Reviews
from bot.core.service import GameService, Post
from bot.core.workers import WorkerPool
from bot.db.contract import GameStore
from bot.texts.i18n import t

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)

_SYNC_KEY = "commands_hash"
_MAX_AI_STEPS = 64  # computer decisions in a row before handing back to the background loop
# every component the bot posts
COMPONENTS = (
    TurnButton,
    PanelSelect,
    PanelButton,
    ConfirmButton,
    ReviewButton,
    BoardButton,
    LearnSelect,
    LearnButton,
    LobbyButton,
)


class TorresTree(app_commands.CommandTree):
    """A command tree whose errors all go through one handler."""

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        return first_delivery(interaction)  # a command delivered twice runs once

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError, /
    ) -> None:
        await report_error(interaction, error)


class TorresBot(Delivery):
    """The bot. The store and service are built by the caller and passed in."""

    def __init__(
        self,
        *,
        config: BotConfig,
        store: GameStore,
        service: GameService,
        workers: WorkerPool | None = None,
        **client_options: Any,
    ) -> None:
        # The bot never joins voice: no start-up warnings about voice libraries.
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        intents = discord.Intents.none()
        intents.guilds = True
        super().__init__(
            intents=intents,
            chunk_guilds_at_startup=False,
            guild_ready_timeout=config.guild_ready_timeout,
            allowed_mentions=discord.AllowedMentions.none(),
            **client_options,
        )
        self.config = config
        self.store = store
        self.service = service
        self.tree = TorresTree(self)
        self.home = HomeService(
            store, ai_level=service.config.ai_level, clock_scale=config.clock_scale
        )
        self.reviews = Reviews(store, workers)  # /torres review, the final chart
        group = TorresGroup(self, service)
        add_home_commands(group, self, self.home)
        self.learn = LearnService(store, seed=service.config.seed, workers=workers)
        add_learn_command(group, self, self.learn)
        self.tree.add_command(group)
        self._ai = PerGame(self._ai_burst, "torres-ai")  # a game's computers, one task
        self._background: asyncio.Task[None] | None = None
        self._ready_note: asyncio.Task[None] | None = None
        self.renderer = Renderer(config.render_threads, workers, config.render_processes)
        self.workers = workers
        self._started = time.time()
        self.poster = Poster(store, self.send_post, started=self._started)
        self.lobby = LobbyCards(self)  # the lobby cards of games in threads of their own
        self._next_prune = self._started
        self._nonce_salt = "00000000"
        # Each game's latest turn message as posted (see _retire_turn_message).
        self._turn_messages: OrderedDict[int, discord.Message] = OrderedDict()

    async def setup_hook(self) -> None:
        self.add_dynamic_items(*COMPONENTS)
        self._nonce_salt = await self._salt()
        await self.renderer.start()
        if self.workers is not None:
            await self.workers.start()
        await self.tree.set_translator(CommandTranslator())  # German and Dutch descriptions
        if self.config.shard_ids is None or 0 in self.config.shard_ids:
            await self.sync_commands()  # one process syncs: the one running shard 0
        self._background = asyncio.create_task(self._background_loop(), name="torres-background")
        self._ready_note = asyncio.create_task(self._say_ready(), name="torres-ready")

    async def close(self) -> None:
        tasks = [t for t in (self._background, self._ready_note) if t is not None]
        tasks += self._ai.tasks.values()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        await self.lobby.close()
        await self.poster.close()  # what is unsent stays queued for the next start
        await self.renderer.aclose()
        await super().close()

    async def _say_ready(self) -> None:
        """The line that says the start went well (README, *Running the bot on Discord*).

        (Not an ``on_ready`` handler: discord.py dispatches READY from a task that may
        finish after ``close()``, and dispatching then raises in that task.)
        """
        await self.wait_until_ready()
        log.info(
            "ready: logged in as %s (id %s); servers: %d",
            self.user,
            self.user.id if self.user else "?",
            len(self.guilds),
        )

    async def on_interaction(self, interaction: discord.Interaction) -> None:
        """A press whose custom id none of the bot's components reads (forged, or
        numbers that are not plain digits) gets a private answer, not Discord's
        "This interaction failed"."""
        if interaction.type is not discord.InteractionType.component:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        custom_id = str(data.get("custom_id", ""))
        if any(c.__discord_ui_compiled_template__.fullmatch(custom_id) for c in COMPONENTS):
            return  # the component answers
        if not first_delivery(interaction):
            return
        log.info("a press with an unknown custom id %r", custom_id[:100])
        text = t(
            lang_of(interaction), "This button doesn't belong to any game; nothing was changed."
        )
        try:
            await send_private(interaction, text)
        except discord.HTTPException:
            log.warning("could not answer a press with an unknown custom id")

    async def _salt(self) -> str:
        """Eight digits kept in the database, so that post nonces differ between databases."""
        salt = await self.store.get_meta("nonce_salt")
        if salt is None:
            salt = f"{secrets.randbelow(10**8):08d}"
            await self.store.set_meta("nonce_salt", salt)
        return salt

    # -- command sync -----------------------------------------------------------------

    def command_payload(self) -> list[dict[str, Any]]:
        return [command.to_dict(self.tree) for command in self.tree.get_commands()]

    async def localized_payload(self) -> list[dict[str, Any]]:
        """The payload as synced: with the translator's localizations, once it is set."""
        translator = self.tree.translator
        if translator is None:
            return self.command_payload()
        commands = self.tree.get_commands()
        return [await command.get_translated_payload(self.tree, translator) for command in commands]

    async def sync_commands(self) -> bool:
        """Sync the command tree if its payload changed since the last sync; True if synced."""
        guild = self.config.sync_guild
        payload = json.dumps(await self.localized_payload(), sort_keys=True)
        key = f"{self.application_id}:{guild or 'global'}:{payload}"
        digest = hashlib.sha256(key.encode()).hexdigest()
        if await self.store.get_meta(_SYNC_KEY) == digest:
            log.info("slash commands unchanged; not syncing")
            return False
        try:
            if guild is not None:
                target = discord.Object(id=guild)
                self.tree.copy_global_to(guild=target)
                await self.tree.sync(guild=target)
            else:
                await self.tree.sync()
        except discord.HTTPException:
            # Commands registered earlier keep working; the next start tries again.
            log.exception("could not sync the slash commands")
            return False
        try:
            await self.store.set_meta(_SYNC_KEY, digest)
        except Busy:  # synced all the same; the next start syncs once more
            log.warning("slash commands synced, but the database was busy: not noted")
        log.info("slash commands synced (%s)", f"guild {guild}" if guild else "global")
        return True

    async def on_app_command_completion(
        self, interaction: discord.Interaction, command: Any
    ) -> None:
        """After any command: what the user must hear once (a DM Discord refused)."""
        try:
            notice = await self.home.pending_notice(interaction.user.id, lang_of(interaction))
            if notice is not None:
                await interaction.followup.send(notice, ephemeral=True)
        except Exception:
            log.exception("could not tell user %s about a refused DM", interaction.user.id)

    async def _record_results(self) -> None:
        """Write the results of ended games (stats and ratings read them); never raises."""
        try:
            await self.home.record_results()
        except Unavailable:  # the store logged why; the background loop retries
            pass
        except Exception:  # the game is over all the same; the background loop retries
            log.exception("could not record game results")

    # -- computer players and reminders ------------------------------------------------

    def kick_ai(self, game_id: int) -> None:
        """Let the computer players of a game move, unless they are already at it."""
        self._ai.kick(game_id)

    async def _ai_burst(self, game_id: int) -> None:
        # Consecutive computer decisions go out as one message (one picture); their
        # outbox rows keep them safe meanwhile.
        pending: list[Post] = []
        self.poster.hold(game_id)
        try:
            for _ in range(_MAX_AI_STEPS):
                outcome = await self.service.ai_step(game_id)
                if outcome is None:
                    break
                pending.extend(outcome.posts)
        except asyncio.CancelledError:
            raise
        except (Busy, Unavailable):  # the background loop hands the turn back later
            log.warning("computer player of game %s waits: the database takes no writes", game_id)
        except Exception:
            log.exception("computer player failed in game %s", game_id)
        finally:
            sent = self.poster.submit(merge_posts(pending)) if pending else None
            self.poster.release(game_id)
        if sent is not None:
            await sent

    async def _background_loop(self) -> None:
        """Deliver posts a crash left behind, resume computer turns, send due reminders."""
        await self.wait_until_ready()
        while not self.is_closed():
            try:
                # Games whose computer is still moving post their decisions as one message.
                await self.poster.resume(skip=set(self._ai.tasks), mine=self.service.owns_game)
                for game_id in await self.service.games_awaiting_ai():
                    self.kick_ai(game_id)
                for post in await self.service.due_reminders():
                    self.poster.submit(post)
                for outcome in await self.home.due_clocks(self.service):
                    await self._hand_over(outcome)  # the note, the turn, then the computer
                await self._record_results()
                if time.time() >= self._next_prune:
                    await self.service.prune_delivered()
                    self._next_prune = time.time() + 3600
            except asyncio.CancelledError:
                raise
            except Busy:
                log.warning("background pass skipped: the database is busy")
            except Unavailable:  # the store logged why (a full disk, a replaced file)
                log.debug("background pass skipped: the database takes no writes")
            except Exception:
                log.exception("background loop failed; retrying")
            await asyncio.sleep(self.config.reminder_check_seconds)


class ShardedTorresBot(TorresBot, discord.AutoShardedClient):
    """The bot on some shards (``TORRES_SHARD_IDS``) of ``TORRES_SHARD_COUNT``, in this process."""


def make_bot(
    *,
    config: BotConfig,
    store: GameStore,
    service: GameService,
    workers: WorkerPool | None = None,
) -> TorresBot:
    """A plain client when sharding is not configured (as before), else a sharded one."""
    if config.shard_count is None or config.shard_ids is None:
        return TorresBot(config=config, store=store, service=service, workers=workers)
    return ShardedTorresBot(
        config=config,
        store=store,
        service=service,
        workers=workers,
        shard_count=config.shard_count,
        shard_ids=list(config.shard_ids),
    )
