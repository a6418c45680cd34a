"""Clocks through the real bot, on short clocks (TORRES_CLOCK_SCALE: 1 hour = 5.4 s):
a turn whose time runs out is played by the computer, announced; the second in a row
hands the seat to the computer; /torres join takes it back; /torres away pauses the clock.
"""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from engine import Game
from tests.bot.e2e._harness import BotRunner, Table

SHORT = {"TORRES_CLOCK_SCALE": "0.0015", "TORRES_REMINDER_CHECK_SECONDS": "0.2"}
WAIT = 30.0


def position(runner: BotRunner, game_id: int) -> Game:
    return Game.from_position(
        json.loads(runner.db_row("SELECT position FROM games WHERE id = ?", game_id)[0])
    )


@pytest.mark.parametrize("runner", [SHORT], indirect=True)
async def test_time_runs_out_twice_then_rejoin_and_away(runner: BotRunner):
    t = Table(runner)
    fake = runner.fake
    alice, bob = fake.users["alice"], fake.users["bob"]

    ix, reply = await t.slash("alice", "new", clock=1)
    lobby = await t.public_after(ix, "the lobby message")
    assert "Time per turn: 1 hour." in lobby.text
    game_id = int(reply.text.split("#")[1].split(" ")[0])
    await t.slash("bob", "join")
    ix, _ = await t.slash("alice", "start")
    # The turn card says when the computer plays for the player to move.
    start = await t.public_after(ix, "the start message", lambda m: bool(m.attachments))
    assert start.v2 and re.search(
        rf"⏰ The computer plays for <@{alice.id}> <t:\d+:R>\.", start.text
    ), start.text
    assert "Reminder <t:" not in start.text

    def posted(text: str) -> object:
        return lambda: next((m for m in t.public_since(0) if text in m.text), None)

    # 1. alice lets her first decision's time run out: announced, then played for her
    turn = await fake.wait_until(posted(f"<@{alice.id}>'s time"), WAIT, "the first timeout")
    assert f"ran out in game #{game_id}: the computer plays it for them." in turn.text
    assert "twice" not in turn.text and alice.id not in turn.pinged_ids
    assert "**🔴 Computer (for Alice) (red)** played `" in turn.text and turn.attachments

    # 2. bob plays his two setup decisions himself
    for _ in range(2):
        game = position(runner, game_id)
        assert game.to_move == "blue"
        _, reply = await t.slash("bob", "play", actions=game.legal()[0])
        assert reply.text == "Your turn is over.", reply.text

    # 3. alice's next turn runs out too: twice in a row, the computer takes her seat
    second = await fake.wait_until(posted("twice in a row"), WAIT, "the second timeout")
    assert f"<@{alice.id}> can come back with `/torres join`" in second.text
    assert "**🔴 Computer (for Alice) (red)** played `" in second.text
    await fake.wait_until(lambda: position(runner, game_id).to_move == "blue", WAIT, "bob's turn")
    assert runner.db_row("SELECT is_ai FROM seats WHERE game_id = ? AND name = 'red'", game_id) == (
        1,
    )

    # 4. bob goes away: shown to the others; his clock waits (two whole clocks pass)
    ix, reply = await t.slash("bob", "away", days=1)
    assert "You're away until <t:" in reply.text and "1 running game" in reply.text
    shown = await t.public_after(ix, "the away note", lambda m: "away" in m.text)
    assert shown.text.startswith("Bob is away until <t:"), shown.text
    await asyncio.sleep(12.0)
    assert not any(f"<@{bob.id}>'s time" in m.text for m in t.public_since(0))
    assert position(runner, game_id).to_move == "blue"

    # 5. alice takes her seat back
    ix, reply = await t.slash("alice", "join")
    assert reply.text == f"You're back in your seat (red) in game #{game_id}."
    back = await t.public_after(ix, "the note that she is back")
    assert "is back in game" in back.text
    assert runner.db_row("SELECT is_ai FROM seats WHERE game_id = ? AND name = 'red'", game_id) == (
        0,
    )
    _, reply = await t.slash("bob", "away", days=0)
    assert reply.text.startswith("Welcome back")
