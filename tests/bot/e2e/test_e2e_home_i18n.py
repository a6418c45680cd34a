"""The players' home through the real bot in three languages: each user's Discord
locale picks the language of their private answers; what /torres away posts in the
game's channel speaks the game's language."""

from __future__ import annotations

from tests.bot.e2e._harness import BotRunner, Table, open_game


async def test_home_answers_in_each_users_language(runner: BotRunner):
    t = Table(runner)
    fake = runner.fake
    game_id = await open_game(t)  # alice (red) and bob (blue), in English
    row = runner.db_row("SELECT language FROM games WHERE id = ?", game_id)
    assert row is not None
    (game_language,) = row
    fake.set_locale("alice", "de")
    fake.set_locale("bob", "nl")

    _, reply = await t.slash("alice", "games")
    assert reply.text.startswith(
        "**Deine Torres-Partien** (1 nicht beendet, in 1 bist du am Zug)\n"
        f"• #{game_id} (🔴 Rot) in <#{t.channel.id}>: **du bist am Zug** (Zugbeginn <t:"
    ), reply.text
    _, reply = await t.slash("bob", "games")
    assert reply.text.startswith(
        "**Jouw Torres-spellen** (1 niet afgelopen)\n"
        f"• #{game_id} (🔵 blauw) in <#{t.channel.id}>: Alice is aan de beurt (begonnen <t:"
    ), reply.text
    _, reply = await t.slash("carol", "history")
    assert reply.text == "No Torres game has ended on this server yet."
    _, reply = await t.slash("alice", "history")
    assert reply.text == "Auf diesem Server ist noch keine Torres-Partie zu Ende gegangen."
    _, reply = await t.slash("bob", "leaderboard")
    assert reply.text.startswith("Nog niemand heeft op deze server 3 afgelopen spellen;")
    _, reply = await t.slash("alice", "settings", dm=False)
    assert reply.text.startswith("**Deine Torres-Einstellungen** (gespeichert)\n• `dm`: aus")

    ix, reply = await t.slash("bob", "away", days=1)
    assert reply.text.startswith("Je bent afwezig tot <t:"), reply.text
    assert "staan stil in 1 lopend spel." in reply.text
    shown = await t.public_after(ix, "the away notice", lambda m: "<t:" in m.text)
    expected = {
        "en": "Bob is away until <t:",
        "de": "Bob ist bis <t:",
        "nl": "Bob is afwezig tot <t:",
    }[game_language]
    assert shown.text.startswith(expected), shown.text
    _, reply = await t.slash("bob", "away", days=0)
    assert reply.text == "Welkom terug: je klokken en herinneringen lopen weer."
