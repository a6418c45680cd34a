"""The game service without Discord: the whole flow, refusals, privacy, concurrency, crashes."""

from __future__ import annotations

import asyncio
import random
import re
import sqlite3

import pytest

from bot.core.errors import IllegalMove, NoGame, NotAllowed, NotSeated, NotYourTurn, StaleButton
from bot.core.service import GameService, Outcome, Post, User, _random_decision
from bot.db.rows import GameRow, SeatRow
from engine import Game, IllegalAction
from tests.bot.conftest import ANN, BOB, CHANNEL, CY, EVE, GUILD, Env

USERS = {u.id: u for u in (ANN, BOB, CY)}


async def open_game(env: Env, *users: User, bots: int = 0, variant: str = "common") -> Outcome:
    await env.service.new(
        guild_id=GUILD,
        channel_id=CHANNEL,
        user=users[0],
        players=len(users) + bots,
        variant=variant,
        bots=bots,
    )
    for user in users[1:]:
        await env.service.join(channel_id=CHANNEL, user=user)
    return await env.service.start(channel_id=CHANNEL, user=users[0])


async def state(env: Env) -> tuple[GameRow, Game, list[SeatRow]]:
    row = await env.store.game(1)
    assert row is not None and row.position is not None
    return row, Game.from_position(row.position), await env.store.seats(row.id)


def mover(game: Game, seats: list[SeatRow]) -> User:
    seat = next(s for s in seats if s.name == game.to_move)
    assert seat.user_id is not None
    return USERS[seat.user_id]


async def past_setup(env: Env) -> None:
    """Two players: red on c3, blue on f6, the king on d1; red to move in phase 1."""
    await open_game(env, ANN, BOB)
    await env.service.play(channel_id=CHANNEL, user=ANN, text="place c3")
    await env.service.play(channel_id=CHANNEL, user=BOB, text="place f6")
    await env.service.play(channel_id=CHANNEL, user=BOB, text="king d1")


async def test_whole_game_from_new_to_final_scores(env: Env):
    """Every decision posts one public message; phase scoring is summarised; the end is announced."""
    start = await open_game(env, ANN, BOB)
    assert len(start.posts) == 1 and start.posts[0].mentions == (ANN.id,)
    assert start.posts[0].position is not None and start.posts[0].turn == 1
    rng = random.Random(11)
    posts = []
    turn = 1
    while True:
        row, game, seats = await state(env)
        if row.status != "running":
            break
        user = mover(game, seats)
        out = await env.service.play(
            channel_id=CHANNEL, user=user, text="; ".join(_random_decision(game, rng))
        )
        assert len(out.posts) == 1, "one public message per finished decision"
        post = out.posts[0]
        posts.append(post)
        assert post.position is not None and post.text.count("played `") == 1
        assert all(f"<@{m}>" in post.text for m in post.mentions), "a ping needs its mention"
        after_row, after, _ = await state(env)
        if after_row.status == "running":
            turn += 1
            assert post.turn == after_row.turn_no == turn
            assert post.mentions == (mover(after, seats).id,)
            assert f"<@{post.mentions[0]}>" in post.text
    scoring = [p for p in posts if "Phase " in p.text and " scoring**" in p.text]
    assert [p.text.split("**Phase ")[1][0] for p in scoring] == ["1", "2", "3"]
    for p in scoring:
        assert re.search(r"🔴 red \(Ann\): \+\d+ \(castles \d+.*\), now \d+ points?", p.text)
        assert re.search(r"🔵 blue \(Bob\): \+\d+ \(castles \d+.*\), now \d+ points?", p.text)
    final = posts[-1]
    assert "**Game over!**" in final.text and final.buttons == () and final.turn is None
    assert set(final.mentions) == {ANN.id, BOB.id}
    row, game, _ = await state(env)
    assert row.status == "over" and game.stage == "over"
    assert row.result == {"reason": "finished", "scores": game.scores, "winners": game.winners}
    # 2 knights placed, the king, 24 turns, 2 king moves after scoring
    assert len(posts) == 2 + 1 + 24 + 2
    with pytest.raises(NoGame):
        await env.service.play(channel_id=CHANNEL, user=ANN, text="end")
    replayed = await env.service.replay(row.id)
    assert replayed.position() == row.position
    # The animated replay: the starting position, then one frame a finished decision.
    assert final.replay and not any(p.replay for p in posts[:-1])
    assert Post.from_payload(final.to_payload()).replay
    frames = await env.service.replay_frames(row.id)
    assert len(frames) == len(posts) + 1
    assert frames[0] == row.initial and frames[-1] == row.position
    assert [f["stage"] for f in frames[:3]] == ["place", "place", "king"]


async def test_turn_message_lists_the_turn_and_highlights_its_squares(env: Env):
    """The public message gives the turn in notation and the squares it changed."""
    await past_setup(env)
    _, game, _ = await state(env)
    move = next(a for a in game.legal() if a.startswith("move c3 "))
    target = move.split()[2]
    out = await env.service.play(channel_id=CHANNEL, user=ANN, text=f"Move  C3 {target}")
    assert out.posts == [] and out.reply == (
        f"Done: `move c3 {target}` — Knight c3 → {target} (1 AP). 4 AP left."
    )
    out = await env.service.play(channel_id=CHANNEL, user=ANN, text="end")
    (post,) = out.posts
    assert f"played `move c3 {target}; end`" in post.text
    assert post.highlight == {"c3", target}
    assert post.buttons == ("play", "end", "undo", "hand") and post.mentions == (BOB.id,)
    assert post.highlight_note == "changed by Ann's turn"
    # The picture names the seats as the players know each other.
    assert post.labels == {"red": "Ann", "blue": "Bob"}
    assert Post.from_payload(post.to_payload()).labels == post.labels
    board = await env.service.board(channel_id=CHANNEL, user=BOB)
    assert board.labels == {"red": "Ann", "blue": "Bob"}
    assert "Reminder <t:" in post.text and ":R>" in post.text


async def test_out_of_turn_and_not_seated_are_refused(env: Env):
    """Only the player to move changes the game; others get a clear message."""
    await past_setup(env)
    before, _, _ = await state(env)
    with pytest.raises(NotYourTurn, match=r"It's not your turn: <@101> \(red\) is to move"):
        await env.service.play(channel_id=CHANNEL, user=BOB, text="end")
    with pytest.raises(NotSeated, match="not playing in this game"):
        await env.service.play(channel_id=CHANNEL, user=EVE, text="end")
    with pytest.raises(NotYourTurn):
        await env.service.undo(channel_id=CHANNEL, user=BOB)
    after, _, _ = await state(env)
    assert after == before


async def test_illegal_action_changes_nothing(env: Env):
    """The engine's own message comes back, and neither snapshot nor log moves."""
    await past_setup(env)
    before, game, _ = await state(env)
    log_before = await env.store.actions(1)
    text = "move c3 d3; build h8"
    with pytest.raises(IllegalAction) as engine_error:
        game.copy().play(text)
    with pytest.raises(IllegalMove) as refused:
        await env.service.play(channel_id=CHANNEL, user=ANN, text=text)
    assert refused.value.message == (
        f"Action 2 of 2, `build h8`: {engine_error.value} Nothing was changed."
    )
    with pytest.raises(IllegalMove, match="Nothing was changed"):
        await env.service.play(channel_id=CHANNEL, user=ANN, text="fly c3")
    with pytest.raises(IllegalMove, match="at least one action"):
        await env.service.play(channel_id=CHANNEL, user=ANN, text=" ; ")
    after, _, _ = await state(env)
    assert after == before and await env.store.actions(1) == log_before


async def test_actions_past_the_end_of_a_turn_are_refused(env: Env):
    """`end; ...` would act for the next player: refused as a whole."""
    await past_setup(env)
    before, _, _ = await state(env)
    with pytest.raises(IllegalMove, match="`end` already finishes your turn"):
        await env.service.play(channel_id=CHANNEL, user=ANN, text="end; move f6 f7")
    with pytest.raises(IllegalMove, match="finishes your turn"):
        await env.service.play(channel_id=CHANNEL, user=ANN, text="score; end; end")
    assert (await state(env))[0] == before


async def test_setup_decision_cannot_run_into_the_next(env: Env):
    """In setup each action is a whole decision."""
    await open_game(env, ANN, BOB)
    with pytest.raises(IllegalMove, match="`place c3` already finishes"):
        await env.service.play(channel_id=CHANNEL, user=ANN, text="place c3; place f6")


async def test_undo_takes_back_one_action_and_is_logged(env: Env):
    """Undo restores the previous position; the turn summary leaves the undone action out."""
    await past_setup(env)
    start, _, _ = await state(env)
    await env.service.play(channel_id=CHANNEL, user=ANN, text="score; score")
    out = await env.service.undo(channel_id=CHANNEL, user=ANN)
    assert out.reply == "Took back `score` — Score 1 step (1 AP). 4 AP left."
    out = await env.service.undo(channel_id=CHANNEL, user=ANN)
    assert (await state(env))[0].position == start.position
    with pytest.raises(NotAllowed, match="Nothing to take back"):
        await env.service.undo(channel_id=CHANNEL, user=ANN)
    await env.service.play(channel_id=CHANNEL, user=ANN, text="score")
    out = await env.service.play(channel_id=CHANNEL, user=ANN, text="end")
    assert "played `score; end`" in out.posts[0].text
    kinds = [(a.kind, a.action) for a in await env.store.actions(1)][-5:]
    assert kinds == [
        ("play", "score; score"),
        ("undo", "undo"),
        ("undo", "undo"),
        ("play", "score"),
        ("play", "end"),
    ]
    row, _, _ = await state(env)
    assert (await env.service.replay(1)).position() == row.position


async def test_hands_are_private(env: Env):
    """A hand is shown only to its owner; non-players get none; the board hides it."""
    await past_setup(env)
    await env.service.play(channel_id=CHANNEL, user=ANN, text="draw")
    _, game, _ = await state(env)
    (card,) = game.hand("red")
    mine = await env.service.hand(channel_id=CHANNEL, user=ANN)
    assert mine.startswith("Your hand (🔴 red):") and f"`play {card}`" in mine
    assert "Drawn this turn" in mine
    theirs = await env.service.hand(channel_id=CHANNEL, user=BOB)
    assert theirs.startswith("Your hand (🔵 blue):") and "no cards" in theirs
    assert f"`play {card}`" not in theirs
    with pytest.raises(NotSeated):
        await env.service.hand(channel_id=CHANNEL, user=EVE)
    board = await env.service.board(channel_id=CHANNEL, user=EVE)
    assert board.viewer is None
    board = await env.service.board(channel_id=CHANNEL, user=BOB)
    assert board.viewer == "blue"


async def test_one_game_per_channel(env: Env):
    """A second game in a channel is refused with a hint; another channel is fine."""
    await env.service.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN)
    with pytest.raises(NotAllowed, match="thread"):
        await env.service.new(guild_id=GUILD, channel_id=CHANNEL, user=BOB)
    await env.service.new(guild_id=GUILD, channel_id=CHANNEL + 1, user=BOB)
    await env.service.cancel(channel_id=CHANNEL, user=ANN, can_manage_channel=False)
    await env.service.new(guild_id=GUILD, channel_id=CHANNEL, user=BOB)


async def test_lobby_rules(env: Env):
    """Joining, leaving and starting follow the lobby's rules."""
    s = env.service
    with pytest.raises(NotAllowed, match="2 to 4 players"):
        await s.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=5)
    with pytest.raises(NotAllowed, match="0 to 1 computer"):
        await s.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=2, bots=2)
    with pytest.raises(NotAllowed, match="Unknown variant"):
        await s.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN, variant="solo")
    with pytest.raises(NoGame, match="/torres new"):
        await s.join(channel_id=CHANNEL, user=BOB)
    await s.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=3)
    with pytest.raises(NotAllowed, match="at least 2 players"):
        await s.start(channel_id=CHANNEL, user=ANN)
    with pytest.raises(NotAllowed, match="already in this game"):
        await s.join(channel_id=CHANNEL, user=ANN)
    await s.join(channel_id=CHANNEL, user=BOB)
    with pytest.raises(NotAllowed, match="Only the game's author"):
        await s.start(channel_id=CHANNEL, user=BOB)
    with pytest.raises(NotAllowed, match="cancel"):
        await s.leave(channel_id=CHANNEL, user=ANN)
    await s.leave(channel_id=CHANNEL, user=BOB)
    await s.join(channel_id=CHANNEL, user=CY)
    await s.join(channel_id=CHANNEL, user=BOB)
    with pytest.raises(NotAllowed, match="full"):
        await s.join(channel_id=CHANNEL, user=EVE)
    with pytest.raises(NotAllowed, match="hasn't started"):
        await s.play(channel_id=CHANNEL, user=ANN, text="end")
    out = await s.start(channel_id=CHANNEL, user=ANN)
    seats = await env.store.seats(1)
    assert [(x.user_id, x.name) for x in seats] == [
        (ANN.id, "red"),
        (CY.id, "blue"),
        (BOB.id, "green"),
    ]
    assert "🔴 red: <@101>" in out.posts[0].text
    with pytest.raises(NotAllowed, match="already started"):
        await s.join(channel_id=CHANNEL, user=EVE)


async def test_two_commands_at_once_are_serialised(env: Env):
    """Two `end`s sent together: exactly one ends the turn, the other is out of turn."""
    await past_setup(env)
    before, _, _ = await state(env)
    results = await asyncio.gather(
        env.service.play(channel_id=CHANNEL, user=ANN, text="end"),
        env.service.play(channel_id=CHANNEL, user=ANN, text="end"),
        return_exceptions=True,
    )
    assert sorted(type(r).__name__ for r in results) == ["NotYourTurn", "Outcome"]
    after, _, _ = await state(env)
    assert after.turn_no == before.turn_no + 1 and after.last_seq == before.last_seq + 1
    seqs = [a.seq for a in await env.store.actions(1)]
    assert seqs == list(range(1, len(seqs) + 1))


async def test_many_concurrent_commands_keep_log_and_snapshot_consistent(env: Env):
    """A burst of mixed commands from both players: the log replays to the snapshot."""
    await past_setup(env)
    _, game, _ = await state(env)
    texts = ["score", "score", "end", "undo", "score"]

    async def send(user: User, text: str) -> object:
        if text == "undo":
            return await env.service.undo(channel_id=CHANNEL, user=user)
        return await env.service.play(channel_id=CHANNEL, user=user, text=text)

    await asyncio.gather(*(send(u, t) for t in texts for u in (ANN, BOB)), return_exceptions=True)
    row, _, _ = await state(env)
    assert (await env.service.replay(1)).position() == row.position


async def test_acknowledged_actions_survive_a_restart(env: Env):
    """Once play() returns, the action is on disk; a new process continues the game."""
    await past_setup(env)
    await env.service.play(channel_id=CHANNEL, user=ANN, text="score")
    # Another connection (as another process would) already sees the row.
    with sqlite3.connect(env.path) as conn:
        rows = conn.execute("SELECT action FROM actions WHERE game_id = 1 ORDER BY seq").fetchall()
    assert rows[-1] == ("score",)
    second = await env.reopen()
    try:
        out = await second.service.play(channel_id=CHANNEL, user=ANN, text="end")
        assert "played `score; end`" in out.posts[0].text
        row = await second.store.game(1)
        assert row is not None
        assert (await second.service.replay(1)).position() == row.position
    finally:
        await second.store.close()


async def test_buttons_from_an_earlier_turn_are_refused(env: Env):
    """End turn / Undo (which opens the panel) / My hand check the turn number in the button."""
    await past_setup(env)
    row, _, _ = await state(env)
    old = row.turn_no
    await env.service.end_turn(game_id=1, turn=old, user=ANN)
    for press in (
        env.service.end_turn(game_id=1, turn=old, user=BOB),
        env.service.panel_open(game_id=1, turn=old, user=BOB, undo=True),
        env.service.hand(game_id=1, turn=old, user=BOB),
    ):
        with pytest.raises(StaleButton, match="earlier turn"):
            await press
    assert "Your hand" in await env.service.hand(game_id=1, turn=old + 1, user=BOB)
    with pytest.raises(NotYourTurn):
        await env.service.end_turn(game_id=1, turn=old + 1, user=ANN)


async def test_computer_players_take_their_turns(env: Env):
    """With a computer seat, ai_step plays its decisions and posts them like anyone's."""
    out = await open_game(env, ANN, bots=1)
    assert out.ai_game is None  # Ann (red) places first
    out = await env.service.play(channel_id=CHANNEL, user=ANN, text="place c3")
    assert out.ai_game == 1 and "is thinking" in out.posts[0].text
    steps = 0
    while (step := await env.service.ai_step(1)) is not None:
        steps += 1
        for post in step.posts:
            assert post.text.startswith("**🔵 Computer (blue)** played `")
            assert post.labels == {"red": "Ann", "blue": "Computer (blue)"}
            assert post.highlight_note == "changed by Computer (blue)'s turn"
    _, game, _ = await state(env)
    assert game.to_move == "red" and steps >= 2  # the computer's knight, then the king
    rng = random.Random(3)
    while True:
        row, game, seats = await state(env)
        if row.status != "running":
            break
        if game.to_move == "red":
            text = "; ".join(_random_decision(game, rng))
            await env.service.play(channel_id=CHANNEL, user=ANN, text=text)
        else:
            assert await env.service.ai_step(1) is not None
    assert (await env.service.replay(1)).position() == row.position


async def test_resign_hands_the_seat_to_the_computer_or_ends_the_game(env: Env):
    """With computer players the seat is taken over; without, the game ends."""
    await open_game(env, ANN, BOB, bots=1)
    out = await env.service.resign(channel_id=CHANNEL, user=ANN)
    assert "computer plays their seat" in out.posts[0].text and out.ai_game == 1
    seats = await env.store.seats(1)
    assert seats[0].is_ai and seats[0].resigned
    with pytest.raises(NotSeated):
        await env.service.play(channel_id=CHANNEL, user=ANN, text="place c3")
    with pytest.raises(NotSeated, match="resigned"):
        await env.service.hand(channel_id=CHANNEL, user=ANN)
    assert (await env.service.board(channel_id=CHANNEL, user=ANN)).viewer is None
    assert (await env.service.ai_step(1)) is not None
    # Bob is the last human: resigning now ends the game.
    out = await env.service.resign(channel_id=CHANNEL, user=BOB)
    assert "game #1 ends here" in out.posts[0].text
    row, _, _ = await state(env)
    assert row.status == "over" and row.result and row.result["reason"] == "resigned"


async def test_cancel_rights(env: Env):
    """The author may cancel; a channel manager only once the game is idle long enough."""
    await past_setup(env)
    with pytest.raises(NotAllowed, match="Only the game's author"):
        await env.service.cancel(channel_id=CHANNEL, user=BOB, can_manage_channel=False)
    with pytest.raises(NotAllowed, match="idle for 1 day"):
        await env.service.cancel(channel_id=CHANNEL, user=EVE, can_manage_channel=True)
    env.clock.now += 86400
    out = await env.service.cancel(channel_id=CHANNEL, user=EVE, can_manage_channel=True)
    assert "cancelled by Eve" in out.posts[0].text
    row, _, _ = await state(env)
    assert row.status == "cancelled"
    # the note is queued with the game's end, so a crash cannot lose it
    queued = [(i, p["text"]) for i, _, p in await env.store.unsent(row.id)]
    assert queued[-1] == (out.posts[0].outbox_id, out.posts[0].text)
    with pytest.raises(NoGame):
        await env.service.cancel(channel_id=CHANNEL, user=ANN, can_manage_channel=False)


async def test_reminders_are_bounded_and_reset_by_play(env: Env):
    """Idle player: one reminder per interval, at most the limit; an action resets the count."""
    await past_setup(env)
    assert await env.service.due_reminders() == []
    env.clock.now += 3600
    (post,) = await env.service.due_reminders()
    assert post.mentions == (ANN.id,) and post.text.startswith("<@101>, it's your move")
    [(last, _, payload)] = (await env.store.unsent(1))[-1:]
    assert post.outbox_id == last and payload["text"] == post.text  # counted and queued together
    assert f"Next reminder <t:{int(env.clock.now + 3600)}:R>" in post.text
    assert await env.service.due_reminders() == []
    env.clock.now += 3600
    (post,) = await env.service.due_reminders()
    assert "last reminder" in post.text
    env.clock.now += 10 * 3600
    assert await env.service.due_reminders() == []
    await env.service.play(channel_id=CHANNEL, user=ANN, text="end")
    env.clock.now += 3600
    (post,) = await env.service.due_reminders()
    assert post.mentions == (BOB.id,)


async def test_autocomplete_offers_legal_continuations(env: Env):
    """Suggestions: only for the mover, at most 25, each one legal, continuing the typed prefix."""
    await past_setup(env)
    (only,) = await env.service.suggest(channel_id=CHANNEL, user_id=BOB.id, typed="")
    assert only[0].startswith("⚠ It's not your turn") and "(red) is to move" in only[0]
    (only,) = await env.service.suggest(channel_id=CHANNEL, user_id=EVE.id, typed="")
    assert only[0] == "⚠ You're not playing in this game."
    pairs = await env.service.suggest(channel_id=CHANNEL, user_id=ANN.id, typed="")
    _, game, _ = await state(env)
    values = [v for _, v in pairs]
    assert 0 < len(values) <= 25 and "end" in values
    assert set(values) <= set(game.legal())
    # Words, then the notation; the quick computer player's choice first.
    assert pairs[0][0].startswith("💡 ") and pairs[0][0].endswith(f" · {values[0]}")
    assert all(label.endswith(f" · {v}") for label, v in pairs)
    kinds = {v.split()[0] for v in values}
    assert {"move", "knight", "draw", "score", "end"} <= kinds
    pairs = await env.service.suggest(channel_id=CHANNEL, user_id=ANN.id, typed="Score ;  mo")
    assert pairs and all(v.startswith("score; move ") for _, v in pairs)
    assert all(label.endswith(f" · {v}") and "Knight " in label for label, v in pairs)
    for _, value in pairs:
        game.copy().play(value)  # every suggestion is legal as a whole
    pairs = await env.service.suggest(channel_id=CHANNEL, user_id=ANN.id, typed="fly a1; ")
    assert len(pairs) == 1 and pairs[0][0].startswith("⚠")


async def test_service_is_built_without_discord(env: Env):
    """The service needs no Discord objects: a plain user and channel id."""
    assert isinstance(env.service, GameService)
    out = await env.service.new(guild_id=None, channel_id=5, user=User(1, "x"))
    assert out.reply.startswith("You opened game #")


async def test_the_engine_ai_plays_a_seat(env: Env):
    """Without an injected player the service uses engine.ai at the configured level."""
    from dataclasses import replace

    service = GameService(
        env.store, replace(env.service.config, ai_level="heuristic"), clock=env.clock
    )
    await service.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN, bots=1)
    await service.start(channel_id=CHANNEL, user=ANN)
    await service.play(channel_id=CHANNEL, user=ANN, text="place c3")
    posts = []
    while (step := await service.ai_step(1)) is not None:
        posts += step.posts
    assert [p.text.split("`")[1].split()[0] for p in posts] == ["place", "king"]
    await service.play(channel_id=CHANNEL, user=ANN, text="end")
    step = await service.ai_step(1)
    assert step is not None and step.posts and step.posts[0].text.count("; end`") == 1


async def test_private_replies_say_what_is_left(env: Env):
    """After a build the reply tells the blocks left in the turn's stack, then the AP."""
    await past_setup(env)
    _, game, _ = await state(env)
    build = next(a for a in game.legal() if a.startswith("build "))
    out = await env.service.play(channel_id=CHANNEL, user=ANN, text=build)
    assert out.reply.startswith(f"Done: `{build}` — Build on {build.split()[1]} (castle of ")
    assert out.reply.endswith("). This turn's stack holds 2 blocks. 4 AP left.")


async def test_undo_works_after_a_restart(env: Env):
    """The undo history of the turn in progress is rebuilt from the log in a new process."""
    await past_setup(env)
    start, _, _ = await state(env)
    await env.service.play(channel_id=CHANNEL, user=ANN, text="score")
    await env.service.play(channel_id=CHANNEL, user=ANN, text="score")
    await env.service.undo(channel_id=CHANNEL, user=ANN)
    second = await env.reopen()
    try:
        out = await second.service.undo(channel_id=CHANNEL, user=ANN)
        assert out.reply.startswith("Took back `") and out.reply.endswith(". 5 AP left.")
        row = await second.store.game(1)
        assert row is not None and row.position == start.position
        with pytest.raises(NotAllowed, match="Nothing to take back"):
            await second.service.undo(channel_id=CHANNEL, user=ANN)
    finally:
        await second.store.close()


async def test_the_kept_card_stays_secret(env: Env):
    """Personal decks: the turn message shows `keep ? top`, never the card kept."""
    await open_game(env, ANN, BOB, variant="personal")
    await env.service.play(channel_id=CHANNEL, user=ANN, text="place c3")
    await env.service.play(channel_id=CHANNEL, user=BOB, text="place f6")
    await env.service.play(channel_id=CHANNEL, user=BOB, text="king d1")
    await env.service.play(channel_id=CHANNEL, user=ANN, text="draw")
    _, game, _ = await state(env)
    keep = next(a for a in game.legal() if a.startswith("keep ") and a.endswith(" top"))
    card = keep.split()[1]
    out = await env.service.play(channel_id=CHANNEL, user=ANN, text=f"{keep}; end")
    text = out.posts[0].text
    assert "played `draw; keep ? top; end`" in text
    assert card not in text
    import engine

    assert engine.CARDS[card] not in text
    assert card in await env.service.hand(channel_id=CHANNEL, user=ANN)


async def test_master_version_announces_its_master_card(env: Env):
    """The master card is public: the start message names it and the hand shows it."""
    out = await open_game(env, ANN, BOB, variant="master")
    _, game, _ = await state(env)
    card = game.position()["master_card"]
    import engine

    assert f"Master card in play: **{engine.MASTER_CARDS[card]}**" in out.posts[0].text
    assert "castle SQ" in out.posts[0].text  # master setup: players place the blocks
    assert engine.MASTER_CARDS[card] in await env.service.hand(channel_id=CHANNEL, user=BOB)


async def test_turn_messages_are_queued_until_delivered(env: Env):
    """A finished turn's message is in the outbox with the turn; none is ever dropped."""
    start = await open_game(env, ANN, BOB)
    out = await env.service.play(channel_id=CHANNEL, user=ANN, text="place c3")
    (post,) = out.posts
    assert start.posts[0].outbox_id is not None and post.outbox_id is not None
    # The start message's turn is over, but it was never posted: it stays queued, first.
    pending = await env.store.unsent(1)
    assert [i for i, _, _ in pending] == [start.posts[0].outbox_id, post.outbox_id]
    assert pending[1][2] == post.to_payload()
    for outbox_id, _, _ in pending:
        await env.store.mark_sent(outbox_id, env.clock.now)
    assert await env.store.unsent(1) == []
    # A mid-turn reply queues nothing.
    await env.service.play(channel_id=CHANNEL, user=BOB, text="place f6")
    await env.service.play(channel_id=CHANNEL, user=BOB, text="king d1")
    out = await env.service.play(channel_id=CHANNEL, user=ANN, text="score")
    assert out.posts == []


async def test_long_input_gets_a_short_answer(env: Env):
    """Whatever is typed, refusals and echoes stay well under Discord's 2000 characters."""
    await past_setup(env)
    for text in ("x" * 5000, "move c3 " + "d3 " * 900, "end;" * 400, "score; " * 700):
        with pytest.raises(IllegalMove) as refused:
            await env.service.play(channel_id=CHANNEL, user=ANN, text=text)
        assert len(refused.value.message) < 1000 and "Nothing was changed" in refused.value.message


async def test_board_highlights_this_turn_or_else_the_last(env: Env):
    """At the start of a turn the board shows the previous turn's squares."""
    await past_setup(env)
    board = await env.service.board(channel_id=CHANNEL, user=ANN)
    assert board.highlight == {"d1"}  # the king was just placed
    _, game, _ = await state(env)
    move = next(a for a in game.legal() if a.startswith("move c3 "))
    await env.service.play(channel_id=CHANNEL, user=ANN, text=move)
    board = await env.service.board(channel_id=CHANNEL, user=BOB)
    assert board.highlight == {"c3", move.split()[2]} and board.viewer == "blue"


# -- the play panel (GameService.panel_open / panel_press) ---------------------------


async def test_panel_plays_a_turn_and_then_says_it_is_over(env: Env):
    """What → where → action; End turn with AP left asks first; a stale panel is closed."""
    from bot.core.panel import DO, WHAT

    await past_setup(env)
    row, game, _ = await state(env)
    with pytest.raises(NotYourTurn):
        await env.service.panel_open(game_id=1, turn=row.turn_no, user=BOB)
    with pytest.raises(NotSeated):
        await env.service.panel_open(game_id=1, turn=row.turn_no, user=EVE)
    opened = await env.service.panel_open(game_id=1, turn=row.turn_no, user=ANN)
    assert opened.viewer == "red" and opened.position == game.position()
    assert "5 AP" in opened.model.text and opened.model.can_end and not opened.model.can_undo
    press = env.service.panel_press
    state_ = await press(game_id=1, turn=row.turn_no, user=ANN, op="what", value=WHAT + "move c3")
    targets = [o.value for s in state_.model.selects[1:] for o in s.options]
    steps = [DO + a for a in game.legal() if a.startswith("move c3 ")]
    # the knight's single steps, and the squares further on by their paths
    assert set(steps) <= set(targets)
    assert all(v.startswith(DO + "move c3 ") for v in targets)
    targets = [v for v in targets if v in steps]
    state_ = await press(game_id=1, turn=row.turn_no, user=ANN, op="do", value=targets[0])
    assert "Done: Knight c3 →" in state_.model.text and "**4 AP** left" in state_.model.text
    assert state_.model.can_undo and state_.highlight  # this turn's changes
    # An action no longer legal is refused on the panel, nothing changed.
    state_ = await press(game_id=1, turn=row.turn_no, user=ANN, op="do", value=targets[0])
    assert "⚠" in state_.model.text
    # End turn with 4 AP left asks; "back" changes nothing; "endok" ends the turn.
    state_ = await press(game_id=1, turn=row.turn_no, user=ANN, op="end")
    assert state_.model.confirm_end and "4 AP" in state_.model.text
    assert (await state(env))[0].turn_no == row.turn_no
    state_ = await press(game_id=1, turn=row.turn_no, user=ANN, op="back")
    assert not state_.model.confirm_end and state_.model.selects
    state_ = await press(game_id=1, turn=row.turn_no, user=ANN, op="endok")
    assert state_.model.closed and state_.outcome is not None and state_.outcome.posts
    assert (await state(env))[0].turn_no == row.turn_no + 1
    # Any tap on a panel of that turn now answers that the turn is over.
    stale = await press(game_id=1, turn=row.turn_no, user=ANN, op="hint")
    assert stale.model.closed and "This turn is over" in stale.model.text
    with pytest.raises(StaleButton):
        await env.service.panel_open(game_id=1, turn=row.turn_no, user=ANN)


async def test_panel_hint_and_undo(env: Env):
    """💡 shows the quick computer player's next actions in words and does nothing; its
    option plays them (not the whole turn here: the suggestion is cut); Undo takes the
    last one back by name."""
    from bot.core.panel import DO

    await past_setup(env)
    row, game, _ = await state(env)
    env.service._suggest_actions = lambda g, s: ["move c3 d3", "move d3 d4"]
    hinted = await env.service.panel_press(game_id=1, turn=row.turn_no, user=ANN, op="hint")
    assert "💡 Suggested: Knight c3 → d3 → d4 (2 AP)." in hinted.model.text
    assert (await state(env))[1].position() == game.position()
    (offer,) = [s for s in hinted.model.selects if s.placeholder.startswith("💡")]
    assert [o.value for o in offer.options] == [DO + "move c3 d3 d4"]
    assert offer.options[0].label == "Play these actions"
    played = await env.service.panel_press(
        game_id=1, turn=row.turn_no, user=ANN, op="do", value=offer.options[0].value
    )
    assert "This turn so far: `move c3 d3; move d3 d4`" in played.model.text
    undone = await env.service.panel_press(game_id=1, turn=row.turn_no, user=ANN, op="undo")
    assert undone.model.text.count("Took back `move d3 d4`") == 1
