"""The turn card (Components V2) stays within Discord's limits by construction: the
longest post piece, the longest alt text and every turn button, checked by the fake
Discord's validator (tests/fakediscord) and discord.py's own counts."""

from __future__ import annotations

import io

import discord
import pytest

from bot.client.cards import COMPONENT_LIMIT, TEXT_LIMIT, accent, post_card
from bot.client.views import TurnButton
from bot.core.batch import MESSAGE_LIMIT
from bot.core.service import BUTTONS_ALL
from engine import Game
from renderer._model import PLAYER_COLOURS
from tests.fakediscord._validate import IS_COMPONENTS_V2, check_message


def _card(text: str, alt: str, players: int = 4) -> discord.ui.LayoutView:
    game = Game.new(players, names=["red", "blue", "green", "yellow"][:players], seed=1)
    picture = discord.File(io.BytesIO(b"png"), filename="board.png", description=alt)
    buttons = [TurnButton(7, 3, a) for a in BUTTONS_ALL]
    return post_card(text, position=game.position(), picture=picture, buttons=buttons)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_biggest_turn_card_is_a_message_discord_takes(players: int) -> None:
    view = _card("x" * MESSAGE_LIMIT, "a" * 1024, players)
    assert view.content_length() <= TEXT_LIMIT
    assert view.total_children_count <= COMPONENT_LIMIT
    body = {"components": view.to_components(), "flags": IS_COMPONENTS_V2}
    check_message(body, "", n_files=1, creating=True)  # raises FormError if Discord would
    (box,) = body["components"]
    assert box["type"] == 17 and [c["type"] for c in box["components"]] == [10, 12, 1]
    gallery = box["components"][1]["items"][0]
    assert gallery["media"] == {"url": "attachment://board.png"}
    assert gallery["description"] == "a" * 1024
    assert [b["custom_id"] for b in box["components"][2]["components"]] == [
        f"torres:7:3:{a}" for a in BUTTONS_ALL
    ]


def test_the_accent_is_the_colour_the_picture_gives_the_player_to_move() -> None:
    game = Game.new(3, names=["red", "blue", "green"], seed=1)
    position = game.position()
    seat = position["players"].index(position["to_move"])
    r, g, b = PLAYER_COLOURS[seat]
    assert accent(position) == (r << 16) | (g << 8) | b
    assert accent({**position, "to_move": None}) is None and accent(None) is None


def test_a_card_without_picture_or_buttons_is_text_alone() -> None:
    view = post_card("Reminder", position=None, picture=None)
    body = {"components": view.to_components(), "flags": IS_COMPONENTS_V2}
    check_message(body, "", n_files=0, creating=True)
    assert body["components"][0]["accent_color"] is None
