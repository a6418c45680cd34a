"""``/torres learn`` on Discord: the tutorial is one private (ephemeral) message that
every tap edits in place, like the play panel (bot.client.panel_views).

Its components are ``DynamicItem``s whose custom ids carry the learner and the
tutorial's version (``tl:USER:VERSION:OP``), so an open tutorial keeps working after
a restart and a tap on an older copy redraws it instead of acting (bot.core.learning).
An ephemeral message is gone when Discord's client reloads: ``/torres learn`` shows
the tutorial again where it was left.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands

from bot.client.panel_views import button_label, chosen, select_options
from bot.client.replies import (
    APOLOGY,
    BoundItem,
    answer_in_time,
    edit_in_place,
    lang_of,
    picture_file,
    report_error,
    respond_in_time,
    user_of,
)
from bot.core.learning import LearnService, LearnView
from bot.core.panel import Select
from bot.texts import learn as words
from bot.texts.i18n import DEFAULT, N_, t
from bot.texts.posts import shorten

if TYPE_CHECKING:
    from bot.client.app import TorresBot

log = logging.getLogger(__name__)

_ID = r"tl:(?P<user>[0-9]+):(?P<version>[0-9]+):"
SELECT_TEMPLATE = _ID + r"(?P<op>what|do[0-9])"
BUTTON_TEMPLATE = _ID + r"(?P<op>undo|end|ok|leave)"

_BUTTONS = {
    "undo": (N_("Undo"), discord.ButtonStyle.secondary),
    "end": (N_("End turn"), discord.ButtonStyle.primary),
    "ok": (words.GOT_IT, discord.ButtonStyle.success),
    "leave": (words.LEAVE, discord.ButtonStyle.secondary),
}


def learn_id(user: int, version: int, op: str) -> str:
    return f"tl:{user}:{version}:{op}"


class LearnSelect(
    BoundItem, discord.ui.DynamicItem[discord.ui.Select[Any]], template=SELECT_TEMPLATE
):
    """A select of the tutorial: ``what`` (a group) or ``doN`` (an action)."""

    def __init__(
        self, user: int, version: int, op: str, select: Select | None = None, row: int = 0
    ) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=learn_id(user, version, op),
                placeholder=select.placeholder if select else None,
                options=select_options(select),
                row=row,
            )
        )
        self.user, self.version, self.op = user, version, op

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = chosen(interaction)
        value = values[0] if values else ""
        op = "what" if self.op == "what" else "do"
        await press_learn(interaction, self.user, self.version, op, value)


class LearnButton(
    BoundItem, discord.ui.DynamicItem[discord.ui.Button[Any]], template=BUTTON_TEMPLATE
):
    """A button of the tutorial: Undo, End turn, Got it, Leave."""

    def __init__(
        self,
        user: int,
        version: int,
        op: str,
        *,
        disabled: bool = False,
        row: int = 0,
        lang: str = DEFAULT,
    ) -> None:
        text, style = _BUTTONS[op]
        super().__init__(
            discord.ui.Button(
                label=button_label(text, lang),
                style=style,
                custom_id=learn_id(user, version, op),
                disabled=disabled,
                row=row,
            )
        )
        self.user, self.version, self.op = user, version, op

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await press_learn(interaction, self.user, self.version, self.op, "")


def learn_view(state: LearnView, lang: str) -> discord.ui.View:
    """The tutorial's components; none once it is finished or left."""
    view = discord.ui.View(timeout=None)
    if state.closed:
        return view
    for row, select in enumerate(state.selects[:4]):
        view.add_item(LearnSelect(state.owner, state.version, select.key, select, row=row))
    row = min(len(state.selects), 4)
    buttons = [("undo", state.can_undo), ("end", state.can_end)]
    if state.can_confirm:
        buttons = [("ok", True)]
    for op, enabled in [*buttons, ("leave", True)]:
        view.add_item(
            LearnButton(state.owner, state.version, op, disabled=not enabled, row=row, lang=lang)
        )
    return view


async def _message(bot: TorresBot, state: LearnView, lang: str) -> dict[str, Any]:
    message: dict[str, Any] = {"content": shorten(state.text), "view": learn_view(state, lang)}
    if state.position is not None:
        try:
            picture = picture_file(
                await bot.renderer.picture(
                    state.position,
                    "blue",
                    state.highlight,
                    state.note,
                    state.labels,
                    language=lang,
                )
            )
            message["attachments"] = [picture]
        except Exception:  # the tutorial works without its picture
            log.exception("could not draw the tutorial's picture for user %s", state.owner)
    else:
        message["attachments"] = []
    return message


async def press_learn(
    interaction: discord.Interaction[TorresBot], user: int, version: int, op: str, value: str
) -> None:
    """A tap on the tutorial: act, then edit the message in place."""
    bot = interaction.client
    lang = lang_of(interaction)

    async def answer() -> dict[str, Any]:
        try:
            state = await bot.learn.press(
                user_of(interaction), owner=user, version=version, op=op, value=value
            )
        except Exception as exc:  # noqa: BLE001 - every error becomes a short apology
            log.error("unexpected error in the tutorial of user %s", user, exc_info=exc)
            state = LearnView(user, version, t(lang, APOLOGY), closed=True)
        return await _message(bot, state, lang)

    message = await answer_in_time(interaction, answer(), interaction.response.defer)
    try:
        await edit_in_place(interaction, **message)
    except Exception as exc:  # noqa: BLE001
        await report_error(interaction, exc)


def add_learn_command(group: app_commands.Group, bot: TorresBot, service: LearnService) -> None:
    """Attach ``/torres learn`` to *group* (the ``/torres`` group)."""

    @app_commands.command(
        description="Learn Torres by playing: a private game against the computer"
    )
    @app_commands.describe(restart="Begin the tutorial again from the start")
    async def learn(interaction: discord.Interaction, restart: bool = False) -> None:
        lang = lang_of(interaction)

        async def work() -> dict[str, Any]:
            state = await service.begin(user_of(interaction), restart=restart)
            return await _message(bot, state, lang)

        await respond_in_time(interaction, work())

    group.add_command(learn)
