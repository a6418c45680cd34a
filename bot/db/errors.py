"""The errors the stores raise, and the base of every refusal a user is shown.

:class:`Busy` and :class:`Unavailable` come from the store, which knows no user: their
message is an English msgid (:data:`BUSY`, :data:`DISK_FULL`, :data:`REPLACED`), and the
Discord layer shows ``t(lang, exc.message)`` (a message already translated passes through
``t`` unchanged). They live here, below bot.texts, so the stores import nothing above them;
the service's own refusals are in bot.core.errors.
"""

from __future__ import annotations

from renderer.i18n import N_

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


class Busy(ServiceError):
    """The database's write lock stayed taken (by another write or another program)."""

    def __init__(self, message: str = "") -> None:
        super().__init__(message or BUSY)


class Unavailable(ServiceError):
    """The database can't take writes: its disk is full, or its file was replaced.

    Like :class:`Busy`, nothing was written; the store logs the cause once (one line,
    no traceback) and the message is an English msgid the Discord layer translates.
    """
