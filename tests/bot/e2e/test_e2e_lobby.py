"""End-to-end: lobby, leaving and ending games, computer players, reminders, rules.

Each test gets its own fake Discord and bot process (see conftest.py); knobs
from docs/bot.md are passed through the ``runner`` fixture's parameter.
"""

from __future__ import annotations

import json
import re

import pytest

from engine import ENGINE_NOTE, Game
from tests.bot.e2e._harness import SEED, TIMEOUT, BotRunner, Table, check_png, open_game


async def test_leave_and_cancel_rights(runner: BotRunner) -> None:
    # The bot runs on uvloop's event loop (TORRES_EVENT_LOOP's default) and says so.
    assert "event loop: uvloop.Loop" in runner.log_text(), runner.log_text()
    # ... and which engine plays, once: the one the tests have (the core when built)
    assert runner.log_text().count(f"bot: engine: {ENGINE_NOTE}") == 1, runner.log_text()
    t = Table(runner)
    _, reply = await t.slash("alice", "new", players=3)
    game_id = int(re.search(r"game #(\d+)", reply.text).group(1))  # type: ignore[union-attr]
    ix, reply = await t.slash("bob", "join")
    ix, reply = await t.slash("bob", "leave")
    assert reply.text == f"You left game #{game_id}.", reply.text
    note = await t.public_after(ix, "the leave note")
    assert "left game" in note.text and note.pinged_ids == []
    _, reply = await t.slash("bob", "leave")
    assert "not in this game" in reply.text, reply.text
    _, reply = await t.slash("alice", "leave")
    assert "/torres cancel" in reply.text, reply.text

    # A channel manager may not end an active game before it has been idle long enough.
    _, reply = await t.confirmed("dana", "cancel")
    assert "idle" in reply.text and re.search(r"<t:\d+:R>", reply.text), reply.text
    _, reply = await t.confirmed("carol", "cancel")
    assert "Only the game's author" in reply.text, reply.text
    seq = t.fake.last_seq
    ix, reply = await t.confirmed("alice", "cancel")
    assert reply.text == f"Game #{game_id} is cancelled.", reply.text
    note = await t.public_after(ix, "the cancel note")
    assert "cancelled by Alice" in note.text
    assert [m.text for m in t.public_since(seq)] == [note.text]
    _, reply = await t.confirmed("alice", "cancel")
    assert "no torres game" in reply.text.lower(), reply.text


@pytest.mark.parametrize("runner", [{"TORRES_IDLE_CANCEL_SECONDS": "0"}], indirect=True)
async def test_channel_manager_may_end_an_idle_game(runner: BotRunner) -> None:
    t = Table(runner)
    game_id = await open_game(t)
    _, reply = await t.confirmed("carol", "cancel")  # no Manage Channels
    assert "Only the game's author" in reply.text, reply.text
    ix, reply = await t.confirmed("dana", "cancel")  # Manage Channels, game idle >= 0 s
    assert reply.text == f"Game #{game_id} is cancelled.", reply.text
    await t.public_after(ix, "the cancel note", lambda m: "cancelled by Dana" in m.text)
    status, result = runner.db_row("SELECT status, result FROM games WHERE id = ?", game_id)
    assert status == "cancelled" and '"reason": "cancelled"' in result


async def test_resign_ends_a_game_without_computer_players(runner: BotRunner) -> None:
    t = Table(runner)
    game_id = await open_game(t)
    ix, reply = await t.confirmed("bob", "resign")
    assert "game is over" in reply.text, reply.text
    post = await t.public_after(ix, "the resignation", lambda m: "resigned" in m.text)
    assert post.pinged_ids == [t.user("alice").id], "the remaining player should be told"
    assert "red (Alice): 0" in post.text and "blue (Bob): 0" in post.text, post.text
    assert runner.db_row("SELECT status FROM games WHERE id = ?", game_id)[0] == "over"


async def test_against_the_computer(runner: BotRunner) -> None:
    """alice plays red; the computer plays blue: its turns are posted without buttons, in notation."""
    t = Table(runner)
    ix, reply = await t.slash("alice", "new", players=2, bots=1)
    game_id = int(re.search(r"game #(\d+)", reply.text).group(1))  # type: ignore[union-attr]
    lobby = t.lobby or await t.public_after(ix, "the lobby")  # a card, with a thread
    assert "computer" in lobby.text and "more can join" not in lobby.text, lobby.text
    _, reply = await t.slash("bob", "join")
    assert "full" in reply.text, reply.text
    _, reply = await t.slash("alice", "start")
    assert f"Game #{game_id} started" in reply.text, reply.text
    game = Game.new(players=2, names=["red", "blue"], variant="common", seed=SEED)
    start = await t.fake.wait_for_message(
        lambda m: bool(m.attachments), channel=t.channel, public=True, after=0, timeout=TIMEOUT
    )
    seen = start.seq
    header = re.compile(
        r"^\*\*(?P<who>.+?) \((?P<colour>red|blue)\)\*\* played `(?P<actions>[^`]*)`"
    )
    computer_turns = 0
    while game.stage != "over":
        if game.to_move == "red":
            legal = game.legal()
            actions = ["end"] if "end" in legal else [legal[0]]
            _, reply = await t.slash("alice", "play", actions="; ".join(actions))
            assert reply.text in ("Your turn is over.", "The game is over."), reply.text
        post = await t.fake.wait_for_message(
            lambda m: bool(m.attachments),
            channel=t.channel,
            public=True,
            after=seen,
            timeout=TIMEOUT,
            what="the next turn message",
        )
        seen = post.seq
        # Consecutive computer decisions are one post, one "played" line each.
        decisions = [header.match(line) for line in post.text.splitlines()]
        decisions = [m for m in decisions if m]
        assert decisions, post.text
        for m in decisions:
            assert m["colour"] == game.to_move
            if m["colour"] == "blue":
                computer_turns += 1
                assert "Computer" in m["who"]
            for action in m["actions"].split("; "):
                game.play(action)  # the posted notation replays in our mirror
        if game.to_move == "red" and len(decisions) > 1:
            assert all(m["colour"] == "blue" for m in decisions)
        check_png(post.attachments[0].data)
        if game.stage != "over" and game.to_move == "blue":
            assert post.buttons == [] and post.pinged_ids == [], (
                "the computer needs no buttons or pings"
            )
        elif game.stage != "over":
            assert post.pinged_ids == [t.user("alice").id]
            assert post.buttons, "alice's turn message needs buttons"
    assert computer_turns >= 12
    assert "**Game over!**" in post.text
    status, position = runner.db_row("SELECT status, position FROM games WHERE id = ?", game_id)
    assert status == "over"

    assert json.loads(position) == game.position()


@pytest.mark.parametrize(
    "runner",
    [
        {
            "TORRES_REMINDER_SECONDS": "1",
            "TORRES_REMINDER_COUNT": "2",
            "TORRES_REMINDER_CHECK_SECONDS": "0.2",
        }
    ],
    indirect=True,
)
async def test_reminders_ping_the_idle_player_a_bounded_number_of_times(runner: BotRunner) -> None:
    t = Table(runner)
    await open_game(t)
    alice = t.user("alice")
    first = await t.fake.wait_for_message(
        lambda m: "it's your move" in m.text, channel=t.channel, public=True, timeout=TIMEOUT
    )
    assert first.pinged_ids == [alice.id] and re.search(r"<t:\d+:R>", first.text)
    second = await t.fake.wait_for_message(
        lambda m: "it's your move" in m.text,
        channel=t.channel,
        public=True,
        after=first.seq,
        timeout=TIMEOUT,
    )
    assert "last reminder" in second.text, second.text
    # Acting resets the reminders: after alice's decision, bob is reminded, not alice.
    ix, _ = await t.slash(
        "alice", "play", actions=Game.new(players=2, names=["red", "blue"], seed=SEED).legal()[0]
    )
    bob_reminder = await t.fake.wait_for_message(
        lambda m: "it's your move" in m.text,
        channel=t.channel,
        public=True,
        after=ix,
        timeout=TIMEOUT,
    )
    assert bob_reminder.pinged_ids == [t.user("bob").id]
    reminders_for_alice = [
        m for m in t.public_since(0) if "it's your move" in m.text and alice.id in m.pinged_ids
    ]
    assert len(reminders_for_alice) == 2, "TORRES_REMINDER_COUNT=2 allows two reminders per turn"


async def test_rules_are_private_and_fit_a_message(runner: BotRunner) -> None:
    t = Table(runner)
    ix = await t.fake.slash("carol", t.channel, "torres", "rules")
    reply = await ix.reply(TIMEOUT)
    assert reply.ephemeral and "Torres" in reply.text and len(reply.text) <= 2000
    topics = [
        c["value"]
        for c in next(
            o
            for o in next(c for c in t.fake.global_commands if c["name"] == "torres")["options"]
            if o["name"] == "rules"
        )["options"][0]["choices"]
    ]
    assert {"overview", "scoring", "notation"} <= set(topics)
    for topic in topics:
        ix = await t.fake.slash("carol", t.channel, "torres", "rules", topic=topic)
        reply = await ix.reply(TIMEOUT)
        assert reply.ephemeral and 50 < len(reply.text) <= 2000, (topic, reply.text)


async def test_cancel_a_running_game_then_its_buttons_are_dead(runner: BotRunner) -> None:
    t = Table(runner)
    game_id = await open_game(t)
    start = await t.fake.wait_for_message(
        lambda m: bool(m.attachments), channel=t.channel, public=True, timeout=TIMEOUT
    )
    _, reply = await t.confirmed("bob", "cancel")
    assert "Only the game's author" in reply.text, reply.text
    ix, reply = await t.confirmed("alice", "cancel")
    assert reply.text == f"Game #{game_id} is cancelled.", reply.text
    note = await t.public_after(ix, "the cancel note", lambda m: "cancelled" in m.text)
    assert "red 0" in note.text and "blue 0" in note.text, note.text
    _, reply = await t.click("alice", start, "hand")
    assert "over" in reply.text.lower(), reply.text
    _, reply = await t.slash("alice", "board")  # an ended game stays viewable (bot.core.home)
    assert reply.text.startswith(f"Game #{game_id} was cancelled ("), reply.text
    assert reply.attachments


@pytest.mark.parametrize("runner", [{"TORRES_SYNC_GUILD": "{guild}"}], indirect=True)
async def test_commands_synced_to_one_guild(runner: BotRunner) -> None:
    """TORRES_SYNC_GUILD: the commands go to that server only, and work there."""
    fake = runner.fake
    assert fake.global_commands == []
    [cmd] = fake.guild_commands[fake.guild_id]
    assert cmd["name"] == "torres" and cmd["guild_id"] == str(fake.guild_id)
    t = Table(runner)
    ix = await fake.slash("alice", t.channel, "torres", "new")
    assert ix.data["guild_id"] == str(fake.guild_id)
    reply = await ix.reply(TIMEOUT)
    assert "You opened game #" in reply.text, reply.text
