"""The ``/torres`` slash commands and the turn buttons: a thin layer over the service.

Every handler calls the service, hands the public posts to the channel, then
answers privately: in one request when that is quick, else after deferring first
(:func:`answer_in_time`). Refusals and unexpected errors go through
:func:`report_error`.

Private texts speak the language of the user who asked (``interaction.locale``);
public posts and their buttons speak the game's (chosen at ``/torres new``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import discord
from babel import Locale
from discord import app_commands

from bot.client.views import label
from bot.core.errors import NoGame, NotAllowed, ServiceError
from bot.core.home import CLOCK_NAMES
from bot.core.service import ID_MAX, GameService, Outcome, User
from bot.db.rows import committed_here
from bot.texts.i18n import LANGUAGES, N_, game_language, language, t
from bot.texts.posts import shorten
from bot.texts.rules import TOPICS, topic_text

if TYPE_CHECKING:
    from bot.client.app import TorresBot

log = logging.getLogger(__name__)

# English msgids; shown as t(lang, APOLOGY) in the user's language.
APOLOGY = N_(
    "Sorry, something went wrong on my side; nothing was changed. "
    "The error has been logged for the bot's operator."
)
# When the request had already committed its change, "nothing was changed" would be false.
APOLOGY_AFTER_COMMIT = N_(
    "Sorry, something went wrong on my side after your command was carried out; "
    "`/torres board` shows the game as it is now. "
    "The error has been logged for the bot's operator."
)


def _own_name(code: str) -> str:
    """A language's name in itself, as Babel knows it: ``Deutsch``, ``Nederlands``."""
    name = Locale.parse(code).get_display_name(code) or code
    return name[:1].upper() + name[1:]


# /torres new's language option: each language we speak, under its own name.
LANGUAGE_NAMES = {code: _own_name(code) for code in LANGUAGES}
# /torres new level: the engine's computer players (bot.core.config.AI_LEVELS), weakest first.
LEVEL_NAMES = {
    "random": "random: plays any legal move",
    "heuristic": "heuristic: quick and greedy",
    "search": "search: strong",
    "expert": "expert: strongest, slowest",
}


def user_of(interaction: discord.Interaction) -> User:
    """Who interacted, with their Discord language (the service words private replies in it)."""
    return User(interaction.user.id, interaction.user.display_name, locale=str(interaction.locale))


def lang_of(interaction: discord.Interaction) -> str:
    """The language of the user who interacted: private texts speak it."""
    return language(getattr(interaction, "locale", None))


def whole(value: float | None, lang: str) -> int | None:
    """A whole-number option as it arrived: discord.py reads JSON with orjson, which
    gives a number beyond 64 bits as a float (``1.8446744073709552e+19``); it is made an
    ``int`` again, so that it is checked and shown as the number sent. A fraction
    (only a forged request carries one) is refused."""
    if value is None:
        return None
    if isinstance(value, float) and not value.is_integer():
        raise NotAllowed(
            t(lang, "{number} is not a whole number; nothing was changed.", number=value)
        )
    return int(value)


def game_number(value: float | None, lang: str) -> int | None:
    """A ``game:`` option, refused with the game's number unless it can name a game.

    Discord offers only numbers from 1, but a request can carry any (Discord's own
    limit is 2^53); one beyond the database's integers must not reach it.
    """
    number = whole(value, lang)
    if number is not None and not 0 < number <= ID_MAX:
        raise NoGame(
            t(
                lang,
                "There is no game #{game} on this server (`/torres history` lists them).",
                game=number,
            )
        )
    return number


def _sent_at(interaction: discord.Interaction) -> float:
    """When the player sent the command: the time in its snowflake id, by Discord's clock."""
    return interaction.created_at.timestamp()


T = TypeVar("T")

# Discord forgets an interaction not answered within 3 s of its creation. A
# button whose answer is the work's result (the panel, a confirmation) answers
# with it when the work is quick, in one request; when it is not done this long
# after the interaction reached us (or 2 s after Discord made it), the
# interaction is acknowledged first and the answer follows as an edit.
ANSWER_WITHIN = 1.0
ANSWER_BY = 2.0


async def answer_in_time(
    interaction: discord.Interaction, work: Awaitable[T], acknowledge: Callable[[], Awaitable[Any]]
) -> T:
    """The result of *work*; *acknowledge* is awaited meanwhile if it takes too long."""
    task = asyncio.ensure_future(work)
    age = max(0.0, time.time() - interaction.created_at.timestamp())
    done, _ = await asyncio.wait({task}, timeout=max(0.0, min(ANSWER_WITHIN, ANSWER_BY - age)))
    if not done:
        try:
            await acknowledge()
        except discord.HTTPException:  # too late already: the work goes on, the answer fails
            log.warning("could not acknowledge interaction %s in time", interaction.id)
    return await task


async def defer_private(interaction: discord.Interaction) -> None:
    """Acknowledge privately (Discord shows "thinking…"); the answer follows."""
    if not interaction.response.is_done():
        await interaction.response.defer(ephemeral=True, thinking=True)


async def answer_private(interaction: discord.Interaction, text: Awaitable[str]) -> None:
    """Answer privately with *text* once it is ready, deferring first if it is slow."""
    await send_private(
        interaction, await answer_in_time(interaction, text, partial_defer(interaction))
    )


def partial_defer(interaction: discord.Interaction) -> Callable[[], Awaitable[None]]:
    """:func:`defer_private` for this interaction, as :func:`answer_in_time` takes it."""
    return lambda: defer_private(interaction)


async def send_private(interaction: discord.Interaction, text: str) -> None:
    """Answer privately with *text*, whether or not the interaction was already deferred."""
    await respond_private(interaction, shorten(text))


async def respond_private(
    interaction: discord.Interaction, content: str | None = None, **message: Any
) -> None:
    """A private message answering *interaction*: the response itself when quick, or
    the follow-up that resolves its deferral (``answer_in_time``)."""
    if interaction.response.is_done():
        await interaction.followup.send(content, ephemeral=True, **message)
    else:
        await interaction.response.send_message(content, ephemeral=True, **message)


async def edit_in_place(interaction: discord.Interaction, **message: Any) -> None:
    """Answer a button or menu by editing its message: with the response itself when
    quick, or after the deferred update (``answer_in_time``)."""
    if interaction.response.is_done():
        await interaction.edit_original_response(**message)
    else:
        await interaction.response.edit_message(**message)


async def report_error(interaction: discord.Interaction, error: BaseException) -> None:
    """Refusals: their message, privately. Anything else: logged, and a short apology.

    Every text is in the user's language; no traceback ever reaches the user.
    """
    if isinstance(error, app_commands.CommandInvokeError):
        error = error.original
    if interaction.type is discord.InteractionType.autocomplete:
        log.exception("autocomplete failed", exc_info=error)
        return
    lang = lang_of(interaction)
    if isinstance(error, ServiceError):
        # The service words its refusals in the user's language already; a
        # message it could not word so (the store's Busy) is an English msgid.
        # (An empty msgid would fetch the catalog's header: never look that up.)
        text = t(lang, error.message) if error.message else t(lang, APOLOGY)
    elif isinstance(error, app_commands.NoPrivateMessage):
        text = t(lang, "Torres games live in server channels and threads, not in direct messages.")
    elif isinstance(error, app_commands.CheckFailure):
        text = t(lang, "You can't use this command here.")
    else:
        command = interaction.command.qualified_name if interaction.command else "a button"
        log.error(
            "unexpected error in %s (user %s, channel %s)",
            command,
            interaction.user.id,
            interaction.channel_id,
            exc_info=error,
        )
        text = t(lang, APOLOGY_AFTER_COMMIT) if committed_here() else t(lang, APOLOGY)
    # The bot's own reply retries while Discord answers 429 or 5xx.
    reply = getattr(interaction.client, "reply_private", None)
    try:
        if reply is not None and interaction.response.is_done():
            await reply(interaction, text)
        else:
            await send_private(interaction, text)
    except discord.HTTPException:
        log.exception("could not tell user %s about an error", interaction.user.id)


async def handle_button(
    interaction: discord.Interaction[TorresBot], game_id: int, turn: int, action: str
) -> None:
    """A press of Play / End turn / Undo / My hand on a turn message.

    Undo opens the panel, saying what its Undo takes back: this message is the same
    all turn, so a press here can't be bound to the state its player saw (a double
    tap, or phone and desktop, would take back two actions); the panel's Undo is.
    """
    bot = interaction.client
    service = bot.service
    if action in ("play", "undo"):
        from bot.client.panel_views import open_panel

        await open_panel(interaction, game_id, turn, undo=action == "undo")
        return
    try:
        user = user_of(interaction)
        if action == "end":
            ap = await answer_in_time(
                interaction,
                service.end_needs_confirm(game_id=game_id, turn=turn, user=user),
                partial_defer(interaction),
            )
            if ap:
                from bot.client.panel_views import ask

                lang = user.lang
                question = t(
                    lang,
                    "You still have **{ap} AP**. End your turn anyway? (Unused AP are lost.)",
                    ap=ap,
                )
                await ask(interaction, question, "end", game_id, turn, label("end", lang))
                return
        if action == "hand":
            await answer_private(interaction, service.hand(game_id=game_id, turn=turn, user=user))
            return
        outcome = service.end_turn(
            game_id=game_id, turn=turn, user=user, created_at=_sent_at(interaction)
        )
        await bot.answer(interaction, outcome)
    except Exception as exc:  # noqa: BLE001 - every error is reported to the user here
        await report_error(interaction, exc)


@app_commands.guild_only()
class TorresGroup(app_commands.Group, name="torres", description="Play Torres, turn by turn"):
    """The ``/torres`` command group."""

    def __init__(self, bot: TorresBot, service: GameService) -> None:
        super().__init__()
        self.bot = bot
        self.service = service

    async def _run(self, interaction: discord.Interaction, outcome: Awaitable[Outcome]) -> None:
        await self.bot.answer(interaction, outcome)

    @app_commands.command(description="Open a game in this channel; you take the first seat")
    @app_commands.describe(
        players="How many players, computer players included (2-4, default 2)",
        variant="common deck (default), personal decks, or the master version",
        bots="How many of the seats the computer plays (0-3, default 0)",
        clock="Time per turn; when it runs out the computer plays the turn (default: none)",
        language="The language of the game's public messages (default: the server's or yours)",
        level="How strongly the computer players play (default: the bot's setting)",
        thread="Play in a thread of its own (default); False: in this channel",
    )
    @app_commands.choices(
        clock=[app_commands.Choice(name=n, value=h) for h, n in CLOCK_NAMES.items()],
        language=[app_commands.Choice(name=n, value=v) for v, n in LANGUAGE_NAMES.items()],
        level=[app_commands.Choice(name=n, value=v) for v, n in LEVEL_NAMES.items()],
    )
    async def new(
        self,
        interaction: discord.Interaction,
        players: app_commands.Range[int, 2, 4] = 2,
        variant: Literal["common", "personal", "master"] = "common",
        bots: app_commands.Range[int, 0, 3] = 0,
        clock: int | None = None,
        language: str | None = None,
        level: str | None = None,
        thread: bool = True,
    ) -> None:
        lang = lang_of(interaction)
        await self._run(
            interaction,
            self._new(
                interaction,
                whole(players, lang) or 0,
                variant,
                whole(bots, lang) or 0,
                whole(clock, lang),
                language,
                level,
                thread,
            ),
        )

    async def _new(
        self,
        interaction: discord.Interaction,
        players: int,
        variant: str,
        bots: int,
        clock: int | None,
        language: str | None,
        level: str | None,
        thread: bool = True,
    ) -> Outcome:
        from bot.client.lobby import open_game

        user = user_of(interaction)
        if clock is not None and clock not in CLOCK_NAMES:  # Discord offers only these
            raise NotAllowed(
                t(user.lang, "Choose the time per turn from the list; nothing was changed.")
            )
        spoken = game_language(language, interaction.guild_locale, interaction.locale)
        outcome = await open_game(
            self.bot,
            interaction,
            in_thread=thread,
            clock=clock,
            players=players,
            variant=variant,
            bots=bots,
            language=spoken,
            ai_level=level,
        )
        if language is None:  # say which one was taken: the author may not expect it
            outcome.reply = (outcome.reply or "") + "\n" + _language_note(user.lang, spoken)
        return outcome

    @app_commands.command(description="Join the open game in this channel (or take back your seat)")
    async def join(self, interaction: discord.Interaction) -> None:
        await self._run(interaction, self._join(interaction))

    async def _join(self, interaction: discord.Interaction) -> Outcome:
        # Back into one's own seat after the computer took it over (bot.core.home), else a seat.
        back = await self.bot.home.rejoin(
            channel_id=_channel(interaction), user=user_of(interaction)
        )
        if back is not None:
            return back
        return await self.service.join(channel_id=_channel(interaction), user=user_of(interaction))

    @app_commands.command(description="Leave the open game before it starts")
    async def leave(self, interaction: discord.Interaction) -> None:
        await self._run(
            interaction,
            self.service.leave(channel_id=_channel(interaction), user=user_of(interaction)),
        )

    @app_commands.command(description="Start the game (its author only); seats in join order")
    async def start(self, interaction: discord.Interaction) -> None:
        await self._run(
            interaction,
            self.service.start(channel_id=_channel(interaction), user=user_of(interaction)),
        )

    @app_commands.command(description="Play one or more actions, e.g. move c3 d3; build e4; end")
    @app_commands.describe(actions="Actions separated by ';' (all or nothing); pick from the list")
    async def play(self, interaction: discord.Interaction, actions: str) -> None:
        await self._run(
            interaction,
            self.service.play(
                channel_id=_channel(interaction),
                user=user_of(interaction),
                text=actions,
                created_at=_sent_at(interaction),
            ),
        )

    @play.autocomplete("actions")
    async def play_actions(
        self, interaction: discord.Interaction, current: str
    ) -> list[app_commands.Choice[str]]:
        try:
            pairs = await self.service.suggest(
                channel_id=_channel(interaction),
                user_id=interaction.user.id,
                typed=current,
                lang=lang_of(interaction),
            )
        except Exception:  # autocomplete must answer; an empty list is the safe answer
            log.exception("autocomplete for %r failed", current)
            return []
        return [app_commands.Choice(name=label, value=value) for label, value in pairs[:25]]

    @app_commands.command(description="Take back your last action of this turn")
    async def undo(self, interaction: discord.Interaction) -> None:
        await self._run(
            interaction,
            self.service.undo(
                channel_id=_channel(interaction),
                user=user_of(interaction),
                created_at=_sent_at(interaction),
            ),
        )

    @app_commands.command(
        description="Show the board (only to you): now, or any game and decision of it"
    )
    @app_commands.describe(
        game="A game's number, finished ones too (default: this channel's game)",
        decision="Show the position after this decision (0: the start; default: the latest)",
    )
    async def board(
        self,
        interaction: discord.Interaction,
        game: app_commands.Range[int, 1] | None = None,
        decision: app_commands.Range[int, 0] | None = None,
    ) -> None:
        lang = lang_of(interaction)
        message = await answer_in_time(
            interaction,
            self._board(interaction, game_number(game, lang), whole(decision, lang)),
            partial_defer(interaction),
        )
        await respond_private(interaction, **message)

    async def _board(
        self, interaction: discord.Interaction, game: int | None, decision: int | None
    ) -> dict[str, Any]:
        """The message ``board`` answers with: text, picture, and a recorded decision's
        ⏮ ◀ ▶ ⏭ (bot.client.review_views)."""
        from bot.client.review_views import board_message, sent

        view = None
        if game is None and decision is None:
            # No game running here: bot.core.home shows the channel's last finished one.
            with contextlib.suppress(NoGame):
                view = await self.service.board(
                    channel_id=_channel(interaction), user=user_of(interaction)
                )
        if view is None:  # a chosen game or decision, or a finished game
            view = await self.bot.home.past_board(
                channel_id=_channel(interaction),
                guild_id=interaction.guild_id,
                user_id=interaction.user.id,
                game_id=game,
                decision=decision,
                lang=lang_of(interaction),
            )
        # A private picture: the asker's language.
        return sent(await board_message(self.bot, view, lang_of(interaction)))

    @app_commands.command(description="Show your cards (only to you)")
    async def hand(self, interaction: discord.Interaction) -> None:
        await answer_private(
            interaction,
            self.service.hand(channel_id=_channel(interaction), user=user_of(interaction)),
        )

    @app_commands.command(description="The rules in brief")
    @app_commands.describe(topic="What to explain (default: an overview)")
    @app_commands.choices(topic=[app_commands.Choice(name=k, value=k) for k in TOPICS])
    async def rules(self, interaction: discord.Interaction, topic: str | None = None) -> None:
        await interaction.response.send_message(
            topic_text(lang_of(interaction), topic), ephemeral=True
        )

    @app_commands.command(
        description="Leave a running game (the computer takes your seat, if it plays one)"
    )
    async def resign(self, interaction: discord.Interaction) -> None:
        await self._confirm(interaction, "resign")

    @app_commands.command(
        description="End this channel's game (its author; channel managers once it is idle)"
    )
    async def cancel(self, interaction: discord.Interaction) -> None:
        await self._confirm(interaction, "cancel")

    async def _confirm(self, interaction: discord.Interaction, what: str) -> None:
        """Resign and cancel ask first (privately); nothing happens until confirmed."""
        from bot.client.panel_views import ask

        c = await answer_in_time(
            interaction,
            self.service.confirmable(
                what=what,
                channel_id=_channel(interaction),
                user=user_of(interaction),
                can_manage_channel=interaction.permissions.manage_channels,
            ),
            partial_defer(interaction),
        )
        await ask(interaction, c.question, what, c.game_id, 0, c.confirm_label)


def _language_note(lang: str, spoken: str) -> str:
    """The reply's line naming the game's language when the author did not choose it."""
    return t(lang, "The game's public messages are in {language}.", language=LANGUAGE_NAMES[spoken])


def _channel(interaction: discord.Interaction) -> int:
    channel_id = interaction.channel_id
    if channel_id is None:  # pragma: no cover - guild_only commands always have a channel
        raise app_commands.NoPrivateMessage()
    return channel_id
