"""End-to-end: the Discord layer's own words in the right language, through the real bot.

A German author opens a game a Dutch player joins: the game speaks German (the
author's language, the server keeping Discord's US English), so its turn
messages carry German buttons, while each player's private texts (the End turn
question, autocomplete, refusals) speak that player's language. A game opened
with ``language:nl`` speaks Dutch whoever opened it.
"""

from __future__ import annotations

import re

from engine import Game
from tests.bot.e2e._harness import SEED, TIMEOUT, BotRunner, Table


async def _turn_message(t_: Table, after_seq: int):
    return await t_.fake.wait_until(
        lambda: next((m for m in t_.public_since(after_seq) if m.buttons and m.attachments), None),
        TIMEOUT,
        "a turn message",
    )


async def test_public_in_the_games_language_private_in_each_users(runner: BotRunner) -> None:
    fake = runner.fake
    fake.set_locale("alice", "de")
    fake.set_locale("bob", "nl")
    table = Table(runner)

    _, reply = await table.slash("alice", "new")
    assert reply.text.endswith("\nÖffentliche Nachrichten dieser Partie: Deutsch."), reply
    game_id = int(re.search(r"#(\d+)", reply.text).group(1))  # type: ignore[union-attr]
    assert runner.db_row("SELECT language FROM games WHERE id = ?", game_id) == ("de",)
    await table.slash("bob", "join")
    seq = fake.last_seq
    await table.slash("alice", "start")
    turn = await _turn_message(table, seq)
    assert [b.label for b in turn.buttons] == ["Spielen", "Meine Kartenhand"], turn.buttons
    assert "Spielplan" in turn.attachments[0].description  # the alt text, in German

    # The setup, played by whoever is to move; then a real turn with AP to spare.
    game = Game.new(2, seed=SEED)
    seats = {game.players[0]: "alice", game.players[1]: "bob"}
    while game.stage != "play":
        action = game.legal()[0]
        seq = fake.last_seq
        await table.slash(seats[game.to_move], "play", actions=action)
        game.play(action)
    turn = await _turn_message(table, seq)
    labels = {b.label for b in turn.buttons}
    assert {"Spielen", "Zug beenden", "Meine Kartenhand"} <= labels, labels

    mover, other = seats[game.to_move], "bob"
    assert mover == "alice"  # with this seed; alice speaks German, bob Dutch

    # End turn with AP left asks first, privately, in the presser's language.
    end = next(b for b in turn.buttons if (b.custom_id or "").endswith(":end"))
    ix = await fake.click(mover, turn, end.custom_id or "")
    question = await ix.reply(TIMEOUT)
    assert question.ephemeral
    assert question.text == (
        f"Du hast noch **{game.ap} AP**. Zug trotzdem beenden? (Nicht genutzte AP verfallen.)"
    ), question.text
    confirm = [b.label for b in question.buttons if (b.custom_id or "").endswith(":yes")]
    assert confirm == ["Zug beenden"], confirm

    # Autocomplete: a typo explained in the typist's language; values stay notation.
    choices = await fake.autocomplete(
        mover, table.channel, "torres", "play", focused="actions", actions="mvoe"
    )
    assert choices == [
        {"name": "⚠ Unbekanntes Wort `mvoe`. Meintest du `move`?", "value": "mvoe"}
    ], choices
    choices = await fake.autocomplete(
        mover, table.channel, "torres", "play", focused="actions", actions=""
    )
    builds = [c["name"] for c in choices if c["value"].startswith("build ")]
    assert builds and all("Bauen" in name for name in builds), builds  # bot.core.panel's words
    assert "end" in [c["value"] for c in choices]
    assert all(re.fullmatch(r"[a-z0-9 ;?]+", c["value"]) for c in choices), choices

    # Bob's private texts speak Dutch in the same German game.
    hand = next(b for b in turn.buttons if (b.custom_id or "").endswith(":hand"))
    ix = await fake.click(other, turn, hand.custom_id or "")
    reply = await ix.reply(TIMEOUT)
    assert reply.ephemeral and reply.viewer is table.user(other)
    assert reply.text.startswith("Je hand"), reply.text
    ix = await fake.click(other, turn, end.custom_id or "")
    reply = await ix.reply(TIMEOUT)  # not his turn: refused in Dutch
    assert reply.ephemeral and "beurt" in reply.text, reply.text
    assert not runner.unexpected_log_errors()


async def test_a_chosen_language_wins(runner: BotRunner) -> None:
    fake = runner.fake
    fake.set_locale("alice", "de")
    fake.set_guild_locale("de")
    table = Table(runner)
    _, reply = await table.slash("alice", "new", language="nl", bots=1)
    assert "Öffentliche Nachrichten" not in reply.text, reply.text  # chosen: no note
    game_id = int(re.search(r"#(\d+)", reply.text).group(1))  # type: ignore[union-attr]
    assert runner.db_row("SELECT language FROM games WHERE id = ?", game_id) == ("nl",)
    seq = fake.last_seq
    await table.slash("alice", "start")
    turn = await _turn_message(table, seq)
    labels = {b.label for b in turn.buttons}
    assert labels <= {"Spelen", "Beurt beëindigen", "Ongedaan maken", "Mijn hand"}, labels


async def test_a_dutch_server_gets_dutch_games_and_english_users_english_replies(
    runner: BotRunner,
) -> None:
    fake = runner.fake
    fake.set_guild_locale("nl")  # the server's preferred locale; carol's Discord is en-US
    table = Table(runner)
    seq = fake.last_seq
    _, reply = await table.slash("carol", "new", bots=1)
    assert reply.text.startswith("You opened game #"), reply.text
    assert reply.text.endswith("\nThe game's public messages are in Nederlands."), reply
    game_id = int(re.search(r"#(\d+)", reply.text).group(1))  # type: ignore[union-attr]
    assert runner.db_row("SELECT language FROM games WHERE id = ?", game_id) == ("nl",)
    lobby = table.lobby or await fake.wait_until(  # a card in the channel, with a thread
        lambda: next((m for m in table.public_since(seq) if f"#{game_id}" in m.text), None),
        TIMEOUT,
        "the lobby post",
    )
    assert "Torres-spel" in lobby.text and "game" not in lobby.text, lobby.text
    seq = fake.last_seq
    _, reply = await table.slash("carol", "start")
    turn = await _turn_message(table, seq)
    assert {b.label for b in turn.buttons} <= {"Spelen", "Beurt beëindigen", "Mijn hand"}
    assert "spelbord" in (turn.attachments[0].description or ""), turn.attachments
    _, reply = await table.slash("carol", "hand")
    assert reply.ephemeral and reply.text.startswith("Your hand"), reply.text
