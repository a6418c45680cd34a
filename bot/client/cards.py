"""A game's public post as one card in Discord's current layout (Components V2, issue 35):
a Container whose accent is the colour of the player to move, the post's text in a Text
Display, the board picture in a Media Gallery with its alt text, and the turn buttons.

Within Discord's limits by construction: the text is one post piece (at most
``MESSAGE_LIMIT`` characters, well under the 4,000 of a message's Text Displays), and a
card holds at most 1 + 1 + 1 + 1 + 4 = 8 components of the 40 allowed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import discord

from renderer._model import PLAYER_COLOURS

TEXT_LIMIT = 4000  # characters of all Text Displays of a message (Discord)
COMPONENT_LIMIT = 40  # components of a message, nested ones counted (Discord)


def accent(position: Mapping[str, Any] | None) -> int | None:
    """The colour of the player to move, as the picture draws their pieces (None: nobody)."""
    if not position:
        return None
    players = list(position.get("players") or [])
    to_move = position.get("to_move")
    if to_move not in players:
        return None
    r, g, b = PLAYER_COLOURS[players.index(to_move) % len(PLAYER_COLOURS)]
    return (r << 16) | (g << 8) | b


def post_card(
    text: str,
    *,
    position: Mapping[str, Any] | None,
    picture: discord.File | None,
    buttons: Sequence[discord.ui.Item[Any]] = (),
) -> discord.ui.LayoutView:
    """The card: text, then the picture (alt text: the file's description), then buttons."""
    box: discord.ui.Container[Any] = discord.ui.Container(accent_colour=accent(position))
    box.add_item(discord.ui.TextDisplay(text[:TEXT_LIMIT]))
    if picture is not None:
        gallery: discord.ui.MediaGallery[Any] = discord.ui.MediaGallery()
        gallery.add_item(
            media=f"attachment://{picture.filename}", description=picture.description or None
        )
        box.add_item(gallery)
    if buttons:
        row: discord.ui.ActionRow[Any] = discord.ui.ActionRow()
        for item in buttons:
            row.add_item(item)
        box.add_item(row)
    view = discord.ui.LayoutView(timeout=None)
    view.add_item(box)
    return view


def disabled_copy(message: discord.Message) -> discord.ui.View | discord.ui.LayoutView:
    """The message's components with every button and select disabled (an earlier turn's
    message: only the latest one plays), for either kind of message."""
    view: discord.ui.View | discord.ui.LayoutView
    items: list[discord.ui.Item[Any]]
    if message.flags.components_v2:
        view = discord.ui.LayoutView.from_message(message, timeout=None)
        items = list(view.walk_children())
    else:
        view = discord.ui.View.from_message(message, timeout=None)
        items = list(view.children)
    for item in items:
        if isinstance(item, discord.ui.Button | discord.ui.Select):
            item.disabled = True
    return view


def card_text(view: discord.ui.View | discord.ui.LayoutView) -> str:
    """The text of a card (its Text Displays, in order)."""
    return "\n".join(
        i.content for i in view.walk_children() if isinstance(i, discord.ui.TextDisplay)
    )


def card_buttons(view: discord.ui.View | discord.ui.LayoutView) -> list[str]:
    """The custom ids of a card's (or an older message's) buttons, in order."""
    return [
        str(i.custom_id)
        for i in view.walk_children()
        if isinstance(i, discord.ui.DynamicItem | discord.ui.Button) and i.custom_id
    ]
