"""/torres settings dm: through the real bot: a turn notice by direct message (with a link
and the picture), a DM Discord refuses (50007) falling back to the channel ping, and the
refusal told once, privately, at the player's next command."""

from __future__ import annotations

import asyncio

from engine import Game
from tests.bot.e2e._harness import SEED, TIMEOUT, BotRunner, Table, check_png, open_game


async def test_turn_notices_by_dm_and_a_refused_dm(runner: BotRunner):
    t = Table(runner)
    fake = runner.fake
    alice, bob = fake.users["alice"], fake.users["bob"]
    fake.dms_closed.add("bob")

    _, reply = await t.slash("alice", "settings")
    assert "`dm`: off" in reply.text
    _, reply = await t.slash("alice", "settings", dm=True)
    assert reply.text.startswith("**Your Torres settings** (saved)") and "`dm`: on" in reply.text
    _, reply = await t.slash("bob", "settings", dm=True)
    assert "`dm`: on" in reply.text

    game_id = await open_game(t)
    start = await fake.wait_until(
        lambda: next((m for m in t.public_since(0) if "starts**" in m.text), None),
        TIMEOUT,
        "the start message",
    )
    # alice (red) is first: a DM instead of a ping; her mention stays in the text
    assert f"<@{alice.id}>" in start.text and alice.id not in start.pinged_ids
    dm = await fake.wait_until(lambda: (fake.dm_messages("alice") or [None])[0], TIMEOUT, "a DM")
    assert f"Your turn in Torres game #{game_id} in <#{t.channel.id}>:" in dm.text
    assert f"/channels/{fake.guild_id}/{t.channel.id}/{start.id}" in dm.text
    check_png(dm.attachments[0].data)

    # alice places her knight: now bob's turn, whose DMs are closed
    game = Game.new(players=2, names=["red", "blue"], seed=SEED)
    action = game.legal()[0]
    ix, reply = await t.slash("alice", "play", actions=action)
    assert reply.text == "Your turn is over."
    ping = await t.public_after(ix, "the fallback ping", lambda m: "could not send you" in m.text)
    assert ping.text.startswith(f"<@{bob.id}>, it's your turn in game #{game_id}")
    assert ping.pinged_ids == [bob.id]
    assert fake.dm_refusals == ["bob"] and fake.dm_messages("bob") == []

    # bob hears why, once, privately, after his next command
    ix, reply = await t.slash("bob", "games")
    assert "**your turn**" in reply.text
    turn_message = [m for m in t.public_since(0) if m.attachments][-1]
    link = f"https://discord.com/channels/{fake.guild_id}/{t.channel.id}/{turn_message.id}"
    assert f"[latest turn]({link})" in reply.text
    notice = await ix.wait(lambda m: "could not send you a direct message" in m.text)
    assert notice.ephemeral and notice.viewer is bob
    ix, _ = await t.slash("bob", "games")
    await ix.reply(TIMEOUT)
    await asyncio.sleep(0.5)  # time for a (wrong) second notice to arrive
    assert not any("could not send you" in m.text for m in ix.messages)
    assert runner.db_row("SELECT dm, dm_refused FROM user_settings WHERE user_id = ?", bob.id) == (
        1,
        0,
    )
