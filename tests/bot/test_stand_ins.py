"""A game the computer played for its players is not theirs (issue 33, item 2).

With a clock, a player who stops playing has their turns played by the computer and
then their seat taken over. A seat whose decisions after the setup were mostly the
computer's counts for nobody: the final post, ``/torres history``, the record's
headers, ``/torres stats``, the leaderboard and the ratings all say so alike
(docs/bot.md, "Ratings")."""

from __future__ import annotations

import random

from bot.home import HomeService
from bot.service import Post, User, _random_decision
from engine import Game
from tests.bot.conftest import ANN, BOB, CHANNEL, CY, GUILD, Env

USERS = {u.id: u for u in (ANN, BOB, CY)}


async def _clocked_game(env: Env, h: HomeService, *users: User) -> int:
    out = await env.service.new(
        guild_id=GUILD, channel_id=CHANNEL, user=users[0], players=len(users)
    )
    game_id = out.posts[0].game_id
    await h.set_clock(game_id, 1)
    for user in users[1:]:
        await env.service.join(channel_id=CHANNEL, user=user)
    await env.service.start(channel_id=CHANNEL, user=users[0])
    return game_id


async def _play(env: Env, h: HomeService, game_id: int, idle: set[int], seed: int) -> list[Post]:
    """Play to the end: the *idle* players only ever let their clock run out; the
    others play random decisions. Returns every public post."""
    rng = random.Random(seed)
    posts: list[Post] = []
    while True:
        row = await env.store.game(game_id)
        assert row is not None and row.position is not None
        if row.status != "running":
            return posts
        seats = await env.store.seats(game_id)
        game = Game.from_position(row.position)
        seat = next(s for s in seats if s.name == game.to_move)
        if seat.is_ai:
            out = await env.service.ai_step(game_id)
            posts += out.posts if out else []
        elif seat.user_id in idle and game.stage in ("play", "draw-keep", "king"):
            env.clock.now += 3601  # a one-hour clock, and nobody answers
            for out in await h.due_clocks(env.service):
                posts += out.posts
        else:
            text = "; ".join(_random_decision(game, rng))
            out = await env.service.play(channel_id=CHANNEL, user=USERS[seat.user_id], text=text)
            posts += out.posts


async def test_a_game_nobody_played_after_the_setup_counts_for_nobody(env: Env):
    h = HomeService(env.store, ai_level="search", clock=env.clock)
    game_id = await _clocked_game(env, h, ANN, BOB)
    posts = await _play(env, h, game_id, idle={ANN.id, BOB.id}, seed=1)
    row = await env.store.game(game_id)
    assert row is not None and row.status == "over" and row.result is not None
    winners = row.result["winners"]
    names = {"red": "Ann", "blue": "Bob"}
    # The final post names the computer as the winner and says the game counts for nobody.
    final = next(p for p in posts if "**Game over!**" in p.text)
    head = final.text.split("**Game over!**")[1].split("\n")[0]
    assert winners and all(f"Computer (for {names[w]}) ({w})" in head for w in winners), head
    assert "<@" not in head
    assert (
        "🤖 The computer played most of the turns of Ann (red), Bob (blue): "
        "this game counts in nobody's stats or rating." in final.text
    )
    # History agrees ...
    history = await h.history(channel_id=CHANNEL, guild_id=GUILD)
    assert all(f"Computer (for {names[w]}) ({w})" in history for w in winners)
    assert history.splitlines()[1].endswith(" · not rated")
    assert "Ann (red)" not in history and "Bob (blue)" not in history
    # ... and so do the record, stats, leaderboard and ratings.
    export = await h.export(channel_id=CHANNEL, guild_id=GUILD, game_id=game_id)
    assert "Name red: Computer (for Ann)" in export.text
    for user in (ANN, BOB):
        stats = await h.stats(guild_id=GUILD, user_id=user.id, name=user.display)
        assert stats == f"{user.display} has no finished Torres games on this server yet."
    assert "Nobody has 3 finished games" in await h.leaderboard(guild_id=GUILD)
    assert await h._players(GUILD) == {}
    seats = (await env.store.results(GUILD))[0].seats
    assert [(s.user_id, s.ai_level) for s in seats] == [(ANN.id, "search"), (BOB.id, "search")]
    assert row.result["stand_ins"] == ["red", "blue"]


async def test_only_the_seats_the_computer_played_are_left_out(env: Env):
    """Ann and Cy play; Bob never does after the setup: Ann and Cy are rated against each
    other, Bob's seat counts for nobody. Cy's one late turn played by the computer
    leaves his seat his."""
    h = HomeService(env.store, ai_level="search", clock=env.clock)
    game_id = await _clocked_game(env, h, ANN, BOB, CY)
    posts = await _play(env, h, game_id, idle={BOB.id}, seed=2)
    row = await env.store.game(game_id)
    assert row is not None and row.result is not None
    final = next(p for p in posts if "**Game over!**" in p.text)
    assert (
        "🤖 The computer played most of the turns of Bob (blue): those seats count in "
        "nobody's stats or rating." in final.text
    )
    history = await h.history(channel_id=CHANNEL, guild_id=GUILD)
    assert "Computer (for Bob) (blue)" in history and "Ann (red)" in history
    assert history.splitlines()[1].endswith(
        " · seats the computer played for their players don't count"
    )
    assert await h.record_results() == 1
    (result,) = await env.store.results(GUILD)
    by_name = {s.name: s for s in result.seats}
    players = await h._players(GUILD)
    assert set(players) == {("user", ANN.id), ("user", CY.id)}
    for name, user in (("red", ANN), ("green", CY)):
        p = players[("user", user.id)]
        assert (p.games, p.wins, p.points) == (
            1,
            by_name[name].rank == 1,
            by_name[name].score,
        )
    assert "has no finished Torres games" in await h.stats(
        guild_id=GUILD, user_id=BOB.id, name="Bob"
    )
    assert row.result["stand_ins"] == ["blue"]


async def test_a_player_who_played_most_of_their_turns_keeps_the_result(env: Env):
    """Timeouts now and then (never twice in a row) leave the seat its player's."""
    h = HomeService(env.store, ai_level="search", clock=env.clock)
    game_id = await _clocked_game(env, h, ANN, BOB)
    rng = random.Random(3)
    timed_out = 0
    while True:
        row = await env.store.game(game_id)
        assert row is not None and row.position is not None
        if row.status != "running":
            break
        game = Game.from_position(row.position)
        seat = next(s for s in await env.store.seats(game_id) if s.name == game.to_move)
        if seat.user_id == BOB.id and game.stage == "play" and row.turn_no % 5 == 0:
            env.clock.now += 3601
            assert len(await h.due_clocks(env.service)) == 1
            timed_out += 1
            continue
        text = "; ".join(_random_decision(game, rng))
        await env.service.play(channel_id=CHANNEL, user=USERS[seat.user_id], text=text)
    assert timed_out > 0 and row.result is not None and not row.result.get("stand_ins")
    history = await h.history(channel_id=CHANNEL, guild_id=GUILD)
    assert "Computer" not in history and "not rated" not in history
    players = await h._players(GUILD)
    assert {p.games for p in players.values()} == {1} and len(players) == 2
