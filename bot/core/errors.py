"""Errors the game service raises; each carries a message fit to show the player as is.

The service words each message in the language of the user it refuses
(``t(user.lang, ...)`` at the raise site). The store's own errors (:class:`Busy`,
:class:`Unavailable`) and the base :class:`ServiceError` live in bot.db.errors, and are
named here too so the layers above import every refusal from one place.
"""

from __future__ import annotations

from bot.db.errors import BUSY, DISK_FULL, REPLACED, Busy, ServiceError, Unavailable

__all__ = [
    "BUSY",
    "DISK_FULL",
    "REPLACED",
    "Busy",
    "IllegalMove",
    "NoGame",
    "NotAllowed",
    "NotSeated",
    "NotYourTurn",
    "ServiceError",
    "StaleButton",
    "Unavailable",
]


class NoGame(ServiceError):
    """The channel (or a button's game) has no game that accepts this request."""


class NotSeated(ServiceError):
    """The user is not a player of the game."""


class NotYourTurn(ServiceError):
    """Someone other than the player to move tried to change the game."""


class IllegalMove(ServiceError):
    """The engine refused the actions; the game is unchanged."""


class NotAllowed(ServiceError):
    """The user may not do this (wrong role, wrong stage, full game ...)."""


class StaleButton(ServiceError):
    """A button from an earlier turn was pressed."""
