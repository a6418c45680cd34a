"""The buttons on a turn message: Play (opens the private play panel), End turn, Undo, My hand.

They are ``DynamicItem``s: everything they need (game id, turn number, action)
is in the custom_id, so they keep working after a restart without any view
being stored. The turn number makes a press on an old message detectable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

if TYPE_CHECKING:
    from bot.app import TorresBot

TEMPLATE = r"torres:(?P<game>\d+):(?P<turn>\d+):(?P<action>play|end|undo|hand)"

_LOOK = {
    "play": ("Play", discord.ButtonStyle.success),
    "end": ("End turn", discord.ButtonStyle.secondary),
    "undo": ("Undo", discord.ButtonStyle.secondary),
    "hand": ("My hand", discord.ButtonStyle.secondary),
}


class TurnButton(discord.ui.DynamicItem[discord.ui.Button], template=TEMPLATE):
    """One button of a turn message; its custom_id is ``torres:GAME:TURN:ACTION``."""

    def __init__(self, game_id: int, turn: int, action: str) -> None:
        label, style = _LOOK[action]
        super().__init__(
            discord.ui.Button(
                label=label, style=style, custom_id=f"torres:{game_id}:{turn}:{action}"
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
        from bot.cog import handle_button

        await handle_button(interaction, self.game_id, self.turn, self.action)


def turn_view(game_id: int, turn: int, actions: tuple[str, ...]) -> discord.ui.View:
    """A persistent view holding the given buttons."""
    view = discord.ui.View(timeout=None)
    for action in actions:
        view.add_item(TurnButton(game_id, turn, action))
    return view
