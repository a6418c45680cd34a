"""End-to-end: restarts, simultaneous commands, a resigning player, a channel the bot can't post in."""

from __future__ import annotations

import asyncio
import json
import re

import pytest

from engine import Game
from tests.bot.e2e._harness import SEED, TIMEOUT, BotRunner, Table, check_png, open_game, play_setup

SEATS = {"red": "alice", "blue": "bob"}


def new_mirror(names: list[str] | None = None) -> Game:
    return Game.new(
        players=len(names or SEATS), names=names or list(SEATS), variant="common", seed=SEED
    )


def some_actions(game: Game, n: int) -> list[str]:
    """n non-end actions that can be played one after another (and undone), from the mirror."""
    work = game.copy()
    out = []
    for _ in range(n):
        action = next(a for a in work.legal() if a != "end" and not a.startswith(("draw", "score")))
        work.play(action)
        out.append(action)
    return out


async def test_undo_works_across_a_restart(runner: BotRunner) -> None:
    """An action acknowledged before a crash can still be taken back after the restart."""
    t = Table(runner)
    await open_game(t)
    game = new_mirror()
    await play_setup(t, game, SEATS)
    who = SEATS[game.to_move]
    [first] = some_actions(game, 1)
    _, reply = await t.slash(who, "play", actions=first)
    assert reply.text.startswith(f"Done: `{first}`"), reply.text
    game.play(first)

    await runner.restart_after_kill()

    _, reply = await t.slash(who, "undo")
    assert reply.text.startswith(f"Took back `{first}`") and "5 AP left" in reply.text, (
        f"after a restart /torres undo should take back {first!r}, the bot said: {reply.text!r}"
    )


async def test_two_plays_at_once_are_applied_one_after_the_other(runner: BotRunner) -> None:
    t = Table(runner)
    await open_game(t)
    game = new_mirror()
    await play_setup(t, game, SEATS)
    who = SEATS[game.to_move]
    a, b = some_actions(game, 2)
    # Sent back to back, before either is answered: the bot must serialise them.
    ix_a = await t.fake.slash(who, t.channel, "torres", "play", actions=a)
    ix_b = await t.fake.slash(who, t.channel, "torres", "play", actions=b)
    ra, rb = await ix_a.reply(TIMEOUT), await ix_b.reply(TIMEOUT)
    left = sorted(re.findall(r"(\d) AP left", m.text)[0] for m in (ra, rb))
    assert left == ["3", "4"], (ra.text, rb.text)
    game.play(a)
    game.play(b)
    ix, reply = await t.slash(who, "play", actions="end")
    post = await t.public_after(ix, "the turn message", lambda m: bool(m.attachments))
    played = re.search(r"played `([^`]*)`", post.text)
    assert played and sorted(played.group(1).split("; ")) == sorted([a, b, "end"]), post.text


async def test_resigning_player_is_replaced_by_the_computer(runner: BotRunner) -> None:
    """alice, bob and a computer; bob resigns on his turn: the computer plays blue at once."""
    t = Table(runner)
    game_id = await open_game(t, players=3, bots=1)
    names = ["red", "blue", "green"]
    game = new_mirror(names)
    action = game.legal()[0]
    ix, reply = await t.slash("alice", "play", actions=action)
    game.play(action)
    await t.public_after(ix, "red's placement", lambda m: bool(m.attachments))
    assert game.to_move == "blue"
    ix, reply = await t.confirmed("bob", "resign")
    assert "computer takes over" in reply.text, reply.text
    note = await t.public_after(ix, "the resignation note", lambda m: "resigned" in m.text)
    assert "computer plays their seat" in note.text, note.text
    blue = await t.public_after(ix, "blue's computer move", lambda m: "(blue)** played" in m.text)
    # Consecutive computer decisions (blue, then green) come as one post.
    assert "Computer (for Bob)" in blue.text, blue.text
    check_png(blue.attachments[0].data)
    _, reply = await t.slash("bob", "play", actions="end")
    assert "resigned" in reply.text, reply.text
    # The computer plays blue and green until red (alice) is to move again, then pings her.
    back = await t.public_after(
        ix,
        "alice's next turn",
        lambda m: t.user("alice").mention in m.text and "Next:" in m.text,
    )
    assert back.pinged_ids == [t.user("alice").id]
    row = runner.db_row(
        "SELECT is_ai, resigned FROM seats WHERE game_id = ? AND name = 'blue'", game_id
    )
    assert row is not None and row[0] == 1, row


async def test_a_channel_the_bot_cannot_post_in_is_explained_privately(runner: BotRunner) -> None:
    t = Table(runner, "general")
    t.fake.muted_channels.add(t.channel.id)
    runner.expected_log_errors.append("could not post in channel")
    ix = await t.fake.slash("alice", t.channel, "torres", "new")
    note = await ix.wait(lambda m: "could not post" in m.text, TIMEOUT)
    assert note.ephemeral and note.viewer is t.user("alice")
    assert "Send Messages" in note.text
    refused = t.fake.take_errors()
    assert [e["code"] for e in refused] == [50013], refused
    assert t.public_since(0) == []


async def test_bot_restarted_between_turns_resumes_cleanly(runner: BotRunner) -> None:
    """A graceful stop (SIGTERM) and start: commands are not re-synced, buttons keep working."""
    t = Table(runner)
    await open_game(t)
    game = new_mirror()
    turn_msg = await play_setup(t, game, SEATS)
    syncs = t.fake.sync_count
    await runner.stop()
    await asyncio.wait_for(runner.proc.proc.wait(), 10)  # type: ignore[union-attr]
    assert runner.proc.proc.returncode == 0, runner.log_text()  # type: ignore[union-attr]
    await runner.start()
    assert t.fake.sync_count == syncs, "unchanged commands must not be synced again"
    who = SEATS[game.to_move]
    ix, reply = await t.click(who, turn_msg, "end")
    assert reply.text == "Your turn is over.", reply.text
    game.play("end")
    post = await t.public_after(ix, "the turn message", lambda m: bool(m.attachments))
    assert f"Next: {t.user(SEATS[game.to_move]).mention}" in post.text


async def test_personal_deck_keep_stays_private(runner: BotRunner) -> None:
    """Personal decks: which card a player keeps of the three drawn is hidden from the others."""
    t = Table(runner)
    _, reply = await t.slash("alice", "new", players=2, variant="personal")
    await t.slash("bob", "join")
    await t.slash("alice", "start")
    game = Game.new(players=2, names=list(SEATS), variant="personal", seed=SEED)
    await play_setup(t, game, SEATS)
    who = SEATS[game.to_move]
    colour = game.to_move
    _, reply = await t.slash(who, "play", actions="draw")
    game.play("draw")
    assert game.stage == "draw-keep"
    revealed = game.position(viewer=colour)["turn"]["revealed"]
    _, hand = await t.slash(who, "hand")
    assert all(engine_name(c) in hand.text for c in revealed), hand.text
    keep = next(a for a in game.legal() if a.startswith("keep"))
    kept = keep.split()[1]
    _, reply = await t.slash(who, "play", actions=keep)
    game.play(keep)
    ix, reply = await t.slash(who, "play", actions="end")
    game.play("end")
    post = await t.public_after(ix, "the turn message", lambda m: bool(m.attachments))
    assert "draw" in post.text
    assert kept not in post.text and engine_name(kept) not in post.text, (
        f"the public turn message reveals the kept card {kept!r}: {post.text!r}"
    )


def engine_name(card: str) -> str:
    import engine

    return engine.CARDS.get(card, card)


async def test_a_second_game_in_a_thread(runner: BotRunner) -> None:
    """One game per channel: the refusal suggests a thread, and a game there is independent."""
    main, side = Table(runner, "games"), Table(runner, "games-2")
    await open_game(main)
    _, reply = await main.slash("carol", "new")
    assert "thread" in reply.text, reply.text
    _, reply = await side.slash("carol", "new")
    assert "You opened game #" in reply.text, reply.text
    await side.slash("dana", "join")
    ix, reply = await side.slash("carol", "start")
    assert "started" in reply.text, reply.text
    start = await side.public_after(ix, "the thread's start message", lambda m: bool(m.attachments))
    assert start.channel_id == side.channel.id and side.user("carol").mention in start.text

    red = Game.new(players=2, names=list(SEATS), variant="common", seed=SEED).legal()[0]
    ix_main = await main.fake.slash("alice", main.channel, "torres", "play", actions=red)
    ix_side = await side.fake.slash("carol", side.channel, "torres", "play", actions=red)
    for ix, table, nxt in ((ix_main, main, "bob"), (ix_side, side, "dana")):
        await ix.reply(TIMEOUT)
        post = await table.public_after(ix, "the turn message", lambda m: bool(m.attachments))
        assert post.channel_id == table.channel.id
        assert post.pinged_ids == [table.user(nxt).id], post.text
    _, reply = await main.slash("dana", "play", actions="end")
    assert "not playing" in reply.text.lower(), reply.text


async def test_gateway_reconnects_mid_game(runner: BotRunner) -> None:
    """Discord asks for a reconnect (op 7): once resumed, once with a refused RESUME; play goes on."""
    t = Table(runner)
    fake = t.fake
    await open_game(t)
    game = new_mirror()
    turn_msg = await play_setup(t, game, SEATS)
    resumes, identifies = fake.resume_count, fake.identify_count
    await fake.reconnect_gateway()
    await fake.wait_until(lambda: fake.resume_count > resumes and fake.connected, 30, "a RESUME")
    [action] = some_actions(game, 1)
    _, reply = await t.slash(SEATS[game.to_move], "play", actions=action)
    assert reply.text.startswith(f"Done: `{action}`"), reply.text
    game.play(action)
    try:
        await fake.reconnect_gateway(resume=False)
        await fake.wait_until(
            lambda: fake.identify_count > identifies and fake.connected, 30, "a new IDENTIFY"
        )
    finally:
        fake.allow_resume = True
    ix, reply = await t.click(SEATS[game.to_move], turn_msg, "end")
    assert reply.text == "Your turn is over.", reply.text
    post = await t.public_after(ix, "the turn message", lambda m: bool(m.attachments))
    assert f"played `{action}; end`" in post.text, post.text


async def test_turn_committed_just_before_a_crash_is_still_announced(runner: BotRunner) -> None:
    """The bot commits a turn, then dies before Discord accepts the turn message.

    The turn is in the database, so after the restart the channel must still get
    the turn message: without it the next player is never told it is their turn
    (no ping, no buttons) until a reminder, by default a day later.
    """
    t = Table(runner)
    game_id = await open_game(t)
    game = new_mirror()
    await play_setup(t, game, SEATS)
    who = SEATS[game.to_move]
    [action] = some_actions(game, 1)
    t.fake.hold_channel_posts()
    ix = await t.fake.slash(who, t.channel, "torres", "play", actions=f"{action}; end")
    await t.fake.wait_until(
        lambda: t.fake.held_posts >= 1, TIMEOUT, "the bot to post the turn message"
    )
    await runner.kill()
    runner.abandoned.add(ix.id)
    t.fake.release_channel_posts(drop=True)
    await t.fake.wait_until(lambda: t.fake.errors, TIMEOUT, "the held post to be dropped")
    t.fake.take_errors()
    game.play(action)
    game.play("end")
    [position] = runner.db_row("SELECT position FROM games WHERE id = ?", game_id)
    assert json.loads(position) == game.position(), "the turn was not committed before the post"

    await runner.start()
    post = await t.fake.wait_for_message(
        lambda m: bool(m.attachments),
        channel=t.channel,
        public=True,
        after=ix,
        timeout=TIMEOUT,
        what="the turn message of the decision committed before the crash",
    )
    nxt = t.user(SEATS[game.to_move])
    assert f"Next: {nxt.mention}" in post.text and post.pinged_ids == [nxt.id], post.text


async def test_oversized_and_odd_input_gets_a_short_private_answer(runner: BotRunner) -> None:
    """Whatever a player types, the answer is a private message Discord accepts (<= 2000 chars)."""
    t = Table(runner)
    await open_game(t)
    odd = [
        "x" * 3000,
        "move c3 " + "d3 " * 700,
        ";;;",
        "move c3 d3 🎉",
        "build " + " ".join(["a1"] * 400),
        "`end`",
        "end\n" * 300,
    ]
    failures = []
    for text in odd:
        ix = await t.fake.slash("alice", t.channel, "torres", "play", actions=text)

        def answered(ix=ix):  # a reply, or Discord refusing the bot's answer to it
            done = [m for m in ix.messages if not m.loading]
            refused = [e for e in t.fake.errors if ix.token in e["path"]]
            return (done, refused) if done or refused else None

        done, refused = await t.fake.wait_until(answered, TIMEOUT, f"an answer to {ix.describe()}")
        if refused:
            failures.append(f"{text[:30]!r}: the bot's answer was refused: {refused[0]['message']}")
            continue
        reply = done[0]
        wanted = ("Nothing was changed", "at least one action")
        if not reply.ephemeral or not any(w in reply.text for w in wanted):
            failures.append(f"{text[:30]!r}: unexpected answer {reply.text[:200]!r}")
    if failures:  # leave the fixture's own checks to this assertion
        runner.abandoned |= set(t.fake.interactions)
        runner.expected_log_errors.append("could not tell user")
        t.fake.take_errors()
    assert failures == [], "\n".join(failures)
    assert t.public_since(0)[-1].attachments, "no turn message may follow a refused command"


async def test_autocomplete_answers_anything_typed(runner: BotRunner) -> None:
    """Suggestions continue what was typed, stay legal, and fit Discord's limits for any input."""
    t = Table(runner)
    await open_game(t)
    game = new_mirror()
    await play_setup(t, game, SEATS)
    who = SEATS[game.to_move]
    legal = game.legal()
    first = next(a for a in legal if a != "end")
    typed_inputs = [
        "",
        "b",
        "build",
        f"{first}; ",
        f"{first};",
        "end; ",
        "zzz; m",
        "x" * 500 + "; b",
        "🎉",
        "; ; ;",
    ]
    for typed in typed_inputs:
        choices = await t.fake.autocomplete(
            who, t.channel, "torres", "play", focused="actions", actions=typed
        )
        assert len(choices) <= 25, typed
        for c in choices:
            assert 1 <= len(c["name"]) <= 100 and len(c["value"]) <= 100, (typed, c)
    plain = await t.fake.autocomplete(
        who, t.channel, "torres", "play", focused="actions", actions="b"
    )
    assert plain and all(c["value"] in legal and c["value"].startswith("b") for c in plain), plain
    chained = await t.fake.autocomplete(
        who, t.channel, "torres", "play", focused="actions", actions=f"{first}; "
    )
    after = game.copy()
    after.play(first)
    assert chained and all(
        c["value"].startswith(f"{first}; ") and c["value"].split("; ", 1)[1] in after.legal()
        for c in chained
    ), chained


@pytest.mark.parametrize("announced", [True, False])
async def test_a_game_in_a_thread_opened_after_start(runner: BotRunner, announced: bool) -> None:
    """Threads opened while the bot runs; unannounced ones are known only from the interaction."""
    thread = await runner.fake.create_thread("later", "games", announce=announced)
    t = Table(runner, thread.name)
    await open_game(t)
    start = await t.fake.wait_for_message(
        lambda m: bool(m.attachments), channel=thread, public=True, timeout=TIMEOUT
    )
    assert start.channel_id == thread.id and t.user("alice").mention in start.text


@pytest.mark.parametrize(
    "runner",
    [
        {
            "TORRES_REMINDER_SECONDS": "1",
            "TORRES_REMINDER_CHECK_SECONDS": "0.2",
            "TORRES_REMINDER_COUNT": "9",
        }
    ],
    indirect=True,
)
async def test_turn_message_accepted_just_before_a_crash_is_not_posted_twice(
    runner: BotRunner,
) -> None:
    """Discord accepted the turn message but the bot died before hearing so.

    After the restart the bot may try again, but the channel must end up with
    the turn message once (Discord's ``nonce`` + ``enforce_nonce`` make a
    repeated post return the first message instead of creating a second).
    Reminders every second mark the bot's background pass, which re-sends
    undelivered posts first: once a reminder follows the restart, any repeat
    has been sent.
    """
    t = Table(runner)
    await open_game(t)
    game = new_mirror()
    await play_setup(t, game, SEATS)
    who = SEATS[game.to_move]
    [action] = some_actions(game, 1)
    t.fake.hold_channel_posts()
    ix = await t.fake.slash(who, t.channel, "torres", "play", actions=f"{action}; end")
    await t.fake.wait_until(
        lambda: t.fake.held_posts >= 1, TIMEOUT, "the bot to post the turn message"
    )
    await runner.kill()
    runner.abandoned.add(ix.id)
    t.fake.release_channel_posts(drop=False)  # Discord creates it; the bot never sees the answer
    first = await t.public_after(ix, "the turn message", lambda m: bool(m.attachments))
    game.play(action)
    game.play("end")

    restart_seq = t.fake.last_seq
    await runner.start()
    nxt = t.user(SEATS[game.to_move])
    await t.fake.wait_for_message(
        lambda m: "it's your move" in m.text and nxt.id in m.pinged_ids,
        channel=t.channel,
        public=True,
        after=restart_seq,
        timeout=TIMEOUT,
        what="a reminder after the restart",
    )
    posts = [m for m in t.public_since(ix.sent_seq) if m.attachments]
    assert posts == [first], f"the turn message was posted {len(posts)} times: {posts}"


async def test_a_refused_token_is_a_clear_one_line_error(tmp_path) -> None:
    """Discord answers 401 to the login: the bot says so on stderr and exits with status 1."""
    from tests.fakediscord import BotProcess, FakeDiscord

    fake = await FakeDiscord(token="the-real-token").start()
    try:
        env = {**fake.env(), "DISCORD_TOKEN": "a-wrong-token", "TORRES_DB": str(tmp_path / "t.db")}
        bot = await BotProcess(["-m", "bot"], env=env, log_path=tmp_path / "bot.log").start()
        assert bot.proc is not None
        rc = await asyncio.wait_for(bot.proc.wait(), 40)
        await bot.stop()
        log = bot.log_text()
        assert rc == 1, log
        assert "token" in log.lower() and "Traceback" not in log, log
        assert fake.identify_count == 0
    finally:
        await fake.stop()
