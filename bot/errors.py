"""Errors the game service raises; each carries a message fit to show the player as is.

The service words each message in the language of the user it refuses
(``t(user.lang, ...)`` at the raise site). :class:`Busy` comes from the store,
which knows no user: its message is the English text of :data:`BUSY`, and the
Discord layer shows ``t(lang, exc.message)`` (a message already translated
passes through ``t`` unchanged).
"""

from __future__ import annotations

from bot.i18n import N_

BUSY = N_("The game database is busy right now, so nothing was changed. Try again in a moment.")
DISK_FULL = N_(
    "The game database can't be written right now (the server's disk is full), so nothing "
    "was changed. Please tell the bot's operator."
)
REPLACED = N_(
    "The game database was replaced while the bot was running, so nothing was changed. "
    "The bot is stopping; please tell its operator."
)


class ServiceError(Exception):
    """A request the service refused. ``message`` is shown privately to the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


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


class Busy(ServiceError):
    """The database's write lock stayed taken (by another write or another program)."""

    def __init__(self, message: str = "") -> None:
        super().__init__(message or BUSY)


class Unavailable(ServiceError):
    """The database can't take writes: its disk is full, or its file was replaced.

    Like :class:`Busy`, nothing was written; the store logs the cause once (one line,
    no traceback) and the message is an English msgid the Discord layer translates.
    """
