"""The slash commands in German and Dutch: Discord shows each user the descriptions in their language.

When the command tree is synced, discord.py asks :class:`CommandTranslator` for every
Discord locale and every translatable string of the tree; what it answers is sent as
``name_localizations`` / ``description_localizations`` and Discord shows it to users
whose client speaks that language. Translated are the descriptions of ``/torres``, of
its subcommands and of their options, and the choices' display names. Command and
option names stay English (they are typed, and the docs, the rules and the replies
quote them: ``/torres play actions:``), as do the choices' values.

The texts live in ``bot/locales/<lang>/LC_MESSAGES/commands.po`` with the message
context ``command`` (Discord allows at most 100 characters; the same English word may
need a shorter translation here than in a reply). They are taken from the command
tree itself, not from marks in the source: ``pybabel extract -F babel.cfg`` finds
them with ``bot.client.babel_extract`` (docs/bot.md, "Adding a language").
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

from discord import app_commands
from discord.app_commands import TranslationContextLocation as Where

from bot.texts.i18n import CATALOGS, DEFAULT, LANGUAGES, language

log = logging.getLogger(__name__)

CONTEXT = "command"
"""The message context (``msgctxt``) of every command text in the catalogs."""

LIMIT = 100
"""Discord's limit for a description or a choice's name, translated or not."""

_TRANSLATED = frozenset(
    {
        Where.group_description,
        Where.command_description,
        Where.parameter_description,
        Where.choice_name,
    }
)


class CommandTranslator(app_commands.Translator):
    """Descriptions and choice names from the ``command`` entries of the bot's catalogs.

    A string without a translation (or with one Discord would refuse) gets ``None``:
    Discord then shows the English text.
    """

    def __init__(self) -> None:
        self._texts: dict[str, dict[str, str]] | None = None

    async def load(self) -> None:
        self._texts = _load()

    async def translate(
        self,
        string: app_commands.locale_str,
        locale: Any,
        context: app_commands.TranslationContextTypes,
    ) -> str | None:
        if context.location not in _TRANSLATED:
            return None  # names stay English
        lang = language(locale)
        if lang == DEFAULT:
            return None
        if self._texts is None:
            self._texts = _load()
        text = self._texts.get(lang, {}).get(string.message)
        if text is not None and not 1 <= len(text) <= LIMIT:
            log.warning("%s translation of %r is too long for Discord", lang, string.message)
            return None
        return text


def _load() -> dict[str, dict[str, str]]:
    texts: dict[str, dict[str, str]] = {}
    for lang in LANGUAGES:
        if lang == DEFAULT:
            continue
        texts[lang] = {
            m.id: m.string
            for m in CATALOGS.catalog(lang)
            if m.context == CONTEXT
            and isinstance(m.id, str)
            and isinstance(m.string, str)
            and m.id
            and m.string
            and not m.fuzzy
        }
    return texts


def command_group() -> app_commands.Group:
    """A ``/torres`` group as the bot builds it (without a bot behind it): for its texts."""
    from bot.client.cog import TorresGroup
    from bot.client.home_cog import add_home_commands

    group = TorresGroup(None, None)  # type: ignore[arg-type]
    add_home_commands(group, None, None)  # type: ignore[arg-type]
    return group


def command_messages(group: app_commands.Group) -> Iterator[tuple[str, str]]:
    """Every text of *group* a Discord user reads, with where it is: ``(text, where)``."""
    yield group.description, f"/{group.name}: description"
    for command in group.walk_commands():
        where = f"/{command.qualified_name}"
        yield command.description, f"{where}: description"
        if isinstance(command, app_commands.Group):
            continue
        for param in command.parameters:
            yield param.description, f"{where}: option {param.name}"
            for choice in param.choices:
                yield (
                    choice.name,
                    f"{where}: option {param.name}, a choice (value {choice.value!r})",
                )
