"""The buttons on a turn message: Play (opens the private play panel), End turn, Undo, My hand.

They are ``DynamicItem``s: everything they need (game id, turn number, action)
is in the custom_id, so they keep working after a restart without any view
being stored. The turn number makes a press on an old message detectable.
Numbers in custom ids are ASCII digits (``[0-9]``): ``\\d`` also matches the
digits of other scripts, which ``int`` reads as numbers.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import discord

from bot.client.panel_views import ask, open_panel
from bot.client.replies import (
    BoundItem,
    answer_in_time,
    answer_private,
    partial_defer,
    report_error,
    sent_at,
    user_of,
)
from bot.texts.i18n import DEFAULT, t, tp

if TYPE_CHECKING:
    from bot.client.app import TorresBot

log = logging.getLogger(__name__)

TEMPLATE = r"torres:(?P<game>[0-9]+):(?P<turn>[0-9]+):(?P<action>play|end|undo|hand)"


_STYLE = {
    "play": discord.ButtonStyle.success,
    "end": discord.ButtonStyle.secondary,
    "undo": discord.ButtonStyle.secondary,
    "hand": discord.ButtonStyle.secondary,
}


def label(action: str, lang: str = DEFAULT) -> str:
    """A turn button's label in *lang*: the game's, since a turn message is public.

    A button rebuilt from its custom_id (after a restart) only answers presses;
    Discord keeps showing the label it was posted with.
    """
    labels = {
        "play": tp(lang, "turn button", "Play"),
        "end": tp(lang, "turn button", "End turn"),
        "undo": tp(lang, "turn button", "Undo"),
        "hand": tp(lang, "turn button", "My hand"),
    }
    return labels[action]


class TurnButton(BoundItem, discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    """One button of a turn message; its custom_id is ``torres:GAME:TURN:ACTION``."""

    def __init__(self, game_id: int, turn: int, action: str, lang: str = DEFAULT) -> None:
        super().__init__(
            discord.ui.Button(
                label=label(action, lang),
                style=_STYLE[action],
                custom_id=f"torres:{game_id}:{turn}:{action}",
            )
        )
        self.game_id = game_id
        self.turn = turn
        self.action = action

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await handle_button(interaction, self.game_id, self.turn, self.action)


def turn_view(
    game_id: int, turn: int, actions: tuple[str, ...], lang: str = DEFAULT
) -> discord.ui.View:
    """A persistent view holding the given buttons, labelled in *lang* (the game's)."""
    view = discord.ui.View(timeout=None)
    for action in actions:
        view.add_item(TurnButton(game_id, turn, action, lang))
    return view


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
            game_id=game_id, turn=turn, user=user, created_at=sent_at(interaction)
        )
        await bot.answer(interaction, outcome)
    except Exception as exc:  # noqa: BLE001 - every error is reported to the user here
        await report_error(interaction, exc)
