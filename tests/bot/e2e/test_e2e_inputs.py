"""Numbers Discord would not offer, sent anyway (issue 33, item 9), and names in home posts (item 7).

A modified client (or a forged request) can send any number in an integer option:
Discord's client keeps to the synced bounds, the fake checks them too, so these
tests build the interaction themselves. discord.py reads JSON with orjson, which
gives numbers beyond 64 bits as floats. Each must get a clear private refusal and
change nothing, with no error in the bot's log (the fixture checks it).
"""

from __future__ import annotations

from typing import Any

from tests.bot.e2e._harness import TIMEOUT, BotRunner, Table, open_game
from tests.fakediscord import FakeInteraction, FakeMessage


async def forged(t: Table, who: str, sub: str, **options: Any) -> FakeMessage:
    """``/torres sub`` with *options* as given, unchecked against the synced bounds."""
    cmd, gid = t.fake._find_command("torres")
    schema = next(o for o in cmd["options"] if o["name"] == sub)
    types = {o["name"]: o["type"] for o in schema.get("options") or []}
    leaf = [{"name": k, "type": types[k], "value": v} for k, v in options.items()]
    data: dict[str, Any] = {
        "id": cmd["id"],
        "name": "torres",
        "type": 1,
        "options": [{"name": sub, "type": 1, "options": leaf}],
    }
    if gid is not None:
        data["guild_id"] = str(gid)
    ix: FakeInteraction = await t.fake._send_interaction(2, t.user(who), t.channel, data)
    reply = await ix.reply(TIMEOUT)
    assert reply.ephemeral, reply
    return reply


async def test_huge_and_negative_numbers_get_a_clear_refusal(runner: BotRunner) -> None:
    t = Table(runner)
    game_id = await open_game(t)
    for number, shown in ((2**63, "9223372036854775808"), (2**64, "18446744073709551616")):
        for sub in ("board", "export"):
            reply = await forged(t, "alice", sub, game=number)
            assert reply.text == (
                f"There is no game #{shown} on this server (`/torres history` lists them)."
            ), reply.text
    reply = await forged(t, "alice", "board", game=game_id, decision=2**64)
    assert "there is no decision 18446744073709551616." in reply.text, reply.text
    reply = await forged(t, "alice", "board", game=game_id, decision=1.5)
    assert reply.text == "1.5 is not a whole number; nothing was changed.", reply.text
    seq = t.fake.last_seq
    for days in (-1, 15, 2**64, 2.0**70):
        reply = await forged(t, "bob", "away", days=days)
        assert reply.text == (
            "An away period lasts 1 to 14 days (`days:0` ends one now); nothing was changed."
        ), reply.text
    assert runner.db_row(
        "SELECT away_until FROM user_settings WHERE user_id = ?", t.user("bob").id
    ) in (
        None,
        (None,),
    )
    reply = await forged(t, "carol", "new", clock=-5)
    assert reply.text.startswith("Choose the time per turn from the list"), reply.text
    reply = await forged(t, "carol", "new", players=2.5)
    assert reply.text == "2.5 is not a whole number; nothing was changed.", reply.text
    assert t.public_since(seq) == []
    assert runner.db_row("SELECT COUNT(*) FROM games")[0] == 1


async def test_away_posts_show_the_name_as_typed(runner: BotRunner) -> None:
    t = Table(runner)
    await open_game(t)
    alice = t.user("alice")
    t.user("bob").global_name = f"[pwn](https://evil.example) <@{alice.id}> @everyone **# x**"
    for days, words in ((2, "is away until"), (0, "is back:")):
        ix, _ = await t.slash("bob", "away", days=days)
        post = await t.public_after(ix, "the away note", lambda m, w=words: w in m.text)
        assert "](" not in post.text and "https://" not in post.text, post.text
        assert f"<@{alice.id}>" not in post.text and "@everyone" not in post.text
        assert "**#" not in post.text and post.pinged_ids == [], post
