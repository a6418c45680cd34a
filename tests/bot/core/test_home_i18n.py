"""bot.core.home in German and Dutch: each command answers in the asking user's language,
what it posts in a game's channel (clock timeouts, seat handovers, away notices) speaks
the game's language, and the Discord layer (bot.client.home_cog) passes ``interaction.locale``."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import discord
import pytest
from babel.messages.extract import extract_from_file
from babel.messages.pofile import read_po

from bot.client.app import TorresBot
from bot.core.config import BotConfig
from bot.core.errors import NoGame, NotAllowed
from bot.core.home import HomeService, turn_notice, turn_ping
from bot.core.service import User
from bot.db.rows import UserSettings
from bot.texts.i18n import CATALOGS
from engine import Game
from engine.record import parse_record
from renderer.i18n import KEYWORDS
from tests.bot.conftest import ANN, BOB, CHANNEL, GUILD, Env
from tests.bot.core.test_home import home, play_out, start

# What every answer of a command says in each language (its head or a fixed word).
ENGLISH = re.compile(
    r"\b(game|games|this server|this channel|finished|your turn|since|settings|average)\b"
)


def _no_english(text: str) -> None:
    """No English words of bot.core.home's own left in a translated text."""
    # Mentions, channel links, timestamps, commands and options are language-neutral.
    neutral = re.sub(r"<[@#t][^>]*>|`[^`]*`|\[[^\]]*\]\([^)]*\)", "", text)
    assert not ENGLISH.search(neutral.replace("Torres", "")), text


async def _seed(env: Env) -> dict[str, int]:
    """Three finished games (stats, leaderboard, history) and a running one, Ann to move."""
    ids = {}
    for seed in range(3):
        ids[f"finished{seed}"] = game_id = await start(env, ANN, BOB, channel=CHANNEL + 1 + seed)
        await play_out(env, game_id, seed=seed)
    ids["running"] = await start(env, ANN, BOB)
    return ids


@pytest.mark.parametrize(
    ("lang", "words"),
    [
        (
            "de",
            {
                "games": "**Deine Torres-Partien** (1 nicht beendet, in 1 bist du am Zug)",
                "turn": "**du bist am Zug** (Zugbeginn <t:",
                "history": "**Beendete Torres-Partien auf diesem Server** (neueste zuerst)",
                "stats": "**Ann** auf diesem Server: 3 Partien, ",
                "rating": "(Spielstärke ",
                "board": "Entscheidung 0 von ",
                "export": " Entscheidungen). Spiel sie mit `python -m engine replay FILE` nach.",
                "leaderboard": "**Torres-Bestenliste**",
                "settings": "**Deine Torres-Einstellungen**",
                "none": "Du hast keine laufenden oder offenen Torres-Partien.",
            },
        ),
        (
            "nl",
            {
                "games": "**Jouw Torres-spellen** (1 niet afgelopen, in 1 ben jij aan de beurt)",
                "turn": "**jij bent aan de beurt** (begonnen <t:",
                "history": "**Afgelopen Torres-spellen op deze server** (nieuwste eerst)",
                "stats": "**Ann** op deze server: 3 spellen, ",
                "rating": "(vaardigheid ",
                "board": "beslissing 0 van ",
                "export": " beslissingen). Speel het na met `python -m engine replay FILE`.",
                "leaderboard": "**Torres-ranglijst**",
                "settings": "**Jouw Torres-instellingen**",
                "none": "Je hebt geen lopende of open Torres-spellen.",
            },
        ),
    ],
)
async def test_each_command_answers_in_the_users_language(env: Env, lang: str, words: dict):
    h = home(env)
    ids = await _seed(env)

    games = await h.my_games(user_id=ANN.id, guild_id=GUILD, lang=lang)
    assert games.startswith(words["games"]) and words["turn"] in games
    _no_english(games)
    assert (await h.my_games(user_id=999, guild_id=GUILD, lang=lang)).startswith(words["none"])

    history = await h.history(channel_id=5555, guild_id=GUILD, lang=lang)
    assert history.startswith(words["history"])
    assert all(f"• #{ids[f'finished{i}']} in <#" in history for i in range(3))
    _no_english(history)

    stats = await h.stats(guild_id=GUILD, user_id=ANN.id, name="Ann", lang=lang)
    assert stats.startswith(words["stats"]) and words["rating"] in stats
    _no_english(stats)
    english = await h.stats(guild_id=GUILD, user_id=ANN.id, name="Ann")
    # the same numbers, written the language's way (a decimal comma in both)
    numbers = re.findall(r"\d+\.\d", english)
    assert numbers and [n.replace(".", ",") for n in numbers] == re.findall(r"\d+,\d", stats)

    board = (await h.leaderboard(guild_id=GUILD, lang=lang)).splitlines()
    assert board[0].startswith(words["leaderboard"]) and len(board) == 4
    for line in board:
        _no_english(line)

    view = await h.past_board(
        channel_id=CHANNEL + 1,
        guild_id=GUILD,
        user_id=ANN.id,
        game_id=None,
        decision=0,
        lang=lang,
    )
    assert words["board"] in view.text.splitlines()[0]

    out = await h.export(channel_id=CHANNEL + 1, guild_id=GUILD, game_id=None, lang=lang)
    assert out.reply.endswith(words["export"])
    # the record itself stays in English: a file format, read by `engine replay`
    english_out = await h.export(channel_id=CHANNEL + 1, guild_id=GUILD, game_id=None)
    assert out.text == english_out.text
    assert " won (" in parse_record(out.text).headers["Result"] or "shared victory" in out.text

    settings = await h.settings(user_id=ANN.id, lang=lang)
    assert settings.startswith(words["settings"] + "\n• `dm`: ")
    _no_english(settings)

    # refusals are worded for the asker too
    with pytest.raises(NotAllowed) as refused:
        await h.export(channel_id=CHANNEL, guild_id=GUILD, game_id=ids["running"], lang=lang)
    assert refused.value.message == CATALOGS.get(lang).gettext(
        "Game #{game} is still going: a record is exported once the game is over, because its "
        "seed gives away the order of the cards. `/torres board decision:K` shows earlier "
        "positions."
    ).format(game=ids["running"])
    with pytest.raises(NoGame) as missing:
        await h.past_board(
            channel_id=CHANNEL, guild_id=GUILD, user_id=ANN.id, game_id=99, decision=None, lang=lang
        )
    assert "#99" in missing.value.message and "There is no" not in missing.value.message


async def test_a_clock_timeout_speaks_the_games_language_and_the_asker_their_own(env: Env):
    """A German game: its lobby line and timeout notes in German; a Dutch player's /torres
    games answer in Dutch all the same."""
    h = HomeService(env.store, ai_level="search", clock=env.clock)
    out = await env.service.new(
        guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=2, language="de"
    )
    game_id = out.posts[0].game_id
    line = await h.set_clock(game_id, 1)
    assert line.startswith("Zeit pro Zug: 1 Stunde. Läuft sie ab, spielt der Computer")
    await env.service.join(channel_id=CHANNEL, user=BOB)
    await env.service.start(channel_id=CHANNEL, user=ANN)
    row = await env.store.game(game_id)
    assert row is not None and row.language == "de"

    env.clock.now += 3601
    (first,) = await h.due_clocks(env.service)
    note = first.posts[0].text
    assert note.startswith(
        f"⏰ Die Zeit von <@{ANN.id}> für diesen Zug (1 Stunde) ist in Partie #{game_id} "
        "abgelaufen: Der Computer spielt den Zug."
    ), note
    assert "Das ist zweimal" not in note

    dutch = User(BOB.id, BOB.display, "nl")
    games = await h.my_games(user_id=dutch.id, guild_id=GUILD, lang=dutch.lang)
    assert games.startswith("**Jouw Torres-spellen** (1 niet afgelopen, in 1 ben jij aan de beurt)")

    # Bob plays his turn; Ann's time runs out again: the computer takes her seat (German)
    row = await env.store.game(game_id)
    assert row is not None and row.position is not None
    assert Game.from_position(row.position).to_move == "blue"
    while Game.from_position(row.position).to_move == "blue":
        await play_out(env, game_id, seed=1, until=1)
        row = await env.store.game(game_id)
        assert row is not None and row.position is not None
    env.clock.now += 3601
    (second,) = await h.due_clocks(env.service)
    assert (
        f"Das ist zweimal hintereinander, also übernimmt der Computer den Platz; <@{ANN.id}> "
        "kann mit `/torres join` in diesem Kanal zurückkommen." in second.posts[0].text
    )

    # Ann comes back, her Discord in Dutch: her reply in Dutch, the channel's post in German
    ann = User(ANN.id, ANN.display, "nl")
    back = await h.rejoin(channel_id=CHANNEL, user=ann)
    assert back is not None
    assert back.reply == f"Je bent terug op je plaats (rood) in spel #{game_id}."
    (post,) = back.posts
    assert post.language == "de"
    assert post.text == f"Ann ist zurück in Partie #{game_id} und spielt wieder Rot."


async def test_away_replies_in_the_users_language_and_posts_in_each_games(env: Env):
    h = home(env)
    german = (
        (
            await env.service.new(
                guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=2, language="de"
            )
        )
        .posts[0]
        .game_id
    )
    await env.service.join(channel_id=CHANNEL, user=BOB)
    await env.service.start(channel_id=CHANNEL, user=ANN)
    english = await start(env, ANN, BOB, channel=CHANNEL + 1)
    ann = User(ANN.id, ANN.display, "nl")
    out = await h.away(user=ann, days=2)
    assert out.reply.startswith("Je bent afwezig tot <t:")
    assert "staan stil in 2 lopende spellen." in out.reply
    by_game = {p.game_id: p for p in out.posts}
    assert by_game[german].language == "de" and by_game[english].language == "en"
    assert by_game[german].text.startswith("Ann ist bis <t:")
    assert by_game[english].text.startswith("Ann is away until <t:")
    settings = await h.settings(user_id=ANN.id, lang="de")
    assert "• abwesend bis <t:" in settings
    back = await h.away(user=User(ANN.id, ANN.display, "de"), days=0)
    assert back.reply == "Willkommen zurück: Deine Uhren und Erinnerungen laufen wieder."
    assert by_game[german].text != by_game[english].text
    assert {p.language for p in back.posts} == {"de", "en"}


async def test_dm_notices_in_the_games_language_the_refusal_in_the_users(env: Env):
    h = home(env)
    assert turn_notice("nl", game_id=4, channel_id=77, jump_url="https://x/y") == (
        "Jij bent aan de beurt in Torres-spel #4 in <#77>: https://x/y"
    )
    assert turn_notice("en", game_id=4, channel_id=77, jump_url="https://x/y") == (
        "Your turn in Torres game #4 in <#77>: https://x/y"
    )
    assert turn_ping("de", user_id=5, game_id=4) == (
        "<@5>, du bist am Zug in Partie #4 (ich konnte dir keine Direktnachricht schicken)."
    )
    await env.store.set_user_settings(UserSettings(ANN.id, dm=True, dm_refused=True))
    notice = await h.pending_notice(ANN.id, "de")
    assert notice is not None and notice.startswith("Ich konnte dir keine Direktnachricht")
    assert await h.pending_notice(ANN.id, "de") is None  # told once


# -- the Discord layer: bot.client.home_cog passes interaction.locale -------------------------


@dataclass
class _Response:
    done: bool = False

    async def defer(self, **_: Any) -> None:
        self.done = True

    def is_done(self) -> bool:
        return self.done


@dataclass
class _Followup:
    sent: list[str] = field(default_factory=list)

    async def send(self, content: str, **_: Any) -> None:
        self.sent.append(content)


def _interaction(locale: str) -> Any:
    return SimpleNamespace(
        user=SimpleNamespace(id=ANN.id, display_name="Ann"),
        guild_id=GUILD,
        channel_id=CHANNEL + 1,
        locale=discord.Locale(locale),
        response=_Response(),
        followup=_Followup(),
    )


@pytest.mark.parametrize(
    ("locale", "heads"),
    [
        (
            "de",
            {
                "games": "**Deine Torres-Partien**",
                "history": "**Beendete Torres-Partien in diesem Kanal**",
                "export": "Die Aufzeichnung von Partie #",
                "stats": "**Ann** auf diesem Server: 3 Partien",
                "leaderboard": "**Torres-Bestenliste**",
                "settings": "**Deine Torres-Einstellungen**",
            },
        ),
        (
            "nl",
            {
                "games": "**Jouw Torres-spellen**",
                "history": "**Afgelopen Torres-spellen in dit kanaal**",
                "export": "Het verslag van spel #",
                "stats": "**Ann** op deze server: 3 spellen",
                "leaderboard": "**Torres-ranglijst**",
                "settings": "**Jouw Torres-instellingen**",
            },
        ),
        ("en-GB", {"games": "**Your Torres games**", "settings": "**Your Torres settings**"}),
    ],
)
async def test_the_commands_answer_in_the_interactions_locale(env: Env, locale: str, heads: dict):
    await _seed(env)
    bot = TorresBot(config=BotConfig(token="x"), store=env.store, service=env.service)
    group = bot.tree.get_command("torres")
    assert isinstance(group, discord.app_commands.Group)
    for name, head in heads.items():
        command = group.get_command(name)
        assert command is not None
        interaction = _interaction(locale)
        kwargs: dict[str, Any] = {"player": None} if name == "stats" else {}
        await command.callback(interaction, **kwargs)  # type: ignore[call-arg]
        (reply,) = interaction.followup.sent
        assert reply.startswith(head), (name, reply)


def test_every_home_text_has_a_german_and_a_dutch_translation():
    """Each message marked in bot/core/home.py and bot/client/home_cog.py is translated in home.po,
    not fuzzy, with the same placeholders."""
    root = Path(__file__).resolve().parents[3]
    marked = [
        message
        for name in ("bot/core/home.py", "bot/client/home_cog.py")
        for _, message, _, _ in extract_from_file(
            "python", root / name, keywords=KEYWORDS, strip_comment_tags=True
        )
    ]
    assert len(marked) > 50
    braces = re.compile(r"\{(\w+)\}")
    for lang in ("de", "nl"):
        with (root / f"bot/locales/{lang}/LC_MESSAGES/home.po").open("rb") as f:
            catalog = read_po(f, locale=lang)
        for message in marked:
            msgid = message[0] if isinstance(message, tuple) else message
            entry = catalog.get(msgid)
            assert entry is not None and not entry.fuzzy, (lang, msgid)
            sources = message if isinstance(message, tuple) else (message,)
            wanted = set().union(*(braces.findall(s) for s in sources)) - {"n"}
            strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
            assert all(strings), (lang, msgid)
            for translated in strings:
                assert set(braces.findall(translated)) - {"n"} == wanted, (lang, msgid)
