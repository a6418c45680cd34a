"""Delivery: the game's public posts (text, picture, buttons; merged and split to Discord's
limits), turn notices by DM, and private replies that wait for the posts they report."""

from __future__ import annotations

import asyncio
import io
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import aiohttp
import discord

from bot.client.cards import disabled_copy, post_card
from bot.client.lobby import ARCHIVED, LobbyCards
from bot.client.pictures import Renderer
from bot.client.replies import (
    answer_in_time,
    lang_of,
    partial_defer,
    picture_file,
    send_private,
)
from bot.client.review_views import NO_CHART, final_summary
from bot.client.views import TurnButton, turn_view
from bot.core.batch import MESSAGE_LIMIT, split_message
from bot.core.config import BotConfig
from bot.core.home import HomeService
from bot.core.outbox import FORBIDDEN, POSTED, REJECTED, RETRY, RETRY_FIRST, RETRY_MAX, Poster
from bot.core.review import Reviews
from bot.core.service import GameService, Outcome, Post
from bot.db.contract import GameStore
from bot.texts.i18n import DEFAULT, language, t
from bot.texts.markup import channel_link, mention

if TYPE_CHECKING:
    pass

log = logging.getLogger(__name__)


_REPLY_WAIT = 8.0  # seconds a reply waits for its public posts before saying they are late


_TOKEN_LIFETIME = 14 * 60.0  # an interaction's token lasts 15 minutes; stop retrying before


_LATER = "later"  # a post still being retried when the reply goes out


_TURN_MESSAGES = 4096  # games whose latest turn message is kept in memory


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


class Delivery(discord.Client):
    """The bot's half that sends: public posts (with their pictures and buttons), turn DMs,
    private replies after the posts they report, and the retiring of old turn messages."""

    # Set by TorresBot.__init__: what delivery works with.
    config: BotConfig
    store: GameStore
    service: GameService
    home: HomeService
    renderer: Renderer
    poster: Poster
    lobby: LobbyCards
    reviews: Reviews
    _turn_messages: OrderedDict[int, discord.Message]
    _nonce_salt: str
    # The client's own (bot.client.app): the computer's turn, the results' bookkeeping.
    kick_ai: Callable[[int], None]
    _record_results: Callable[[], Awaitable[None]]

    # -- sending ----------------------------------------------------------------------

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

    async def send_post(self, post: Post, late: bool = False, *, reopened: bool = False) -> str:
        """One attempt at a public post in the game's channel (a second one after bringing
        the game's locked thread back from the archive, unless *reopened* already).

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
            if exc.code == ARCHIVED and not reopened:  # a locked thread: the post alone can't
                try:
                    await self.lobby.reopen(post.channel_id)
                except discord.HTTPException as again:
                    log.warning("could not reopen the thread %s: %s", where, again)
                else:
                    return await self.send_post(post, late, reopened=True)
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
        return picture_file(
            await self.renderer.picture(
                post.position,
                None,
                post.highlight,
                post.highlight_note,
                post.labels,
                language=language(post.language),
            )
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
            channel=channel_link(post.channel_id),
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
                    player=mention(user_id),
                    game=post.game_id,
                ),
                allowed_mentions=discord.AllowedMentions(users=[discord.Object(id=user_id)]),
            )
        except Exception:
            log.exception("could not ping user %s about game %s", user_id, post.game_id)
