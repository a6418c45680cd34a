"""The Discord client: command tree, persistent buttons, posting, background work."""

from __future__ import annotations

import asyncio
import hashlib
import io
import itertools
import json
import logging
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import aiohttp
import discord
from discord import app_commands

from bot.client.cards import disabled_copy, post_card
from bot.client.cog import (
    TorresGroup,
    answer_in_time,
    lang_of,
    partial_defer,
    report_error,
    send_private,
)
from bot.client.home_cog import add_home_commands
from bot.client.learn_views import LearnButton, LearnSelect, add_learn_command
from bot.client.lobby import LobbyButton, LobbyCards
from bot.client.panel_views import ConfirmButton, PanelButton, PanelSelect
from bot.client.review_views import NO_CHART, BoardButton, ReviewButton, final_summary
from bot.client.translator import CommandTranslator
from bot.client.views import TurnButton, first_delivery, turn_view
from bot.core.batch import MESSAGE_LIMIT, merge_posts, split_message
from bot.core.config import BotConfig
from bot.core.errors import Busy, Unavailable
from bot.core.home import HomeService
from bot.core.learning import LearnService
from bot.core.outbox import FORBIDDEN, POSTED, REJECTED, RETRY, RETRY_FIRST, RETRY_MAX, Poster
from bot.core.review import Reviews
from bot.core.service import GameService, Outcome, Post
from bot.core.workers import WorkerPool
from bot.db.contract import GameStore
from bot.texts.i18n import DEFAULT, language, t
from engine import changed_squares

if TYPE_CHECKING:
    from renderer import BoardView

log = logging.getLogger(__name__)

_SYNC_KEY = "commands_hash"
_REPLY_WAIT = 8.0  # seconds a reply waits for its public posts before saying they are late
_TOKEN_LIFETIME = 14 * 60.0  # an interaction's token lasts 15 minutes; stop retrying before
_LATER = "later"  # a post still being retried when the reply goes out
_TURN_MESSAGES = 4096  # games whose latest turn message is kept in memory
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


def _view(
    position: dict[str, Any],
    viewer: str | None,
    highlight: list[str],
    note: str | None = None,
    labels: dict[str, str] | None = None,
    language: str = DEFAULT,
) -> BoardView:
    """The position read through the engine once, for a picture and its description."""
    from renderer import read_view

    return read_view(
        position, viewer, highlight, highlight_note=note, labels=labels, language=language
    )


def _alt_or_none(view: BoardView) -> str | None:
    """The picture's description for screen readers, cut to the 1,024 characters
    Discord allows; None if it could not be made (the picture goes without it)."""
    from renderer import describe_view

    try:
        text = describe_view(view)
    except Exception:
        log.exception("could not describe the board picture")
        return None
    return text if len(text) <= 1024 else text[:1023] + "…"


def _png_and_alt(
    position: dict[str, Any],
    viewer: str | None,
    highlight: list[str],
    note: str | None,
    labels: dict[str, str] | None,
    language: str,
) -> tuple[bytes, str | None]:
    """The PNG and ``_alt_or_none``, with the position read once for both."""
    from renderer import view_png

    view = _view(position, viewer, highlight, note, labels, language)
    return view_png(view), _alt_or_none(view)


def _animate_gif(positions: list[dict[str, Any]], language: str = DEFAULT) -> bytes:
    from renderer.replay import animate

    highlights = [[]] + [changed_squares(a, b) for a, b in itertools.pairwise(positions)]
    return animate(positions, highlights, language=language)


class Renderer:
    """Draws board pictures off the event loop: in processes of their own (the bot's
    default) or in worker threads.

    A picture (PNG and alt text) costs ~5 ms of CPU, of which ~2-3 ms hold the
    interpreter lock (laying out and pasting; the deflate lets go of it). In a
    thread that made the event loop wait for the lock at every socket call under
    load; in processes it does not (docs/bot.md, section 8: processes answered
    faster at 50 and at 200 games).
    """

    def __init__(self, threads: int, workers: WorkerPool | None = None, processes: int = 0) -> None:
        """*processes* > 0: draw in that many processes of their own, else in *threads*
        threads (``TORRES_RENDER_PROCESSES``, ``TORRES_RENDER_THREADS``)."""
        self._pool = ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="render")
        self._processes = WorkerPool(processes) if processes > 0 else None
        # Replays (dozens of frames, ~0.6 s of CPU) go to the worker processes when
        # there are any, else to a thread of their own, so that a game's end never
        # queues the other games' turn pictures behind it.
        self._workers = workers
        self._replays = ThreadPoolExecutor(max_workers=1, thread_name_prefix="replay")
        # Replays drawn at once (held around building the frames and drawing them): with
        # worker processes, one fewer than there are, so a burst of game ends (a
        # stress test queued hundreds) never queues the computer players' thinking
        # behind them in the shared pool, and waiting replays hold no frames in memory.
        slots = max(1, workers.processes - 1) if workers is not None else 1
        self.replays = asyncio.Semaphore(slots)

    async def start(self) -> None:
        """Import the renderer and fill its caches now rather than during the first turn."""
        await asyncio.get_running_loop().run_in_executor(self._pool, _import_renderer)
        if self._processes is not None:
            await asyncio.gather(
                *(self._processes.run(_import_renderer) for _ in range(self._processes.processes))
            )

    async def picture(
        self,
        position: dict[str, Any],
        viewer: str | None,
        highlight: Iterable[str],
        note: str | None = None,
        labels: dict[str, str] | None = None,
        language: str = DEFAULT,
    ) -> tuple[bytes, str | None]:
        """The PNG and its description (``alt_text``, None if that failed), both drawn off
        the event loop in one job (one hand-off a picture), in a render process or a
        thread. (The description in a thread beside the process held the interpreter
        lock against the loop: handing it over cost the loop ~5% at 200 games.)"""
        args = (position, viewer, sorted(highlight), note, labels, language)
        if self._processes is None:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._pool, _png_and_alt, *args)
        return await self._processes.run(_png_and_alt, *args)

    async def animate(self, positions: list[dict[str, Any]], language: str = DEFAULT) -> bytes:
        """The animated replay of a whole game (one frame a decision), as GIF bytes."""
        if self._workers is not None:
            return await self._workers.run(_animate_gif, positions, language)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._replays, _animate_gif, positions, language)

    def _stop_threads(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._replays.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop drawing without waiting (no event loop needed)."""
        self._stop_threads()
        if self._processes is not None:
            self._processes.close()

    async def aclose(self) -> None:
        """Stop drawing, and wait for the render processes to finish (``WorkerPool.aclose``)."""
        self._stop_threads()
        if self._processes is not None:
            await self._processes.aclose()


def _import_renderer() -> None:
    import renderer

    renderer.warm_up()


class TorresTree(app_commands.CommandTree):
    """A command tree whose errors all go through one handler."""

    async def interaction_check(self, interaction: discord.Interaction, /) -> bool:
        return first_delivery(interaction)  # a command delivered twice runs once

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError, /
    ) -> None:
        await report_error(interaction, error)


class TorresBot(discord.Client):
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
        self._ai_tasks: dict[int, asyncio.Task[None]] = {}
        self._ai_again: set[int] = set()  # games kicked while their computer was busy
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
        tasks += self._ai_tasks.values()
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

    # -- sending ----------------------------------------------------------------------

    async def board_file(
        self,
        position: dict[str, Any],
        viewer: str | None,
        highlight: Iterable[str],
        note: str | None = None,
        labels: dict[str, str] | None = None,
        *,
        language: str = DEFAULT,
    ) -> discord.File:
        """The board picture as an attachment, its description the position in words;
        *labels* name the seats as the players know each other (display names).
        *language* is the game's for a public picture, the asker's for a private one."""
        png, alt = await self.renderer.picture(position, viewer, highlight, note, labels, language)
        return discord.File(io.BytesIO(png), filename="board.png", description=alt)

    async def publish(self, outcome: Outcome) -> bool:
        """Send an outcome's public posts and let computers move.

        True if the bot may not post in the channel (403/404); posts Discord
        is slow to take go on being retried.
        """
        return FORBIDDEN in await self._hand_over(outcome)

    async def _hand_over(self, outcome: Outcome) -> set[str]:
        """Queue the posts, start the computer; how the posts fared within ``_REPLY_WAIT``."""
        pending = [self.poster.submit(post) for post in outcome.posts]
        if outcome.ai_game is not None:  # the computer's answer comes after these posts
            self.kick_ai(outcome.ai_game)
        if not pending:
            return set()
        await asyncio.wait(pending, timeout=_REPLY_WAIT)
        return {f.result() if f.done() else _LATER for f in pending}

    async def deliver(self, interaction: discord.Interaction, outcome: Outcome) -> None:
        """Send an outcome: the public posts, then the private reply; computers move meanwhile.

        Posting first means that when a player sees the reply, the channel
        already shows what their command changed. The outcome is committed by
        now, so nothing here may make the reply say otherwise: a post Discord is
        slow to take is retried (and the reply says it is on its way), and a
        reply Discord is slow to take is retried too.
        """
        await self.reply_private(interaction, await self._posted_reply(interaction, outcome))

    async def answer(self, interaction: discord.Interaction, outcome: Awaitable[Outcome]) -> None:
        """Carry out a command and :meth:`deliver` it, answering in one request when quick.

        A command that is done (posts handed over) within ``answer_in_time``'s window
        is answered with its reply at once; a slower one is deferred first (Discord
        shows "thinking…") and its reply follows. Either way the reply comes after
        the public posts, as with :meth:`deliver`.
        """

        async def work() -> str:
            return await self._posted_reply(interaction, await outcome)

        text = await answer_in_time(interaction, work(), partial_defer(interaction))
        await self.reply_private(interaction, text)

    async def _posted_reply(self, interaction: discord.Interaction, outcome: Outcome) -> str:
        """Hand the outcome's posts over; the private reply, with a note on late posts."""
        lang = lang_of(interaction)
        done = outcome.reply or t(lang, "Done.")
        try:
            return done + _delivery_note(await self._hand_over(outcome), lang)
        except Exception:  # the change is committed: report only what is true
            log.exception("could not hand over the posts of a command")
            return (
                done
                + "\n"
                + t(lang, "The public message may be late; the bot's operator has been told.")
            )

    async def reply_private(self, interaction: discord.Interaction, text: str) -> None:
        """The private reply to a command, retried while Discord answers 429 or 5xx.

        An interaction's token lasts 15 minutes; the reply is tried with growing
        pauses until then, and never replaced by an error message: the command
        was carried out.
        """
        delay = RETRY_FIRST
        deadline = interaction.created_at.timestamp() + _TOKEN_LIFETIME
        while True:
            try:
                await send_private(interaction, text)
                return
            except discord.HTTPException as exc:
                if not _transient(exc.status):
                    log.error("could not reply to user %s: %s", interaction.user.id, exc)
                    return
                why: str = f"Discord answered {exc.status}"
            except (OSError, aiohttp.ClientError, TimeoutError) as exc:
                why = f"connection trouble ({exc!r})"
            if time.time() + delay > deadline:
                log.error("gave up replying to user %s: %s", interaction.user.id, why)
                return
            log.warning("replying to user %s failed (%s); retrying", interaction.user.id, why)
            await asyncio.sleep(delay)
            delay = min(delay * 2, RETRY_MAX)

    async def send_post(self, post: Post, late: bool = False) -> str:
        """One attempt at a public post in the game's channel.

        Returns ``POSTED``, ``FORBIDDEN`` (403/404: the bot may not post there),
        ``REJECTED`` (another 4xx: Discord will never take this message) or
        ``RETRY`` (429, 5xx, connection trouble: try again later).
        """
        channel = self.get_channel(post.channel_id) or self.get_partial_messageable(post.channel_id)
        # Whoever asked for turn notices by DM gets one instead of the ping (bot.core.home).
        by_dm = await self._dm_wanted(post)
        kwargs: dict[str, Any] = {
            "allowed_mentions": discord.AllowedMentions(
                everyone=False,
                roles=False,
                users=[discord.Object(id=u) for u in post.mentions if u not in by_dm],
            )
        }
        lang = language(post.language)  # a public post speaks the game's language
        late_note = t(lang, "*(Posted late after a restart.)*")
        no_replay = t(lang, "(The animation could not be drawn.)")
        no_picture = t(lang, "(The board picture could not be drawn; `/torres board` may show it.)")
        # Over Discord's 2,000 characters (a long merged computer post): the text goes
        # out in messages cut between lines, in order; the last carries the picture and
        # buttons. The cuts depend on the post alone, not on whether it goes out late or
        # its picture failed (room is kept for those notes): a repeat after a crash cuts
        # the same pieces, and each piece's own nonce makes Discord return the pieces it
        # already has instead of posting them (or a line of them) twice.
        # A last post may carry two notes: the animation's and the chart's.
        notes = len(no_replay) + 1 + len(t(lang, NO_CHART)) if post.animation else len(no_picture)
        room = len(late_note) + notes + 2
        pieces = split_message(post.text, MESSAGE_LIMIT - room)
        if late:
            pieces[0] = late_note + "\n" + pieces[0]
        files: list[discord.File] = []
        if post.animation:
            try:
                async with self.renderer.replays:
                    frames = await self.service.replay_frames(post.game_id)
                    gif = await self.renderer.animate(frames, lang)
                files.append(discord.File(io.BytesIO(gif), filename="replay.gif"))
            except Exception:  # the game is over all the same; only the animation is missing
                log.exception("could not draw the replay of game %s", post.game_id)
                pieces[-1] += "\n" + no_replay
            chart, said = await final_summary(self, post.game_id, lang, len(pieces[-1]))
            files += chart
            if said:
                pieces[-1] += "\n" + said
        elif post.position is not None:
            try:
                files.append(await self._post_picture(post))
            except Exception:  # the move stands; the message goes out without its picture
                log.exception("could not draw the board of game %s", post.game_id)
                pieces[-1] += "\n" + no_picture
        if files:
            kwargs["files"] = files
        buttons = []
        if post.buttons and post.turn is not None:
            buttons = [TurnButton(post.game_id, post.turn, a, lang) for a in post.buttons]
        card = post.position is not None  # a turn post: one card (Components V2)
        if card:
            picture = files[0] if files else None
            kwargs["view"] = post_card(
                pieces[-1], position=post.position, picture=picture, buttons=buttons
            )
        elif buttons:
            kwargs["view"] = turn_view(post.game_id, post.turn or 0, post.buttons, lang)
        if post.outbox_id is not None:
            # The same nonce on a repeat (after a crash, or a 5xx that Discord acted
            # on) makes Discord return the message it already has instead of
            # posting it twice.
            kwargs["nonce"] = f"{self._nonce_salt}{post.outbox_id:012d}"
        where = f"in channel {post.channel_id} (game {post.game_id})"
        *before, last = pieces
        try:
            for i, piece in enumerate(before):
                extra: dict[str, Any] = {"allowed_mentions": kwargs["allowed_mentions"]}
                if post.outbox_id is not None:
                    extra["nonce"] = f"{self._nonce_salt}{post.outbox_id:012d}p{i}"
                await channel.send(piece, **extra)  # type: ignore[union-attr]
            if card:  # the text is in the card's Text Display
                message = await channel.send(**kwargs)  # type: ignore[union-attr]
            else:
                message = await channel.send(last, **kwargs)  # type: ignore[union-attr]
        except discord.HTTPException as exc:
            if _transient(exc.status):
                log.warning("could not post %s yet: Discord answered %s; will retry", where, exc)
                return RETRY
            await self.lobby.after_post(post, None)  # e.g. the game's thread was deleted
            if exc.status in (403, 404):
                log.error("could not post %s: Discord refused: %s", where, exc)
                return FORBIDDEN
            log.error("could not post %s: Discord rejected the message: %s", where, exc)
            return REJECTED
        except (OSError, aiohttp.ClientError, TimeoutError, discord.RateLimited) as exc:
            log.warning("could not post %s yet (%r); will retry", where, exc)
            return RETRY
        if post.position is not None and isinstance(message, discord.Message):
            try:
                await self._retire_turn_message(post, message, now=bool(by_dm))
            except Exception as exc:  # noqa: BLE001 - posted all the same; never post it again
                log.warning("could not note the turn message of game %s (%s)", post.game_id, exc)
        for user_id in by_dm:
            await self._turn_dm(user_id, post, channel, message)
        if post.replay:  # the game-over message: its result counts from now on
            await self._record_results()
        await self.lobby.after_post(post, message if isinstance(message, discord.Message) else None)
        return POSTED

    async def _post_picture(self, post: Post) -> discord.File:
        """A public post's picture, as everyone may see it, in the game's language."""
        assert post.position is not None
        return await self.board_file(
            post.position,
            None,
            post.highlight,
            post.highlight_note,
            post.labels,
            language=language(post.language),
        )

    async def _retire_turn_message(
        self, post: Post, message: discord.Message, *, now: bool = False
    ) -> None:
        """Disable the buttons of the game's previous turn message: only the latest one plays.

        The previous message is the one this process posted last for the game, as
        Discord returned it, when it is still in memory (only the process owning a
        game's shard posts for it, and nothing else edits a turn message); after a
        restart it is found through the database and fetched. ``now``: store the new
        message at once rather than with the row's mark as sent (turn notices by DM
        follow, and a player answering one may ask ``/torres games`` for the link).
        """
        key = f"turn_message:{post.game_id}"
        known = self._turn_messages.pop(post.game_id, None)
        previous = None if known is not None else await self.store.get_meta(key)
        if post.outbox_id is not None and not now:  # noted with the row's mark as sent
            post.meta[key] = f"{post.channel_id}:{message.id}"
        else:
            await self.store.set_meta(key, f"{post.channel_id}:{message.id}")
        if not post.replay:  # the game-over message: no later turn message retires it
            self._turn_messages[post.game_id] = message
        while len(self._turn_messages) > _TURN_MESSAGES:
            self._turn_messages.popitem(last=False)
        if known is not None:
            channel_id, message_id = known.channel.id, known.id
        elif previous:
            channel_id, message_id = (int(x) for x in previous.split(":"))
        else:
            return
        if message_id == message.id:
            return
        old = self.get_partial_messageable(channel_id).get_partial_message(message_id)
        try:
            fetched = known if known is not None else await old.fetch()
            if not fetched.components:
                return
            view = disabled_copy(fetched)
            # Stopped: discord.py keeps a live view with custom ids in its view store for
            # good (one per turn message: the soak's memory growth, bench/soak_bench.py);
            # disabled buttons dispatch nothing, and the live ones are DynamicItems.
            view.stop()
            await old.edit(view=view)
        except Exception:  # deleted, no permission, shutting down: its buttons answer anyway
            log.info("could not disable the buttons of message %s", message_id)

    async def _dm_wanted(self, post: Post) -> list[int]:
        """The players a turn message is for who want turn notices by DM."""
        if post.turn is None:
            return []
        try:
            return [u for u in post.mentions if await self.home.wants_dm(u)]
        except Exception:  # the channel ping is the safe side
            log.exception("could not read the DM settings for game %s", post.game_id)
            return []

    async def _turn_dm(
        self,
        user_id: int,
        post: Post,
        channel: Any,
        message: discord.Message,
    ) -> None:
        """Tell a player by DM that it is their turn; if Discord refuses, ping them in the
        channel instead and tell them why at their next command. Both speak the game's
        language, like the turn message they point to."""
        lang = language(post.language)
        text = t(
            lang,
            "Your turn in Torres game #{game} in {channel}: {link}",
            game=post.game_id,
            channel=f"<#{post.channel_id}>",
            link=message.jump_url,
        )
        try:
            dm = await self.create_dm(discord.Object(id=user_id))
            if post.position is None:
                await dm.send(text)
            else:
                await dm.send(text, file=await self._post_picture(post))
            return
        except discord.HTTPException as exc:
            if exc.code != 50007:  # 50007: the user accepts no DMs from the bot
                log.warning("could not send a turn DM to user %s: %s", user_id, exc)
        try:
            await self.home.dm_refused(user_id)
            await channel.send(
                t(
                    lang,
                    "{player}, it's your turn in game #{game} "
                    "(I could not send you a direct message).",
                    player=f"<@{user_id}>",
                    game=post.game_id,
                ),
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(id=user_id)]),
            )
        except Exception:
            log.exception("could not ping user %s about game %s", user_id, post.game_id)

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
        task = self._ai_tasks.get(game_id)
        if task is not None and not task.done():
            # It may be past its last look at the game (posting): have it look again.
            self._ai_again.add(game_id)
            return
        self._ai_tasks[game_id] = asyncio.create_task(
            self._run_ai(game_id), name=f"torres-ai-{game_id}"
        )

    async def _run_ai(self, game_id: int) -> None:
        try:
            while True:
                self._ai_again.discard(game_id)
                await self._ai_burst(game_id)
                if game_id not in self._ai_again:
                    return
        finally:
            self._ai_tasks.pop(game_id, None)

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
                await self.poster.resume(skip=set(self._ai_tasks), mine=self.service.owns_game)
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


def _transient(status: int) -> bool:
    """Discord's answers worth repeating: rate limits, its own failures, timeouts."""
    return status in (408, 429) or status >= 500


def _delivery_note(results: set[str], lang: str = DEFAULT) -> str:
    """What the reply adds about public posts that are not (yet) in the channel, in *lang*."""
    if FORBIDDEN in results:
        # Translations name the permissions as Discord's own client does in that language.
        return "\n" + t(
            lang,
            "Your command was carried out, but I could not post in this channel: "
            "I need the Send Messages, Attach Files and Embed Links permissions here.",
        )
    if REJECTED in results:
        return "\n" + t(
            lang,
            "Your command was carried out, but Discord refused the public message; "
            "the bot's operator has been told. `/torres board` shows the game.",
        )
    if _LATER in results:
        return "\n" + t(
            lang,
            "Discord is slow to take the public message right now; it will appear in "
            "the channel as soon as Discord accepts it.",
        )
    return ""


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
