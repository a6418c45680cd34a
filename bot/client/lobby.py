"""A game in a thread of its own (issue 35): its lobby card in the channel, the card's
buttons (Join, Leave, Start, Cancel), and the thread's members.

``/torres new`` posts the card in the channel and starts the game's thread from it; the
game plays in the thread (its ``channel_id``), and the card is edited in place through the
game's life (open, running, over or cancelled: :func:`bot.texts.lobby_card`). The channel
gets at most three posts per game: the card, a start notice and the result.
Without the permission to start threads the game plays in the channel, as before.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.client.per_game import PerGame
from bot.client.replies import (
    BoundItem,
    answer_in_time,
    partial_defer,
    report_error,
    user_of,
)
from bot.core.service import Lru, Outcome, Post, User
from bot.texts import lobby_words
from bot.texts import posts as texts
from bot.texts.i18n import DEFAULT, language, t, tp
from bot.texts.markup import channel_link, shown_name

if TYPE_CHECKING:
    from bot.client.app import TorresBot

log = logging.getLogger(__name__)

TEMPLATE = r"torres:lobby:(?P<game>[0-9]+):(?P<op>join|leave|start|cancel)"
ARCHIVED = 50083  # Discord: "Operation cannot be performed on an archived thread"
_KNOWN = 4096  # games whose card-or-not, and threads whose members, are remembered

_STYLE = {
    "join": discord.ButtonStyle.success,
    "leave": discord.ButtonStyle.secondary,
    "start": discord.ButtonStyle.primary,
    "cancel": discord.ButtonStyle.danger,
}


def label(op: str, lang: str = DEFAULT) -> str:
    """A lobby button's label in *lang* (the game's: the card is public)."""
    labels = {
        "join": tp(lang, "lobby button", "Join"),
        "leave": tp(lang, "lobby button", "Leave"),
        "start": tp(lang, "lobby button", "Start"),
        "cancel": tp(lang, "lobby button", "Cancel"),
    }
    return labels[op]


class LobbyButton(BoundItem, discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    """A button on a lobby card; its custom_id is ``torres:lobby:GAME:OP``."""

    def __init__(self, game_id: int, op: str, lang: str = DEFAULT) -> None:
        super().__init__(
            discord.ui.Button(
                label=label(op, lang), style=_STYLE[op], custom_id=f"torres:lobby:{game_id}:{op}"
            )
        )
        self.game_id = game_id
        self.op = op

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await press(interaction, self.game_id, self.op)


def lobby_view(game_id: int, lang: str = DEFAULT) -> discord.ui.View:
    """Join, Leave, Start and Cancel (the last two do something for the author only)."""
    view = discord.ui.View(timeout=None)
    for op in ("join", "leave", "start", "cancel"):
        view.add_item(LobbyButton(game_id, op, lang))
    return view


async def press(interaction: discord.Interaction[TorresBot], game_id: int, op: str) -> None:
    """A press on a lobby card: what the matching ``/torres`` command does in the game's
    thread, answered privately (Cancel asks first, as ``/torres cancel`` does)."""
    bot = interaction.client
    service = bot.service
    try:
        user = user_of(interaction)
        if op == "cancel":
            from bot.client.panel_views import ask

            async def check() -> Any:
                where = await service.game_channel(game_id, lang=user.lang)
                return await service.confirmable(
                    what="cancel",
                    channel_id=where,
                    user=user,
                    can_manage_channel=interaction.permissions.manage_channels,
                )

            c = await answer_in_time(interaction, check(), partial_defer(interaction))
            await ask(interaction, c.question, "cancel", c.game_id, 0, c.confirm_label)
            return
        await bot.answer(interaction, _lobby_act(bot, game_id, op, user))
    except Exception as exc:  # noqa: BLE001 - every error is reported to the user here
        await report_error(interaction, exc)


async def _lobby_act(bot: TorresBot, game_id: int, op: str, user: User) -> Outcome:
    where = await bot.service.game_channel(game_id, lang=user.lang)
    if op == "join":  # back into one's own seat (bot.home), else a seat
        back = await bot.home.rejoin(channel_id=where, user=user)
        if back is not None:
            return back
        return await bot.service.join(channel_id=where, user=user)
    if op == "leave":
        return await bot.service.leave(channel_id=where, user=user)
    return await bot.service.start(channel_id=where, user=user)


class _NoThread(Exception):
    """Discord refused to start the game's thread: the game plays in the channel."""


async def open_game(
    bot: TorresBot,
    interaction: discord.Interaction,
    *,
    in_thread: bool,
    clock: int | None,
    **options: Any,
) -> Outcome:
    """``/torres new``: in a thread of its own when asked and allowed, else in the channel
    (the author is told why when a thread was asked for and the bot may not start one)."""
    user = user_of(interaction)
    channel = getattr(interaction, "channel", None)  # None: not cached (or a stub)
    note = ""
    if in_thread and isinstance(channel, discord.TextChannel):
        perms = interaction.app_permissions
        if perms.create_public_threads and perms.send_messages_in_threads:
            try:
                return await _open_in_thread(bot, interaction, channel, user, clock, options)
            except _NoThread:
                pass
        note = t(
            user.lang,
            "This game plays here in the channel: I may not start threads here (I need the "
            "Create Public Threads and Send Messages in Threads permissions).",
        )
    assert interaction.channel_id is not None  # guild_only: always a channel
    outcome = await bot.service.new(
        guild_id=interaction.guild_id, channel_id=interaction.channel_id, user=user, **options
    )
    if clock is not None:  # bot.home: the clock is set before anyone can start the game
        outcome.posts[0].text += "\n" + await bot.home.set_clock(outcome.posts[0].game_id, clock)
    if note:
        outcome.reply += "\n" + note
    return outcome


async def _open_in_thread(
    bot: TorresBot,
    interaction: discord.Interaction,
    channel: discord.TextChannel,
    user: User,
    clock: int | None,
    options: dict[str, Any],
) -> Outcome:
    """The card first (a thread starts from it: no system message in the channel), then
    the thread, the game, the card's real text and buttons, and the author in the thread."""
    spoken = language(options.get("language") or DEFAULT)
    quiet = discord.AllowedMentions.none()
    card = await channel.send(t(spoken, "Opening a Torres game…"), allowed_mentions=quiet)
    try:
        thread = await card.create_thread(
            name=t(spoken, "Torres game"), auto_archive_duration=10080
        )
    except discord.HTTPException as exc:
        log.warning("could not start a thread in channel %s: %s", channel.id, exc)
        await _forget(card.delete())
        raise _NoThread() from exc
    try:
        outcome = await bot.service.new(
            guild_id=interaction.guild_id,
            channel_id=thread.id,
            user=user,
            lobby_channel_id=channel.id,
            lobby_message_id=card.id,
            **options,
        )
    except BaseException:
        await _forget(thread.delete())
        await _forget(card.delete())
        raise
    assert outcome.game_id is not None
    game_id = outcome.game_id
    name = lobby_words.thread_name(game_id, shown_name(user.display), spoken)
    await _forget(thread.edit(name=name))
    if clock is not None:
        line = await bot.home.set_clock(game_id, clock)
        outcome.posts.append(Post(thread.id, game_id, line, language=spoken))
    await bot.lobby.refresh(game_id)
    outcome.reply += "\n" + t(
        user.lang,
        "It plays in a thread of its own, {thread}; the card in the channel has the Join and "
        "Start buttons.",
        thread=channel_link(thread.id),
    )
    return outcome


async def _forget(work: Any) -> None:
    """Tidy-up that may fail (the thing is gone, or Discord is slow): logged, not raised."""
    try:
        await work
    except Exception as exc:  # noqa: BLE001
        log.info("tidy-up failed: %r", exc)


class LobbyCards:
    """Keeps each game's lobby card (and its thread's members) in step with the game."""

    def __init__(self, bot: TorresBot) -> None:
        self.bot = bot
        self._carded: Lru[int, bool] = Lru(_KNOWN)  # game -> whether it has a card
        self._members: Lru[int, set[int]] = Lru(_KNOWN)  # thread -> users added by us
        self._updates = PerGame(self.refresh, "torres-card")  # a game's card, one task

    async def after_post(self, post: Post, message: discord.Message | None) -> None:
        """After a game's post went out (or could not): its card is brought up to date in
        the background (a game's next post never waits for its card); a replay's link is
        kept for the card of a finished game. Updates of one game are coalesced."""
        if self._carded.get(post.game_id) is False:
            return
        if post.animation and message is not None:
            try:
                await self.bot.store.set_meta(f"replay_message:{post.game_id}", message.jump_url)
            except Exception as exc:  # noqa: BLE001 - the card then shows no replay link
                log.warning("could not keep the replay link of game %s: %r", post.game_id, exc)
        self._updates.kick(post.game_id)

    async def close(self) -> None:
        """Stop the card updates under way (the next post of each game redoes them)."""
        tasks = list(self._updates.tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    async def refresh(self, game_id: int) -> None:
        """Edit the game's lobby card to show the game as it is; add its players to its
        thread. Never raises: the game goes on whatever Discord says about the card."""
        try:
            state = await self.bot.service.lobby_card(game_id)
            self._carded[game_id] = state is not None
            if state is None:
                return
            row, seats = state
            assert row.lobby_channel_id is not None and row.lobby_message_id is not None
            lang = language(row.language)
            replay = None
            if row.status == "over":
                replay = await self.bot.store.get_meta(f"replay_message:{game_id}")
            text = texts.shorten(lobby_words.lobby_card(row, seats, lang, replay))
            view = lobby_view(game_id, lang) if row.status == "open" else None
            card = self.bot.get_partial_messageable(row.lobby_channel_id).get_partial_message(
                row.lobby_message_id
            )
            await card.edit(
                content=text, view=view, allowed_mentions=discord.AllowedMentions.none()
            )
            if row.status in ("open", "running"):
                players = [s.user_id for s in seats if s.user_id is not None and not s.is_ai]
                await self._add_members(row.channel_id, players)
        except Exception as exc:  # noqa: BLE001 - deleted card, no permission, shutting down
            log.warning("could not update the lobby card of game %s: %r", game_id, exc)

    async def _add_members(self, thread_id: int, users: list[int]) -> None:
        """Add players to the game's thread (once each per process); an archived thread is
        brought back first."""
        known = self._members.get(thread_id) or set()
        for user_id in users:
            if user_id in known:
                continue
            try:
                await self.bot.http.add_user_to_thread(thread_id, user_id)
            except discord.HTTPException as exc:
                if exc.code != ARCHIVED:
                    raise
                await self.reopen(thread_id)
                await self.bot.http.add_user_to_thread(thread_id, user_id)
            known.add(user_id)
        self._members[thread_id] = known

    async def reopen(self, thread_id: int) -> None:
        """Bring a game's thread back from the archive (Discord's 50083 on a post, an edit
        or a new member). A post alone does that, except in a locked thread: reopening
        one takes Manage Threads, and Discord's refusal is raised as it comes."""
        await self.bot.http.edit_channel(thread_id, archived=False)
