"""Extraction methods for ``pybabel extract -F babel.cfg``: texts not marked in the source.

Most texts are marked where they are written (``t(lang, "…")``) and Babel's Python
extractor finds them. Two kinds are not:

- the slash commands' descriptions and choice names, read from the command tree
  (:func:`commands`, for ``bot/client/translator.py``; message context ``command``);
- texts kept in the engine's tables, which the engine keeps in English (its
  contract): card names and effects (``renderer.i18n.dynamic_msgids``, for
  ``renderer/i18n.py``) and the refusal templates (``bot.texts.refusals.msgids``, for
  ``bot/texts/refusals.py``). These files' own marked texts are extracted as usual.

babel.cfg maps these files to the methods below; docs/bot.md, "Adding a language".
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from babel.messages.extract import extract_python

Result = tuple[int, str | None, Any, list[str]]


def commands(fileobj: Any, keywords: Any, comment_tags: Any, options: Any) -> Iterator[Result]:
    """The command tree's texts, with the context ``command`` (through the keyword ``tp``)."""
    from bot.client.translator import CONTEXT, LIMIT, command_group, command_messages

    if "tp" in keywords:
        keyword, args = "tp", (None, CONTEXT)
    elif "pgettext" in keywords:
        keyword, args = "pgettext", (CONTEXT,)
    else:
        raise ValueError("extract the command texts with the keyword tp:2c,3 (docs/bot.md)")
    yield from extract_python(fileobj, keywords, comment_tags, options)
    for text, where in command_messages(command_group()):
        yield 1, keyword, (*args, text), [f"{where} (at most {LIMIT} characters)"]


def tables(fileobj: Any, keywords: Any, comment_tags: Any, options: Any) -> Iterator[Result]:
    """The file's marked texts, and those of the engine's tables it translates."""
    yield from extract_python(fileobj, keywords, comment_tags, options)
    path = Path(getattr(fileobj, "name", "")).as_posix()
    if path.endswith("renderer/i18n.py"):
        import renderer.i18n

        for msgid in renderer.i18n.dynamic_msgids():
            yield 1, None, msgid, ["from the engine's card tables (engine.CARDS, CARD_HELP…)"]
    elif path.endswith("bot/texts/refusals.py"):
        import bot.texts.refusals

        msgids = getattr(bot.texts.refusals, "msgids", None)
        for msgid in msgids() if msgids is not None else ():
            if isinstance(msgid, str):
                yield 1, None, msgid, ["an engine refusal (bot.texts.refusals)"]
            else:  # (singular, plural)
                yield 1, "tn", (None, *msgid), ["an engine refusal (bot.texts.refusals)"]
