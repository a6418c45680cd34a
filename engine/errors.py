"""Exceptions the engine raises; both messages are meant to be shown to a player as is."""

from __future__ import annotations


class NotationError(ValueError):
    """Input the engine cannot read: malformed notation, an impossible position, bad options."""


class IllegalAction(ValueError):
    """A well-formed action the rules forbid in the current position.

    ``action`` is the canonical single action that failed, ``reason`` one sentence
    saying why; ``str(e)`` is the reason.
    """

    def __init__(self, action: str, reason: str) -> None:
        super().__init__(reason)
        self.action = action
        self.reason = reason
