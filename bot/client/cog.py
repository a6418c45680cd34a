"""The ``/torres`` slash commands and the turn buttons: a thin layer over the service.

Every handler calls the service, hands the public posts to the channel, then
answers privately: in one request when that is quick, else after deferring first
(:func:`answer_in_time`). Refusals and unexpected errors go through
:func:`report_error`.

Private texts speak the language of the user who asked (``interaction.locale``);
public posts and their buttons speak the game's (chosen at ``/torres new``).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Awaitable
from typing import TYPE_CHECKING, Any, Literal

import discord
from babel import Locale
from discord import app_commands

from bot.client.panel_views import ask
from bot.client.replies import (
    answer_in_time,
    answer_private,
    game_number,
    lang_of,
    partial_defer,
    respond_private,
    sent_at,
    user_of,
    whole,
)
from bot.core.errors import NoGame, NotAllowed
from bot.core.home import CLOCK_NAMES
from bot.core.service import GameService, Outcome
from bot.texts.i18n import LANGUAGES, game_language, t
from bot.texts.markup import CHOICES
from bot.texts.rules import TOPICS, topic_text

if TYPE_CHECKING:
    from bot.client.app import TorresBot

log = logging.getLogger(__name__)


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
    @app_commands.choices(  # apart: one decorator takes choices of one type (mypy)
        clock=[app_commands.Choice(name=n, value=h) for h, n in CLOCK_NAMES.items()]
    )
    @app_commands.choices(
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
                created_at=sent_at(interaction),
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
        return [app_commands.Choice(name=label, value=value) for label, value in pairs[:CHOICES]]

    @app_commands.command(description="Take back your last action of this turn")
    async def undo(self, interaction: discord.Interaction) -> None:
        await self._run(
            interaction,
            self.service.undo(
                channel_id=_channel(interaction),
                user=user_of(interaction),
                created_at=sent_at(interaction),
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
        from bot.client.review_views import board_message, past_board_message, sent

        lang = lang_of(interaction)  # a private picture: the asker's language
        if game is None and decision is None:
            # No game running here: bot.core.home shows the channel's last finished one.
            view = None
            with contextlib.suppress(NoGame):
                view = await self.service.board(
                    channel_id=_channel(interaction), user=user_of(interaction)
                )
            if view is not None:
                return sent(await board_message(self.bot, view, lang))
        # A chosen game or decision, or a finished game.
        return sent(await past_board_message(self.bot, interaction, game, decision, lang))

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
