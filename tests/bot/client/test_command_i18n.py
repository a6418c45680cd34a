"""The slash commands in German and Dutch: the payload the bot syncs, built by its real tree.

Every command, subcommand and option carries a ``de`` and an ``nl`` description and every
choice a ``de`` and an ``nl`` name, whatever options exist: the payload is walked, not listed.
"""

from __future__ import annotations

from typing import Any

import discord
import pytest
from discord import app_commands

from bot.client.app import TorresBot
from bot.client.translator import CONTEXT, CommandTranslator, command_group, command_messages
from bot.core.config import BotConfig
from bot.texts.i18n import DEFAULT, language, tp
from tests.bot.conftest import Env
from tests.fakediscord._validate import check_commands

# The Discord locales of the languages we speak besides English: ("de", "nl").
LOCALES = tuple(loc.value for loc in discord.Locale if language(loc) != DEFAULT)


def unlocalized(payload: list[dict[str, Any]], locales: tuple[str, ...] = LOCALES) -> list[str]:
    """What lacks a description (a name, for choices) in one of *locales*, as ``/path: what``."""
    problems: list[str] = []

    def need(item: dict[str, Any], key: str, where: str) -> None:
        have = item.get(key) or {}
        for locale in locales:
            if not have.get(locale):
                problems.append(f"{where}: no {locale} {key.split('_')[0]}")

    def walk(item: dict[str, Any], where: str) -> None:
        need(item, "description_localizations", where)
        for option in item.get("options") or []:
            here = f"{where} {option['name']}"
            if option.get("type") in (1, 2):  # a subcommand (group)
                walk(option, here)
                continue
            need(option, "description_localizations", f"{here} (option)")
            for choice in option.get("choices") or []:
                need(choice, "name_localizations", f"{here} choice {choice['name']!r}")

    for command in payload:
        walk(command, "/" + command["name"])
    return problems


@pytest.fixture
async def bot(env: Env) -> TorresBot:
    bot = TorresBot(config=BotConfig(token="x"), store=env.store, service=env.service)
    await bot.tree.set_translator(CommandTranslator())
    return bot


async def test_every_command_option_and_choice_speaks_german_and_dutch(bot: TorresBot) -> None:
    payload = await bot.localized_payload()
    problems = unlocalized(payload)
    assert not problems, (
        "texts without a translation (msgctxt 'command' in "
        "bot/locales/{de,nl}/LC_MESSAGES/commands.po):\n  " + "\n  ".join(problems)
    )
    check_commands(payload)  # as Discord checks it: locales, lengths, names


async def test_the_payload_says_what_the_catalogs_say(bot: TorresBot) -> None:
    (torres,) = await bot.localized_payload()
    assert torres["description_localizations"] == {
        "de": tp("de", CONTEXT, torres["description"]),
        "nl": tp("nl", CONTEXT, torres["description"]),
    }
    rules = next(o for o in torres["options"] if o["name"] == "rules")
    (topic,) = rules["options"]
    king = next(c for c in topic["choices"] if c["value"] == "king")
    assert king["name_localizations"] == {"de": "König", "nl": "koning"}
    # Names and values stay English: they are typed and quoted (/torres play actions:).
    assert king["name"] == king["value"] == "king"
    assert all(
        "name_localizations" not in o or not o["name_localizations"] for o in torres["options"]
    )
    assert not torres["name_localizations"]
    # Only the languages we speak: Discord shows English to everyone else.
    assert set(torres["description_localizations"]) == set(LOCALES)


async def test_the_sync_notices_a_changed_translation(bot: TorresBot) -> None:
    """The payload hashed at start-up holds the translations: a changed one is synced."""
    plain = bot.command_payload()
    localized = await bot.localized_payload()
    assert plain != localized
    assert [c["name"] for c in plain] == [c["name"] for c in localized]


async def test_the_translator_answers_only_for_our_languages() -> None:
    translator = CommandTranslator()
    await translator.load()
    group = command_group()
    context = app_commands.TranslationContext(
        app_commands.TranslationContextLocation.group_description, group
    )
    text = app_commands.locale_str(group.description)
    assert await translator.translate(text, discord.Locale.german, context) == tp(
        "de", CONTEXT, group.description
    )
    for locale in (discord.Locale.american_english, discord.Locale.french):
        assert await translator.translate(text, locale, context) is None
    unknown = app_commands.locale_str("A text nobody translated")
    assert await translator.translate(unknown, discord.Locale.dutch, context) is None
    name = app_commands.TranslationContext(
        app_commands.TranslationContextLocation.group_name, group
    )
    assert (
        await translator.translate(app_commands.locale_str("torres"), discord.Locale.german, name)
        is None
    )


def test_every_command_text_fits_discord_in_every_language() -> None:
    for text, where in command_messages(command_group()):
        for lang in {language(locale) for locale in LOCALES} | {DEFAULT}:
            translated = tp(lang, CONTEXT, text)
            assert 1 <= len(translated) <= 100, f"{where} in {lang}: {translated!r}"
