"""The play panel and the confirmation prompts on Discord.

Every item is a ``DynamicItem``: its custom id carries the game, the turn and the
state the panel shows (``tp:GAME:TURN:VERSION:OP``, the version being the game's
log position, ``PanelState.version``), so an open panel keeps working after a
restart, a panel of a finished turn is recognised, and a choice acts only on the
state it was made on: a second tap, or the same choice on a second panel, redraws
the panel instead. A panel posted before versions (``tp:GAME:TURN:OP``) is redrawn
at its first press. The panel is one private message that each choice edits in
place (an UPDATE_MESSAGE callback, type 7).

Numbers in custom ids are ASCII digits only (``[0-9]``, not ``\\d``, which also
matches other scripts' digits that ``int`` reads).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Self, cast

import discord

from bot.client.replies import (
    APOLOGY,
    BoundItem,
    answer_in_time,
    edit_in_place,
    lang_of,
    picture_file,
    report_error,
    respond_in_time,
    respond_private,
    send_private,
    user_of,
)
from bot.core.errors import ServiceError
from bot.core.panel import BUTTON_LIMIT, PanelModel, Select
from bot.core.service import Outcome, PanelState
from bot.texts.i18n import DEFAULT, N_, t
from bot.texts.markup import BUTTON_LABEL_LIMIT, cut_end, shorten

if TYPE_CHECKING:
    from bot.client.app import TorresBot

log = logging.getLogger(__name__)

_PANEL = r"tp:(?P<game>[0-9]+):(?P<turn>[0-9]+)(?::(?P<version>[0-9]+))?:"
SELECT_TEMPLATE = _PANEL + r"(?P<op>what|do[0-9])"
BUTTON_TEMPLATE = _PANEL + r"(?P<op>undo|hint|end|endok|back)"
CONFIRM_TEMPLATE = (
    r"torres:ok:(?P<what>end|resign|cancel):(?P<game>[0-9]+):(?P<turn>[0-9]+):(?P<answer>yes|no)"
)

_BUTTONS = {
    "undo": (N_("Undo"), discord.ButtonStyle.secondary, None),
    "hint": (N_("Suggest"), discord.ButtonStyle.secondary, "💡"),
    "end": (N_("End turn"), discord.ButtonStyle.primary, None),
    "endok": (N_("End turn"), discord.ButtonStyle.danger, None),
    "back": (N_("Keep playing"), discord.ButtonStyle.secondary, None),
}
CONFIRM = N_("Confirm")
KEEP_PLAYING = N_("Keep playing")


def button_label(text: str, lang: str) -> str:
    """A button's label in *lang*, within Discord's 80 characters."""
    return cut_end(t(lang, text), BUTTON_LABEL_LIMIT)


def panel_id(game_id: int, turn: int, version: int | None, op: str) -> str:
    """A panel component's custom id; without a *version* (a closed panel) the old form."""
    if version is None:
        return f"tp:{game_id}:{turn}:{op}"
    return f"tp:{game_id}:{turn}:{version}:{op}"


def select_options(select: Select | None) -> list[discord.SelectOption]:
    """A select's options as Discord takes them (none on one rebuilt from its custom id:
    a press needs only the values chosen)."""
    if select is None:
        return []
    return [
        discord.SelectOption(
            label=o.label, value=o.value, description=o.description, default=o.default
        )
        for o in select.options
    ]


def chosen(interaction: discord.Interaction[Any]) -> list[str]:
    """The values a press on a select chose."""
    data = cast("dict[str, Any]", interaction.data or {})  # a select's: its values
    return [str(v) for v in data.get("values") or []]


def _version(match: Any) -> int | None:
    return None if match["version"] is None else int(match["version"])


def _bound(match: Any) -> tuple[int, int, str]:
    """The game, turn and op a panel component's custom id names."""
    return int(match["game"]), int(match["turn"]), match["op"]


class _PanelItem(BoundItem):
    """A panel component: its custom id's version (absent on an old panel) is a keyword."""

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> Self:
        return cast("Self", cast("Any", cls)(*_bound(match), version=_version(match)))


class PanelSelect(
    _PanelItem, discord.ui.DynamicItem[discord.ui.Select[Any]], template=SELECT_TEMPLATE
):
    """A select of the panel: ``what`` (a group) or ``doN`` (an action)."""

    def __init__(
        self,
        game_id: int,
        turn: int,
        op: str,
        select: Select | None = None,
        row: int = 0,
        *,
        version: int | None = None,
    ) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=panel_id(game_id, turn, version, op),
                placeholder=select.placeholder if select else None,
                options=select_options(select),
                max_values=select.max_values if select else 1,
                row=row,
            )
        )
        self.game_id, self.turn, self.op, self.version = game_id, turn, op, version

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        values = chosen(interaction)
        value = values[0] if values else ""
        op = "what" if self.op == "what" else "do"
        await press_panel(
            interaction, self.game_id, self.turn, op, value, self.version, values=values
        )


class PanelButton(
    _PanelItem, discord.ui.DynamicItem[discord.ui.Button[Any]], template=BUTTON_TEMPLATE
):
    """A button of the panel: Undo, 💡, End turn, and the end confirmation's two."""

    def __init__(
        self,
        game_id: int,
        turn: int,
        op: str,
        *,
        disabled: bool = False,
        row: int = 0,
        lang: str = DEFAULT,
        version: int | None = None,
    ) -> None:
        label, style, emoji = _BUTTONS[op]
        super().__init__(
            discord.ui.Button(
                label=button_label(label, lang),
                style=style,
                emoji=emoji,
                custom_id=panel_id(game_id, turn, version, op),
                disabled=disabled,
                row=row,
            )
        )
        self.game_id, self.turn, self.op, self.version = game_id, turn, op, version

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await press_panel(interaction, self.game_id, self.turn, self.op, "", self.version)


def panel_view(
    game_id: int, turn: int, model: PanelModel, lang: str = DEFAULT, version: int | None = None
) -> discord.ui.View:
    """The panel's components: selects, then Undo / 💡 / End turn (or the confirmation),
    their custom ids bound to *version* (``PanelState.version``)."""
    view = discord.ui.View(timeout=None)
    if model.confirm_end:
        for op in ("endok", "back"):
            view.add_item(PanelButton(game_id, turn, op, lang=lang, version=version))
        return view
    for row, select in enumerate(model.selects):
        view.add_item(PanelSelect(game_id, turn, select.key, select, row=row, version=version))
    row = min(len(model.selects), 4)
    closed = model.closed
    for op, enabled in (
        ("undo", model.can_undo),
        ("hint", model.can_hint),
        ("end", model.can_end),
    ):
        view.add_item(
            PanelButton(
                game_id,
                turn,
                op,
                disabled=closed or not enabled,
                row=row,
                lang=lang,
                version=version,
            )
        )
    return view


async def _message_kwargs(
    bot: TorresBot,
    game_id: int,
    turn: int,
    state: PanelState,
    lang: str,
    shown: int | None = None,
) -> dict[str, Any]:
    """The panel message; its picture only if the board may differ from the one the
    edited panel shows (*shown*: that panel's version): a choice that changed nothing
    on the board keeps the picture already there instead of uploading it again."""
    kwargs: dict[str, Any] = {
        "content": shorten(state.model.text),
        "view": panel_view(game_id, turn, state.model, lang, state.version),
    }
    if state.position is not None and (shown is None or shown != state.version):
        try:
            kwargs["attachments"] = [
                picture_file(
                    await bot.renderer.picture(
                        state.position,
                        state.viewer,
                        state.highlight,
                        state.note,
                        state.labels,
                        language=lang,
                    )
                )
            ]
        except Exception:  # the panel works without its picture
            log.exception("could not draw the panel picture of game %s", game_id)
    return kwargs


async def open_panel(
    interaction: discord.Interaction[TorresBot], game_id: int, turn: int, *, undo: bool = False
) -> None:
    """The Play button (and Undo, *undo*): the mover gets the panel privately; anyone
    else a one-line refusal."""
    bot = interaction.client

    async def work() -> dict[str, Any]:
        state = await bot.service.panel_open(
            game_id=game_id, turn=turn, user=user_of(interaction), undo=undo
        )
        return await _message_kwargs(bot, game_id, turn, state, lang_of(interaction))

    await respond_in_time(interaction, work())


async def press_panel(
    interaction: discord.Interaction[TorresBot],
    game_id: int,
    turn: int,
    op: str,
    value: str,
    version: int | None,
    *,
    values: list[str] | None = None,
) -> None:
    """A choice on the panel: apply it, then edit the panel in place; post what a turn's end posts.

    A panel without a *version* in its custom ids (posted by an older bot) is redrawn
    as the game is now, without acting: what it showed is not known.
    """
    bot = interaction.client
    lang = lang_of(interaction)

    async def work() -> PanelState:
        from bot.core.panel import closed_model

        user = user_of(interaction)
        try:
            if version is None:
                return await bot.service.panel_refresh(game_id=game_id, turn=turn, user=user)
            return await bot.service.panel_press(
                game_id=game_id,
                turn=turn,
                user=user,
                op=op,
                value=value,
                version=version,
                values=values or (),
            )
        except ServiceError as exc:
            return PanelState(closed_model(exc.message))
        except Exception as exc:  # noqa: BLE001
            log.error("unexpected error on the panel of game %s", game_id, exc_info=exc)
            return PanelState(closed_model(t(lang, APOLOGY)))

    async def answer() -> tuple[PanelState, dict[str, Any]]:
        state = await work()
        return state, await _message_kwargs(bot, game_id, turn, state, lang, shown=version)

    state, kwargs = await answer_in_time(interaction, answer(), interaction.response.defer)
    try:
        await edit_in_place(interaction, **kwargs)
    except Exception as exc:  # noqa: BLE001
        await report_error(interaction, exc)
    if state.outcome is not None:
        try:
            await bot.publish(state.outcome)
        except Exception:  # the turn is saved; the outbox posts it later
            log.exception("could not post the end of a turn of game %s", game_id)


# -- confirmations -------------------------------------------------------------------


class ConfirmButton(
    BoundItem, discord.ui.DynamicItem[discord.ui.Button[Any]], template=CONFIRM_TEMPLATE
):
    """Confirm / Keep playing under a question (End turn with AP left, resign, cancel)."""

    def __init__(
        self,
        what: str,
        game_id: int,
        turn: int,
        answer: str,
        label: str = "",
        *,
        lang: str = DEFAULT,
    ) -> None:
        yes = answer == "yes"
        if not label:
            label = button_label(CONFIRM if yes else KEEP_PLAYING, lang)
        super().__init__(
            discord.ui.Button(
                label=label[:BUTTON_LIMIT],
                style=discord.ButtonStyle.danger if yes else discord.ButtonStyle.secondary,
                custom_id=f"torres:ok:{what}:{game_id}:{turn}:{answer}",
            )
        )
        self.what = what
        self.game_id = game_id
        self.turn = turn
        self.answer = answer

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await confirmed(interaction, self.what, self.game_id, self.turn, self.answer == "yes")


def confirm_view(
    what: str, game_id: int, turn: int, label: str, lang: str = DEFAULT
) -> discord.ui.View:
    """Confirm (labelled *label*, already in *lang*) and Keep playing."""
    view = discord.ui.View(timeout=None)
    view.add_item(ConfirmButton(what, game_id, turn, "yes", label, lang=lang))
    view.add_item(ConfirmButton(what, game_id, turn, "no", lang=lang))
    return view


async def ask(
    interaction: discord.Interaction, question: str, what: str, game_id: int, turn: int, label: str
) -> None:
    """Ask privately; nothing happens until Confirm is pressed.

    *question* and *label* come in the user's language; Keep playing is put in it here.
    """
    view = confirm_view(what, game_id, turn, label, lang_of(interaction))
    await respond_private(interaction, question, view=view)


async def confirmed(
    interaction: discord.Interaction[TorresBot], what: str, game_id: int, turn: int, yes: bool
) -> None:
    """An answer to a confirmation: do it (or not), and say so in the same message."""
    bot = interaction.client
    service = bot.service
    lang = lang_of(interaction)

    async def work() -> tuple[str, Outcome | None]:
        if not yes:
            return t(lang, "Nothing was changed; play on."), None
        user = user_of(interaction)
        try:
            if what == "end":
                outcome = await service.end_turn(game_id=game_id, turn=turn, user=user)
            else:
                # Where the game plays (its thread, when asked in the lobby's channel).
                channel_id = await service.game_channel(game_id, lang=lang)
                row = await service.active_game_id(channel_id)
                if row != game_id:
                    raise ServiceError(
                        t(
                            lang,
                            "Game #{game} has already ended; nothing was changed.",
                            game=game_id,
                        )
                    )
                if what == "resign":
                    outcome = await service.resign(channel_id=channel_id, user=user)
                else:
                    manage = bool(interaction.permissions.manage_channels)
                    outcome = await service.cancel(
                        channel_id=channel_id, user=user, can_manage_channel=manage
                    )
        except ServiceError as exc:
            return exc.message, None
        except Exception as exc:  # noqa: BLE001
            log.error("unexpected error confirming %s in game %s", what, game_id, exc_info=exc)
            return t(lang, APOLOGY), None
        return outcome.reply or t(lang, "Done."), outcome

    text, outcome = await answer_in_time(interaction, work(), interaction.response.defer)
    try:
        await edit_in_place(interaction, content=shorten(text), view=None)
    except Exception as exc:  # noqa: BLE001
        await report_error(interaction, exc)
    if outcome is not None:
        failed = await bot.publish(outcome)
        if failed:
            await send_private(
                interaction,
                t(
                    lang,
                    "It was done, but I could not post in this channel: I need the Send "
                    "Messages, Attach Files and Embed Links permissions here.",
                ),
            )
