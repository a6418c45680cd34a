"""The game service in German and Dutch: private replies speak the asking user's language,
public posts (and their pictures) the game's, whatever the players' own languages are."""

from __future__ import annotations

import random
import re
import string
from dataclasses import replace

import pytest

from bot.core.batch import merge_posts
from bot.core.errors import IllegalMove, NotAllowed, NotSeated, NotYourTurn
from bot.core.service import Post, User, _random_decision
from bot.db.rows import SeatRow
from bot.texts import posts as texts
from bot.texts.i18n import CATALOGS
from engine import Game
from tests.bot.conftest import ANN, BOB, CHANNEL, EVE, GUILD, Env

ANNA = replace(ANN, locale="de")  # Discord's German
BOOR = replace(BOB, locale="nl")  # Discord's Dutch
EVA = replace(EVE, locale="de")


async def open_game(env: Env, *users: User, language: str = "en", bots: int = 0):
    opened = await env.service.new(
        guild_id=GUILD,
        channel_id=CHANNEL,
        user=users[0],
        players=len(users) + bots,
        bots=bots,
        language=language,
    )
    joined = [await env.service.join(channel_id=CHANNEL, user=u) for u in users[1:]]
    started = await env.service.start(channel_id=CHANNEL, user=users[0])
    return opened, joined, started


async def test_the_same_requests_answer_each_user_in_their_language(env: Env):
    opened, joined, started = await open_game(env, ANNA, BOOR)
    assert opened.reply == "Du hast Partie #1 eröffnet und den ersten Platz genommen."
    assert joined[0].reply == "Je doet mee aan spel #1 (plaats 2)."
    assert started.reply == "Partie #1 hat begonnen."
    # the game speaks English: its posts do, whoever asked
    assert opened.posts[0].text.startswith(f"<@{ANN.id}> opened Torres game #1: 2 players")
    assert all(p.language == "en" for p in (*opened.posts, *joined[0].posts, *started.posts))

    with pytest.raises(NotYourTurn) as de:
        await env.service.play(channel_id=CHANNEL, user=BOOR, text="place f6")
    assert de.value.message.startswith("Je bent niet aan de beurt: ")
    with pytest.raises(NotSeated) as no:
        await env.service.play(channel_id=CHANNEL, user=EVA, text="end")
    assert no.value.message == "Du spielst in dieser Partie nicht mit."
    with pytest.raises(NotAllowed) as again:
        await env.service.join(channel_id=CHANNEL, user=BOOR)
    assert again.value.message == "Dit spel is al begonnen; wacht op het volgende."

    # the engine's refusal inside the bot's own sentence, in German
    with pytest.raises(IllegalMove) as chain:
        await env.service.play(channel_id=CHANNEL, user=ANNA, text="place zz; place c3")
    assert re.match(r"Aktion 1 von 2, `place zz`: .+ Nichts wurde geändert\.$", chain.value.message)
    with pytest.raises(IllegalMove) as past:
        await env.service.play(channel_id=CHANNEL, user=ANNA, text="place c3; place zz")
    assert past.value.message.startswith("`place c3` beendet deinen Zug schon")

    out = await env.service.play(channel_id=CHANNEL, user=ANNA, text="place c3")
    assert out.reply == "Dein Zug ist beendet."
    out = await env.service.play(channel_id=CHANNEL, user=BOOR, text="place f6")
    assert out.reply == "Je beurt is voorbij."

    hand_de = await env.service.hand(channel_id=CHANNEL, user=ANNA)
    hand_nl = await env.service.hand(channel_id=CHANNEL, user=BOOR)
    assert hand_de.startswith("Deine Kartenhand (🔴 Rot):")
    assert hand_nl.startswith("Je hand (🔵 blauw):")
    hand_en = await env.service.hand(channel_id=CHANNEL, user=replace(ANNA, locale="en-GB"))
    assert hand_en.startswith("Your hand (🔴 red):")

    view = await env.service.board(channel_id=CHANNEL, user=BOOR)
    assert view.language == "nl" and view.text.startswith("Spel #1, fase ")
    assert view.highlight_note in (
        "tot nu toe veranderd in deze beurt",
        "in de vorige beurt veranderd",
    )


async def test_autocomplete_explains_in_the_users_language(env: Env):
    await open_game(env, ANNA, BOOR)
    [(label, _)] = await env.service.suggest(
        channel_id=CHANNEL, user_id=BOOR.id, typed="pl", lang="nl"
    )
    assert label.startswith("⚠ Je bent niet aan de beurt: ")
    [(label, _)] = await env.service.suggest(
        channel_id=CHANNEL, user_id=EVE.id, typed="", lang="de"
    )
    assert label == "⚠ Du spielst in dieser Partie nicht mit."
    [(label, value)] = await env.service.suggest(
        channel_id=CHANNEL, user_id=ANN.id, typed="place c3; ", lang="de"
    )
    assert label == "place c3 (beendet deinen Zug)" and value == "place c3"


async def test_a_dutch_game_posts_in_dutch_while_a_german_player_reads_german(env: Env):
    opened, joined, started = await open_game(env, ANNA, BOB, language="nl")
    lobby = opened.posts[0]
    assert lobby.language == "nl"
    assert lobby.text == (
        f"<@{ANN.id}> heeft Torres-spel #1 geopend: 2 spelers, gemeenschappelijke trekstapel. "
        f"Nog 1 speler kan meedoen met `/torres join`; <@{ANN.id}> start het met `/torres start`."
    )
    assert opened.reply.startswith("Du hast Partie #1 eröffnet")
    assert joined[0].reply == "You joined game #1 (seat 2)."  # Bob's Discord speaks English
    assert joined[0].posts[0].text.startswith("Bob doet mee aan spel #1 (2/2 spelers).")
    post = started.posts[0]
    assert post.language == "nl" and post.text.startswith("**Spel #1 begint** (")
    assert "Volgende: " in post.text and "druk op **Spelen**" in post.text

    out = await env.service.play(channel_id=CHANNEL, user=ANNA, text="place c3")
    assert out.reply == "Dein Zug ist beendet."
    [turn] = out.posts
    assert turn.language == "nl"
    assert turn.text.startswith("**🔴 Ann (rood)** speelde `place c3`\nStand: rood 0 · blauw 0")
    assert turn.highlight_note == "veranderd in de beurt van Ann"
    assert turn.to_payload()["language"] == "nl"

    with pytest.raises(NotYourTurn) as refused:
        await env.service.play(channel_id=CHANNEL, user=ANNA, text="place f6")
    assert refused.value.message == f"Du bist nicht am Zug: <@{BOB.id}> (Blau) ist am Zug."

    resigned = await env.service.resign(channel_id=CHANNEL, user=ANNA)
    assert resigned.reply == "Du hast aufgegeben; die Partie ist zu Ende."
    assert resigned.posts[0].language == "nl"
    assert resigned.posts[0].text.startswith("Ann (rood) heeft opgegeven, dus spel #1 eindigt hier")
    assert "\nStand:\n" in resigned.posts[0].text


async def test_computer_seats_and_reminders_speak_the_games_language(env: Env):
    _, _, started = await open_game(env, ANNA, bots=1, language="de")
    post = started.posts[0]
    assert post.labels["blue"] == "Computer (Blau)"
    assert "🔵 Blau: der Computer" in post.text
    env.clock.now += 3600.0
    [reminder] = await env.service.due_reminders()
    assert reminder.language == "de"
    assert reminder.text.startswith(f"<@{ANN.id}>, du bist in der Torres-Partie #1 am Zug (Rot)")
    assert "Nächste Erinnerung <t:" in reminder.text


def _seats(names: list[str]) -> list[SeatRow]:
    return [SeatRow(1, i, 100 + i, f"P{i}", n, False, False, 0.0) for i, n in enumerate(names)]


@pytest.mark.parametrize("lang", ["de", "nl"])
def test_a_translated_scoring_summary_adds_up_like_the_english_one(lang: str):
    names = ["red", "blue", "green"]
    rng = random.Random(5)
    game = Game.new(3, names=names, variant="master", seed=21)
    castle = {"de": "Burg", "nl": "burcht"}[lang]
    scored = 0
    while game.stage != "over":
        for action in _random_decision(game, rng):
            for event in game.play(action) or []:
                if event.get("type") != "phase_scored":
                    continue
                scored += 1
                english = texts.phase_summary(event, _seats(names), game.position())
                text = texts.phase_summary(event, _seats(names), game.position(), lang)
                # the same numbers in the same places, only the words differ
                assert re.findall(r"\d+", text) == re.findall(r"\d+", english)
                assert text.splitlines()[0] != english.splitlines()[0]
                for line in text.splitlines()[1:]:
                    if line.startswith("↳"):
                        for area, level, points in re.findall(
                            rf"{castle} [a-h]\d: (\d+) \w+ × \w+ (\d+) = (\d+)", line
                        ):
                            assert int(area) * int(level) == int(points)
                        continue
                    total, parts = re.search(r": \+(\d+) \(([^)]*)\)", line).groups()
                    assert int(total) == sum(int(n) for n in re.findall(r"\d+", parts))
    assert scored == 3


def test_merged_computer_posts_drop_the_translated_score_and_next_lines():
    a = Post(1, 7, "**A** speelde `x`\nStand: a 0\nVolgende: B denkt na…", language="nl")
    b = Post(1, 7, "**B** speelde `y`\nStand: a 1\nVolgende: <@5> (red)", language="nl")
    merged = merge_posts([a, b])
    assert merged.text == "**A** speelde `x`\n**B** speelde `y`\nStand: a 1\nVolgende: <@5> (red)"
    assert merged.highlight_note == "veranderd in de beurten hierboven"


@pytest.mark.parametrize(
    ("lang", "seconds", "expected"),
    [
        ("de", 86400 * 14, "14 Tage"),
        ("de", 3600, "1 Stunde"),
        ("nl", 86400, "1 dag"),
        ("nl", 7200, "2 uur"),
        ("en", 60, "1 minute"),
    ],
)
def test_durations_have_plurals(lang: str, seconds: float, expected: str):
    assert texts.duration(seconds, lang) == expected


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


@pytest.mark.parametrize("lang", ["de", "nl"])
def test_core_catalog_is_complete_and_keeps_placeholders(lang: str):
    from babel.messages.pofile import read_po

    path = CATALOGS.directory / lang / "LC_MESSAGES" / "core.po"
    with path.open("rb") as f:
        catalog = read_po(f, locale=lang)
    messages = [m for m in catalog if m.id]
    assert len(messages) > 100
    for m in messages:
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strs = m.string if isinstance(m.string, tuple) else (m.string,)
        assert all(strs) and not m.fuzzy, m.id
        for s in strs:
            assert _fields(s) == _fields(ids[-1]), (m.id, s)


def test_the_replay_message_speaks_the_games_language():
    from bot.core.outbox import replay_post

    post = replay_post(Post(1, 7, "…", replay=True, language="de"))
    assert post.language == "de" and post.animation
    assert post.text == "Partie #7 vom ersten Ritter bis zum letzten Zug: `replay.gif`."
