"""The engine's refusals in the user's language.

The engine's ``IllegalAction`` and ``NotationError`` say why in English (the
command line's contract); the bot renders them in any language from their
stable code and parameters.  The message ids are the engine's own English
templates (``engine.messages.TEMPLATES``), translated in ``engine.po``; they are
not marked in this source, so :func:`msgids` lists them for the catalog tests.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from functools import cache

from engine.messages import TEMPLATES, template
from renderer.i18n import card_name, colour_name

from .i18n import N_, t, tn

# ``{levels}``: how far a square is above a knight, in words as the engine says it.
_LEVEL_WORDS = {1: N_("one level"), 2: N_("two levels"), 3: N_("three levels")}


def _levels(lang: str, d: int) -> str:
    word = _LEVEL_WORDS.get(d)
    return t(lang, word) if word else tn(lang, "{n} level", "{n} levels", d)


@cache
def _fields(text: str) -> frozenset[str]:
    return frozenset({name for _, name, _, _ in string.Formatter().parse(text) if name})


# Fields that hold a seat id ("red"), shown as its colour in the user's language.
_SEAT_FIELDS = frozenset({"player", "other"})


def _values(lang: str, text: str, params: Mapping[str, object]) -> dict[str, object]:
    values = dict(params)
    if "{levels}" in text:
        values["levels"] = _levels(lang, int(params["levels"]))
    if "{card_name}" in text:
        values["card_name"] = card_name(lang, str(params["card"]))
    for seat in _SEAT_FIELDS & _fields(text):  # seat ids belong in notation only
        values[seat] = colour_name(lang, str(params[seat]))
    return values


def refusal(lang: str, exc: Exception) -> str:
    """Why the engine refused, in *lang* (the English text for an unknown code)."""
    code = getattr(exc, "code", "")
    params = getattr(exc, "params", None)
    if not isinstance(code, str) or code not in TEMPLATES or not isinstance(params, Mapping):
        return str(exc)
    entry = TEMPLATES[code]
    try:
        msgid = template(code, params)
        values = _values(lang, msgid, params)
        if not _fields(msgid) <= set(values):
            return str(exc)
        if isinstance(entry, tuple):
            singular, plural, count = entry
            return tn(lang, singular, plural, int(params[count]), **values)
        return t(lang, msgid, **values)
    except (KeyError, IndexError, ValueError, TypeError):  # params not as the template needs
        return str(exc)


def msgids() -> list[str | tuple[str, str]]:
    """Every message id a refusal may use, a plural message as (singular, plural):
    the engine's templates and the words of ``{levels}`` (babel.cfg extracts them)."""
    out: list[str | tuple[str, str]] = []
    for entry in TEMPLATES.values():
        out.append(entry if isinstance(entry, str) else (entry[0], entry[1]))
    out += [*_LEVEL_WORDS.values(), ("{n} level", "{n} levels")]
    return out
