"""``/torres review`` and the stepping buttons (issue 36): the Discord side of bot.core.review.

- ``/torres review game:N``: a finished game's score chart and best castles, privately.
- ``/torres review game:N player:@x``: that player's decisions against the ``expert``
  computer player, privately; ◀ ▶ page through them, the message edited in place.
- ``/torres board``'s answer gets ⏮ ◀ ▶ ⏭, stepping through the game's decisions in place.

The buttons are ``DynamicItem``s like the turn buttons (bot.client.views): what a press needs
is in the custom_id (``torres:review:GAME:SEAT:PAGE:prev|next``,
``torres:board:GAME:DECISION:first|prev|next|last``, the page or decision it goes to),
so they work after a restart. Both answer only the user who sees the message (it is
private), in that user's language.
"""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.client.replies import (
    BoundItem,
    answer_in_time,
    edit_in_place,
    game_number,
    lang_of,
    picture_file,
    report_error,
    respond_private,
)
from bot.core.batch import MESSAGE_LIMIT
from bot.texts.i18n import N_, t
from bot.texts.posts import shorten

if TYPE_CHECKING:
    from bot.client.app import TorresBot
    from bot.client.delivery import Delivery
    from bot.core.review import ReviewPage
    from bot.core.service import BoardView

log = logging.getLogger(__name__)

REVIEW_TEMPLATE = (
    r"torres:review:(?P<game>[0-9]+):(?P<seat>[a-z]{1,16}):(?P<page>[0-9]{1,4}):(?P<dir>prev|next)"
)
BOARD_TEMPLATE = (
    r"torres:board:(?P<game>[0-9]+):(?P<decision>[0-9]{1,6}):(?P<to>first|prev|next|last)"
)
_SYMBOLS = {"first": "⏮", "prev": "◀", "next": "▶", "last": "⏭"}


def add_review_commands(group: app_commands.Group) -> None:
    """Attach ``/torres review`` to *group* (the ``/torres`` group)."""

    @app_commands.command(
        description="A finished game's score chart, or one player's decisions against the expert"
    )
    @app_commands.describe(
        game="The game's number (default: this channel's last finished game)",
        player="Whose decisions to go through, one by one (only you see it)",
    )
    async def review(
        interaction: discord.Interaction[TorresBot],
        game: app_commands.Range[int, 1] | None = None,
        player: discord.User | None = None,
    ) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        client = interaction.client
        lang = lang_of(interaction)
        number = game_number(game, lang)
        channel_id = interaction.channel_id or 0
        if player is None:
            summary = await client.reviews.chart(
                channel_id=channel_id, guild_id=interaction.guild_id, game_id=number, lang=lang
            )
            file = discord.File(
                io.BytesIO(summary.png), filename=summary.filename, description=summary.alt
            )
            await interaction.followup.send(shorten(summary.text), file=file, ephemeral=True)
            return
        message = await page_message(client, interaction, number, lang, user_id=player.id)
        await respond_private(interaction, **sent(message))

    group.add_command(review)


async def page_message(
    bot: TorresBot,
    interaction: discord.Interaction,
    game_id: int | None,
    lang: str,
    *,
    user_id: int | None = None,
    seat: str | None = None,
    page: int = 0,
) -> dict[str, Any]:
    """Page *page* of a player's review (by *user_id* or *seat*) of a game of this
    server (``/torres review player:``, and its ◀ ▶)."""
    shown = await bot.reviews.page(
        channel_id=interaction.channel_id or 0,
        guild_id=interaction.guild_id,
        game_id=game_id,
        user_id=user_id,
        seat=seat,
        page=page,
        lang=lang,
        asker=interaction.user.id,
    )
    return await review_message(bot, shown, lang)


async def review_message(bot: TorresBot, page: ReviewPage, lang: str) -> dict[str, Any]:
    """The message of a review page: its text, its pictures, its ◀ ▶."""
    files = []
    for i, pic in enumerate(page.pictures):
        file = picture_file(
            await bot.renderer.picture(
                pic.position, None, pic.highlight, pic.note, pic.labels, language=lang
            )
        )
        file.filename = "played.png" if i == 0 else "expert.png"
        files.append(file)
    view = discord.ui.View(timeout=None)
    for direction, target in (("prev", page.page - 1), ("next", page.page + 1)):
        button = ReviewButton(page.game_id, page.seat, max(0, target), direction)
        button.item.disabled = not 0 <= target < page.pages
        view.add_item(button)
    view.stop()  # DynamicItems answer the presses; nothing to keep in the view store
    return {"content": shorten(page.text), "attachments": files, "view": view}


def sent(message: dict[str, Any]) -> dict[str, Any]:
    """A message built for an edit (``attachments``) as a new message takes it (``files``)."""
    out = dict(message)
    out["files"] = out.pop("attachments")
    return out


class _StepButton(BoundItem):
    """What the review's and the board's step buttons share: a press shows another
    page of a private message, edited in place (acknowledged first when slow)."""

    @staticmethod
    def _button(symbol: str, custom_id: str) -> discord.ui.Button[Any]:
        return discord.ui.Button(
            label=_SYMBOLS[symbol], style=discord.ButtonStyle.secondary, custom_id=custom_id
        )

    async def message(self, bot: TorresBot, interaction: discord.Interaction, lang: str) -> Any:
        raise NotImplementedError

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            lang = lang_of(interaction)
            message = await answer_in_time(
                interaction,
                self.message(interaction.client, interaction, lang),
                lambda: interaction.response.defer(),
            )
            await edit_in_place(interaction, **message)
        except Exception as exc:  # noqa: BLE001 - every error is reported to the user here
            await report_error(interaction, exc)


class ReviewButton(
    _StepButton, discord.ui.DynamicItem[discord.ui.Button[Any]], template=REVIEW_TEMPLATE
):
    """◀ or ▶ on a review: shows page *page* of *seat*'s review of game *game_id*."""

    def __init__(self, game_id: int, seat: str, page: int, direction: str) -> None:
        super().__init__(
            self._button(direction, f"torres:review:{game_id}:{seat}:{page}:{direction}")
        )
        self.game_id = game_id
        self.seat = seat
        self.page = page

    async def message(
        self, bot: TorresBot, interaction: discord.Interaction, lang: str
    ) -> dict[str, Any]:
        return await page_message(
            bot, interaction, self.game_id, lang, seat=self.seat, page=self.page
        )


def board_steps(view: BoardView) -> discord.ui.View | None:
    """⏮ ◀ ▶ ⏭ under a board of a recorded decision (None: not one)."""
    if view.game_id is None or view.decision is None or view.decisions is None:
        return None
    at, total = view.decision, view.decisions
    targets = {"first": 0, "prev": at - 1, "next": at + 1, "last": total}
    steps = discord.ui.View(timeout=None)
    for to, target in targets.items():
        button = BoardButton(view.game_id, max(0, min(target, total)), to)
        button.item.disabled = target == at or not 0 <= target <= total
        steps.add_item(button)
    steps.stop()
    return steps


class BoardButton(
    _StepButton, discord.ui.DynamicItem[discord.ui.Button[Any]], template=BOARD_TEMPLATE
):
    """A step of ``/torres board``: shows decision *decision* (``last``: the latest)."""

    def __init__(self, game_id: int, decision: int, to: str) -> None:
        super().__init__(self._button(to, f"torres:board:{game_id}:{decision}:{to}"))
        self.game_id = game_id
        self.decision = decision
        self.to = to

    async def message(
        self, bot: TorresBot, interaction: discord.Interaction, lang: str
    ) -> dict[str, Any]:
        decision = None if self.to == "last" else self.decision
        return await past_board_message(bot, interaction, self.game_id, decision, lang)


async def past_board_message(
    bot: TorresBot,
    interaction: discord.Interaction,
    game_id: int | None,
    decision: int | None,
    lang: str,
) -> dict[str, Any]:
    """A decision (None: the latest) of a game of this server, as the asker may see it
    (``/torres board game: decision:``, and its ⏮ ◀ ▶ ⏭)."""
    view = await bot.home.past_board(
        channel_id=interaction.channel_id or 0,
        guild_id=interaction.guild_id,
        user_id=interaction.user.id,
        game_id=game_id,
        decision=decision,
        lang=lang,
    )
    return await board_message(bot, view, lang)


async def board_message(bot: TorresBot, view: BoardView, lang: str) -> dict[str, Any]:
    """``/torres board``'s answer as a message: text, picture, and its steps if any."""
    file = picture_file(
        await bot.renderer.picture(
            view.position,
            view.viewer,
            view.highlight,
            view.highlight_note,
            view.labels,
            language=lang,
        )
    )
    out: dict[str, Any] = {"content": shorten(view.text), "attachments": [file]}
    steps = board_steps(view)
    if steps is not None:
        out["view"] = steps
    return out


NO_CHART = N_("(The score chart could not be drawn.)")


async def final_summary(
    bot: Delivery, game_id: int, lang: str, used: int
) -> tuple[list[discord.File], str]:
    """The game's last post's chart and best castles (*used*: characters already in the
    message). The chart is drawn from the log, like the replay: the same on a resend."""
    try:
        summary = await bot.reviews.summary(game_id, lang)
    except Exception:  # the game is over all the same; only the chart is missing
        log.exception("could not draw the score chart of game %s", game_id)
        return [], t(lang, NO_CHART)
    file = discord.File(io.BytesIO(summary.png), filename=summary.filename, description=summary.alt)
    castles = summary.castles if used + 1 + len(summary.castles) <= MESSAGE_LIMIT else ""
    return [file], castles
