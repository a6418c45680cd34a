"""A game the computer played for its players is not theirs (issue 33, item 2).

With a clock, a player who stops playing has their turns played by the computer and
then their seat taken over. A seat whose decisions after the setup were mostly the
computer's is a loss for its player, as if they had resigned, and the others' results
count; only a game nobody really played counts for nobody. The final post,
``/torres history``, the record's headers, ``/torres stats``, the leaderboard and the
ratings all say so alike (docs/bot.md, "Ratings")."""

from __future__ import annotations

import random
from collections.abc import Callable

from bot.core.home import HomeService
from bot.core.service import Post, User, _random_decision
from engine import Game
from engine.ai import choose_actions
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


Choose = Callable[[Game, random.Random], list[str]]


def _best(game: Game, rng: random.Random) -> list[str]:
    """A player who plays well: the engine's heuristic player."""
    return choose_actions(game, seconds=0.05, level="heuristic", seed=rng.randrange(2**32))


async def _play(
    env: Env,
    h: HomeService,
    game_id: int,
    idle: set[int],
    seed: int,
    choose: Choose = _random_decision,
) -> list[Post]:
    """Play to the end: the *idle* players only ever let their clock run out; the
    others play the decisions *choose* picks (random ones). Returns every public post."""
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
            text = "; ".join(choose(game, rng))
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


async def _ann_won_bob_lost(env: Env, h: HomeService) -> None:
    """Results, stats and ratings count Ann's win and Bob's loss; the computer's level
    gets nothing."""
    assert await h.record_results() == 1
    (result,) = await env.store.results(GUILD)
    assert [(s.name, s.user_id, s.ai_level, s.rank) for s in result.seats] == [
        ("red", ANN.id, None, 1),
        ("blue", BOB.id, None, 2),
    ]
    players = await h._players(GUILD)
    assert set(players) == {("user", ANN.id), ("user", BOB.id)}
    ann, bob = players[("user", ANN.id)], players[("user", BOB.id)]
    assert (ann.games, ann.wins, bob.games, bob.wins) == (1, 1, 1, 0)
    assert bob.rating < ann.rating and bob.mu < 25 < ann.mu
    stats = await h.stats(guild_id=GUILD, user_id=BOB.id, name="Bob")
    assert stats.startswith("**Bob** on this server: 1 game, 0 wins (0%)"), stats
    stats = await h.stats(guild_id=GUILD, user_id=ANN.id, name="Ann")
    assert stats.startswith("**Ann** on this server: 1 game, 1 win (100%)"), stats


async def test_a_player_who_stops_playing_while_losing_takes_the_loss(env: Env):
    """Bob stops playing instead of resigning; the computer finishes for him and Ann wins.
    Ann's win counts and Bob takes the loss, as if he had resigned."""
    h = HomeService(env.store, ai_level="search", clock=env.clock)
    game_id = await _clocked_game(env, h, ANN, BOB)
    posts = await _play(env, h, game_id, idle={BOB.id}, seed=4, choose=_best)
    row = await env.store.game(game_id)
    assert row is not None and row.result is not None
    assert row.result["stand_ins"] == ["blue"]
    assert row.result["winners"] == ["red"]  # Ann won as played, too
    await _ann_won_bob_lost(env, h)
    history = (await h.history(channel_id=CHANNEL, guild_id=GUILD)).splitlines()[1]
    assert ": Ann (red) won (Ann (red) " in history
    loss = " · a loss for Bob (blue): the computer played most of their turns"
    assert history.endswith(loss), history
    final = next(p for p in posts if "**Game over!**" in p.text)
    assert (
        "🤖 The computer played most of the turns of Bob (blue): that counts as a loss for "
        "them in stats and ratings." in final.text
    )


async def test_the_computer_outscoring_for_a_player_who_left_wins_them_nothing(env: Env):
    """Bob stops playing; the computer plays his seat and outscores Ann's random moves.
    The final post shows the game as played; everything that counts has Ann first and
    Bob last."""
    h = HomeService(env.store, ai_level="search", clock=env.clock)
    game_id = await _clocked_game(env, h, ANN, BOB)
    posts = await _play(env, h, game_id, idle={BOB.id}, seed=5)
    row = await env.store.game(game_id)
    assert row is not None and row.result is not None
    scores = row.result["scores"]
    assert row.result["winners"] == ["blue"] and scores["blue"] > scores["red"], scores
    await _ann_won_bob_lost(env, h)
    history = (await h.history(channel_id=CHANNEL, guild_id=GUILD)).splitlines()[1]
    assert history.endswith(
        f": Ann (red) won (Ann (red) {scores['red']}, Computer (for Bob) (blue) "
        f"{scores['blue']}) · a loss for Bob (blue): the computer played most of their turns"
    ), history
    export = await h.export(channel_id=CHANNEL, guild_id=GUILD, game_id=game_id)
    assert "Name blue: Computer (for Bob)" in export.text
    assert "Ann (red) won" in export.text
    final = next(p for p in posts if "**Game over!**" in p.text)
    head = final.text.split("**Game over!**")[1].split("\n")[0]
    assert "Computer (for Bob) (blue)" in head, head  # the winner as played
    assert "that counts as a loss for them in stats and ratings." in final.text


async def test_only_the_seats_the_computer_played_are_losses(env: Env):
    """Ann and Cy play; Bob never does after the setup: Ann and Cy are ranked as they
    played, Bob last. Cy's one late turn played by the computer leaves his seat his."""
    h = HomeService(env.store, ai_level="search", clock=env.clock)
    game_id = await _clocked_game(env, h, ANN, BOB, CY)
    posts = await _play(env, h, game_id, idle={BOB.id}, seed=2)
    row = await env.store.game(game_id)
    assert row is not None and row.result is not None
    history = await h.history(channel_id=CHANNEL, guild_id=GUILD)
    assert "Computer (for Bob) (blue)" in history and "Ann (red)" in history
    assert history.splitlines()[1].endswith(
        " · a loss for Bob (blue): the computer played most of their turns"
    )
    assert await h.record_results() == 1
    (result,) = await env.store.results(GUILD)
    by_name = {s.name: s for s in result.seats}
    assert by_name["blue"].rank == 3 and by_name["blue"].ai_level is None
    scores = row.result["scores"]
    assert (by_name["red"].rank < by_name["green"].rank) == (scores["red"] > scores["green"])
    players = await h._players(GUILD)
    assert set(players) == {("user", ANN.id), ("user", BOB.id), ("user", CY.id)}
    for name, user in (("red", ANN), ("blue", BOB), ("green", CY)):
        p = players[("user", user.id)]
        assert (p.games, p.wins, p.points) == (
            1,
            by_name[name].rank == 1,
            by_name[name].score,
        )
    assert "1 game, 0 wins" in await h.stats(guild_id=GUILD, user_id=BOB.id, name="Bob")
    assert row.result["stand_ins"] == ["blue"]
    final = next(p for p in posts if "**Game over!**" in p.text)
    assert (
        "🤖 The computer played most of the turns of Bob (blue): that counts as a loss for "
        "them in stats and ratings." in final.text
    )


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


async def test_a_resigned_seat_the_computer_finished_is_a_loss(env: Env):
    """Bob resigns in a game with a computer player, which plays his seat to the end and
    outscores everyone: the seat is still Bob's loss, ranked last, as a stand-in's is."""
    h = HomeService(env.store, ai_level="search", clock=env.clock)
    out = await env.service.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=3, bots=1)
    game_id = out.posts[0].game_id
    await env.service.join(channel_id=CHANNEL, user=BOB)
    await env.service.start(channel_id=CHANNEL, user=ANN)
    await env.service.resign(channel_id=CHANNEL, user=BOB)
    posts = await _play(env, h, game_id, idle=set(), seed=6)
    row = await env.store.game(game_id)
    assert row is not None and row.result is not None
    scores = row.result["scores"]
    assert row.result["winners"] == ["blue"] and scores["red"] > scores["green"], scores
    assert await h.record_results() == 1
    (result,) = await env.store.results(GUILD)
    assert [(s.name, s.user_id, s.ai_level, s.rank) for s in result.seats] == [
        ("red", ANN.id, None, 1),
        ("blue", BOB.id, None, 3),
        ("green", None, "search", 2),
    ]
    assert "1 game, 0 wins" in await h.stats(guild_id=GUILD, user_id=BOB.id, name="Bob")
    history = (await h.history(channel_id=CHANNEL, guild_id=GUILD)).splitlines()[1]
    assert history.endswith(
        f": Ann (red) won (Ann (red) {scores['red']}, Computer (green) {scores['green']}, "
        f"Bob (blue) {scores['blue']}) · a loss for Bob (blue): they resigned"
    ), history
    final = next(p for p in posts if "**Game over!**" in p.text)
    head = next(x for x in final.text.splitlines() if "**Game over!**" in x)
    assert head.startswith("**Game over!** Computer (for Bob) (blue) wins."), head  # as played
    assert f"<@{BOB.id}>" not in head
