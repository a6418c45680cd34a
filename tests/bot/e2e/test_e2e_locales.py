"""Languages through the real bot: the synced commands carry German and Dutch texts, and
each user's Discord language (``interaction.locale``) reaches the bot, which answers in it.

The expected replies are computed from the bot's catalogs (``bot.texts.i18n.t``), so this
test checks that the locale arrives and is used, whichever texts are translated.
"""

from __future__ import annotations

from bot.client.translator import CONTEXT
from bot.texts.i18n import language, t, tp
from tests.bot.client.test_command_i18n import unlocalized
from tests.bot.e2e._harness import BotRunner
from tests.fakediscord._validate import check_commands

NO_GAME = "There is no Torres game in this channel. Open one with `/torres new`."


async def test_the_synced_commands_speak_german_and_dutch(runner: BotRunner):
    fake = runner.fake
    payload = [c for c in fake.global_commands if c["name"] == "torres"]
    assert payload, f"/torres was not synced globally: {fake.global_commands}"
    assert unlocalized(payload) == []
    check_commands(payload)  # what the fake keeps passed Discord's checks
    (torres,) = payload
    assert torres["description_localizations"]["de"] == tp("de", CONTEXT, torres["description"])
    assert torres["description_localizations"]["nl"] == tp("nl", CONTEXT, torres["description"])


async def test_each_user_is_answered_in_their_own_language(runner: BotRunner):
    fake = runner.fake
    fake.set_locale("alice", "de")
    fake.set_locale("bob", "nl")
    fake.set_guild_locale("nl")  # the server's language does not change private replies
    for who, locale in (("alice", "de"), ("bob", "nl"), ("carol", "en-US")):
        lang = language(locale)
        assert lang == {"de": "de", "nl": "nl", "en-US": "en"}[locale]
        ix = await fake.slash(who, "general", "torres", "hand")
        reply = await ix.reply()
        assert reply.ephemeral and reply.viewer is fake.users[who]
        assert reply.text == t(lang, NO_GAME), (who, locale, reply.text)
