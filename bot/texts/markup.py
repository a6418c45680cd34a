"""Discord's markup and Discord's limits, written in one place.

The only module that writes mentions (``<@…>``), channel links (``<#…>``) and
timestamps (``<t:…>``); tests/bot/test_import_rule.py holds every other module to
that. The services build their texts with these helpers, so they stay free of
Discord's syntax, and a limit Discord changes is changed here once.
"""

from __future__ import annotations

import re

# -- Discord's limits -----------------------------------------------------------------
MESSAGE_LIMIT = 2000  # characters in one message's content
CHOICES = 25  # autocomplete choices in one answer
CHOICE_LIMIT = 100  # characters in an autocomplete choice's name and value
SELECT_OPTIONS = 25  # options in one select menu
OPTION_LIMIT = 100  # characters in a select option's label, value and description
PLACEHOLDER_LIMIT = 150  # characters in a select's placeholder
BUTTON_LABEL_LIMIT = 80  # characters in a button's label
COMMAND_TEXT_LIMIT = 100  # characters in a command's (or option's) description and choice
ALT_TEXT_LIMIT = 1024  # characters in an attachment's description (a picture's alt text)
ROWS = 5  # component rows in one message

NAME_MAX = 64  # characters of a display name shown in a post (ours, not Discord's)

# Discord's markdown lets a backslash escape any ASCII punctuation; these are
# the characters that start markdown, links, mentions, headings, lists or quotes.
_MARKUP = re.compile(r"([\\*_~`|<>\[\]()#@:!./-])")


def mention(user_id: int | str) -> str:
    """A user's mention: pings them where the message allows it, shows their name."""
    return f"<@{user_id}>"


def channel_link(channel_id: int | str) -> str:
    """A link to a channel, shown as its name."""
    return f"<#{channel_id}>"


def timestamp(seconds: float, style: str = "R") -> str:
    """A time each reader sees in their own zone: ``R`` relative, ``f`` date and time,
    ``d`` date (Discord's styles)."""
    return f"<t:{int(seconds)}:{style}>"


def code(text: str) -> str:
    """*text* as an inline code span, shown as typed (a backtick inside gets a longer fence)."""
    if "`" not in text:
        return f"`{text}`"
    return f"`` {text} ``"


def escape(text: str) -> str:
    """*text* shown literally: every markup character escaped, ``@`` broken so it
    never pings (as :func:`discord.utils.escape_mentions` does)."""
    return _MARKUP.sub(r"\\\1", text).replace("@", "@\u200b")


def shown_name(display: str) -> str:
    """A display name as literal text in a message, whatever its owner put in it.

    Names are chosen by their owners: ``**x**``, ``[text](https://…)``, a mention,
    ``@everyone`` or ``# Big`` must show as typed, never format, link or ping. Line
    breaks become spaces, and a long name is cut at :data:`NAME_MAX`.
    """
    return escape(" ".join(display.split())[:NAME_MAX] or "?")


def shorten(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """*text* cut in the middle to at most *limit* characters.

    Discord refuses messages over 2000 characters, and error messages may echo
    whatever a player typed.
    """
    if len(text) <= limit:
        return text
    half = (limit - 3) // 2
    return text[:half] + " … " + text[-(limit - 3 - half) :]


def cut_end(text: str, limit: int) -> str:
    """*text* kept from its start, at most *limit* characters, an ellipsis where cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def cut_start(text: str, limit: int) -> str:
    """*text* kept from its end (its last, newest part), at most *limit* characters."""
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]
