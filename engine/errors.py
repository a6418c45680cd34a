"""Exceptions the engine raises; both messages are meant to be shown to a player as is.

Besides the English message each carries a stable ``code`` and its ``params``
(``engine.messages``), so that a front end can say the same in another language.
"""

from __future__ import annotations

from typing import Any

from .messages import Params, english


class NotationError(ValueError):
    """Input the engine cannot read: malformed notation, an impossible position, bad options.

    ``code`` names the message (a key of ``engine.messages.TEMPLATES``; "" for one
    made without a code), ``params`` its values; ``str(e)`` is the English text.
    """

    def __init__(
        self, message: str | None = None, *, code: str = "", params: Params | None = None
    ) -> None:
        values = dict(params or {})
        super().__init__(english(code, values) if message is None else message)
        self.code = code
        self.params = values

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (str(self),), {"code": self.code, "params": self.params})


class IllegalAction(ValueError):
    """A well-formed action the rules forbid in the current position.

    ``action`` is the canonical single action that failed, ``reason`` one sentence
    saying why; ``str(e)`` is the reason.  ``code`` and ``params`` as for
    ``NotationError``.
    """

    def __init__(
        self,
        action: str,
        reason: str | None = None,
        *,
        code: str = "",
        params: Params | None = None,
    ) -> None:
        values = dict(params or {})
        text = english(code, values) if reason is None else reason
        super().__init__(text)
        self.action = action
        self.reason = text
        self.code = code
        self.params = values

    def __reduce__(self) -> tuple[Any, ...]:
        return (
            type(self),
            (self.action, self.reason),
            {"code": self.code, "params": self.params},
        )


def notation_error(code: str, **params: str | int) -> NotationError:
    """The NotationError ``code`` with its English text."""
    return NotationError(code=code, params=params)
