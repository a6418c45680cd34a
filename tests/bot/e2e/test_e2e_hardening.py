"""End-to-end, issue 9: hidden cards, hostile names, odd numbers, forged buttons, racing commands."""

from __future__ import annotations

import asyncio
import copy
import json
import re

from engine import Game
from tests.bot.e2e._harness import SEED, TIMEOUT, BotRunner, Table, open_game, play_setup

SEATS = {"red": "alice", "blue": "bob"}


async def test_undrawn_cards_never_shape_an_answer(runner: BotRunner) -> None:
    """Personal decks: autocomplete on `draw; ` offers no `keep`, and `draw; keep X top` for a
    card not drawn draws first, then names only the cards really drawn."""
    t = Table(runner)
    await t.slash("alice", "new", players=2, variant="personal")
    await t.slash("bob", "join")
    await t.slash("alice", "start")
    game = Game.new(players=2, names=list(SEATS), variant="personal", seed=SEED)
    await play_setup(t, game, SEATS)
    colour = game.to_move
    who = SEATS[colour]
    hidden = game.position()["decks"][colour][:3]
    for typed in ("draw; ", "draw; k", "draw; keep "):
        choices = await t.fake.autocomplete(
            who, t.channel, "torres", "play", focused="actions", actions=typed
        )
        values = [c["value"] for c in choices]
        names = " ".join(c["name"] for c in choices)
        assert not any("keep" in v for v in values), (typed, choices)
        assert not any(card in names for card in hidden), (typed, choices)
        assert values == ["draw"], (typed, choices)
    missing = next(c for c in ("jump", "vault", "ap6", "ap7", "extra") if c not in hidden)
    _, reply = await t.slash(who, "play", actions=f"draw; keep {missing} top")
    game.play("draw")
    assert reply.text.startswith("Done: `draw` (a draw can't be taken back)"), reply.text
    assert f"`keep {missing} top` was not played" in reply.text, reply.text
    assert all(c in reply.text for c in hidden), reply.text
    row = runner.db_row("SELECT action FROM actions ORDER BY seq DESC LIMIT 1")
    assert row == ("draw",), row
    # The turn goes on with the cards really drawn.
    keep = f"keep {hidden[1]} bottom"
    ix, reply = await t.slash(who, "play", actions=f"{keep}; end")
    assert reply.text == "Your turn is over.", reply.text
    post = await t.public_after(ix, "the turn message", lambda m: bool(m.attachments))
    assert "played `draw; keep ? bottom; end`" in post.text, post.text
    assert hidden[1] not in post.text


HOSTILE = "[pwn](https://evil.example) <@{alice}> @everyone **# x**"


async def test_hostile_display_names_are_shown_as_typed(runner: BotRunner) -> None:
    """A name with a masked link, a mention, @everyone and markdown pings nobody and formats
    nothing in the join, turn, board and resignation messages."""
    t = Table(runner)
    alice = t.user("alice")
    bob = t.user("bob")
    bob.global_name = HOSTILE.format(alice=alice.id)
    await open_game(t, players=3, bots=1)
    game = Game.new(players=3, names=["red", "blue", "green"], variant="common", seed=SEED)
    action = game.legal()[0]
    ix, _ = await t.slash("alice", "play", actions=action)
    game.play(action)
    await t.public_after(ix, "red's placement", lambda m: bool(m.attachments))
    _, board = await t.slash("alice", "board")
    ix, reply = await t.confirmed("bob", "resign")
    await t.public_after(ix, "the resignation", lambda m: "resigned" in m.text)
    await t.public_after(ix, "blue's computer move", lambda m: "(blue)** played" in m.text)
    shown = [m for m in t.fake.channel_messages(t.channel) if "evil" in m.text]
    shown.append(board)
    assert len(shown) >= 4, [m.text for m in t.fake.channel_messages(t.channel)]
    for m in shown:
        assert "](" not in m.text and "https://" not in m.text, m.text
        assert f"<@{alice.id}> @" not in m.text and "@everyone" not in m.text, m.text
        assert "**#" not in m.text, m.text
        assert m.pinged_ids in ([], [alice.id]) and not m.text.startswith("#"), m
    join = next(m for m in shown if "joined" in m.text)
    assert join.pinged_ids == [], join.text  # the name's <@alice> pings nobody


async def test_odd_numbers_and_forged_buttons_get_clear_answers(runner: BotRunner) -> None:
    t = Table(runner)
    await open_game(t)
    game = Game.new(players=2, names=list(SEATS), variant="common", seed=SEED)
    post = await play_setup(t, game, SEATS)
    who = SEATS[game.to_move]
    for text in ("score ²", "stack ³", "score " + "9" * 4400, "play lift c3 " + "7" * 4400):
        choices = await t.fake.autocomplete(
            who, t.channel, "torres", "play", focused="actions", actions=text[:100] + "; "
        )
        assert len(choices) <= 25
        _, reply = await t.slash(who, "play", actions=text)
        assert "Nothing was changed" in reply.text and "Sorry" not in reply.text, reply.text
    # A modified client claims the turn message carries buttons with forged ids
    # (discord.py only dispatches a custom_id that is on the message).
    real = copy.deepcopy(post.components)
    for custom_id in (f"torres:{2**63}:1:end", f"torres:1:{2**64}:undo", f"torres:{10**40}:1:hand"):
        post.components = json.loads(
            re.sub(r"torres:\d+:\d+:(end|undo|hand)", custom_id, json.dumps(real))
        )
        _, reply = await t.click(who, post, custom_id.rsplit(":", 1)[1])
        assert "doesn't belong to any game" in reply.text, reply.text
    post.components = real


async def test_an_end_sent_before_the_turn_began_does_not_end_the_next_turn(
    runner: BotRunner,
) -> None:
    """The mover's `end` and the other player's `end`, sent back to back: one turn ends."""
    t = Table(runner)
    await open_game(t)
    game = Game.new(players=2, names=list(SEATS), variant="common", seed=SEED)
    await play_setup(t, game, SEATS)
    mover, other = SEATS[game.to_move], next(u for u in SEATS.values() if u != SEATS[game.to_move])
    turns = runner.db_row("SELECT turn_no FROM games")[0]
    ix_a = await t.fake.slash(mover, t.channel, "torres", "play", actions="end")
    ix_b = await t.fake.slash(other, t.channel, "torres", "play", actions="end")
    ra, rb = await asyncio.gather(ix_a.reply(TIMEOUT), ix_b.reply(TIMEOUT))
    assert ra.text == "Your turn is over.", ra.text
    assert rb.text != "Your turn is over.", rb.text
    assert re.search(r"before your turn began|not your turn", rb.text), rb.text
    assert runner.db_row("SELECT turn_no FROM games")[0] == turns + 1
