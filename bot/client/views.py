"""The buttons on a turn message: Play (opens the private play panel), End turn, Undo, My hand.

They are ``DynamicItem``s: everything they need (game id, turn number, action)
is in the custom_id, so they keep working after a restart without any view
being stored. The turn number makes a press on an old message detectable.
Numbers in custom ids are ASCII digits (``[0-9]``): ``\\d`` also matches the
digits of other scripts, which ``int`` reads as numbers.
"""

from __future__ import annotations

import logging
from collections import OrderedDict
from typing import TYPE_CHECKING, Any

import discord

from bot.texts.i18n import DEFAULT, tp

if TYPE_CHECKING:
    from bot.client.app import TorresBot

log = logging.getLogger(__name__)

TEMPLATE = r"torres:(?P<game>[0-9]+):(?P<turn>[0-9]+):(?P<action>play|end|undo|hand)"

SEEN_INTERACTIONS = 4096  # interaction ids remembered against a second delivery
_seen: OrderedDict[int, None] = OrderedDict()


def first_delivery(interaction: discord.Interaction[Any]) -> bool:
    """False for an interaction this process has already taken: Discord may deliver one
    twice (e.g. when the gateway replays events after a resume), and the second must
    neither act again nor answer (the answer would be refused, the first's may be lost).

    Autocomplete requests (one per keystroke) are not remembered: they change nothing,
    and thousands of them would push the presses and commands out of the memory."""
    if interaction.type is discord.InteractionType.autocomplete:
        return True
    if interaction.id in _seen:
        log.info("interaction %s delivered again; ignored", interaction.id)
        return False
    _seen[interaction.id] = None
    if len(_seen) > SEEN_INTERACTIONS:
        _seen.popitem(last=False)
    return True


class OncePerInteraction:
    """A mixin for the bot's components: a second delivery of a press does nothing."""

    async def interaction_check(self, interaction: discord.Interaction[Any], /) -> bool:
        return first_delivery(interaction)


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


class TurnButton(OncePerInteraction, discord.ui.DynamicItem[discord.ui.Button], template=TEMPLATE):
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

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: discord.ui.Item[Any], match: Any, /
    ) -> TurnButton:
        return cls(int(match["game"]), int(match["turn"]), match["action"])

    async def callback(self, interaction: discord.Interaction[TorresBot]) -> None:
        from bot.client.cog import handle_button

        await handle_button(interaction, self.game_id, self.turn, self.action)


def turn_view(
    game_id: int, turn: int, actions: tuple[str, ...], lang: str = DEFAULT
) -> discord.ui.View:
    """A persistent view holding the given buttons, labelled in *lang* (the game's)."""
    view = discord.ui.View(timeout=None)
    for action in actions:
        view.add_item(TurnButton(game_id, turn, action, lang))
    return view
