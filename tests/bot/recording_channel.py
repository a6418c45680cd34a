"""A stand-in for a Discord channel that keeps what the bot sends, turn cards read as text."""

from __future__ import annotations

import discord

from bot.client.cards import card_text


class RecordingChannel:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict]] = []

    async def send(self, text: str | None = None, **kwargs: object) -> None:
        if text is None:  # a turn card (Components V2): its text is in its Text Display
            view = kwargs["view"]
            assert isinstance(view, discord.ui.LayoutView)
            text = card_text(view)
        self.sent.append((text, kwargs))
