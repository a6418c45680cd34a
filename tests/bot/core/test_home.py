"""bot.core.home without Discord: a player's games, history, past boards, export, results,
stats and ratings, over games played through the real service."""

from __future__ import annotations

import random

import pytest
from openskill.models import PlackettLuce

from bot.core.errors import NoGame, NotAllowed
from bot.core.home import HomeService
from bot.core.service import User, _random_decision
from bot.db.rows import GameRow, SeatRow
from engine import Game
from engine.record import parse_record, replay
from tests.bot.conftest import ANN, BOB, CHANNEL, CY, EVE, GUILD, Env

USERS = {u.id: u for u in (ANN, BOB, CY)}
OTHER_GUILD = 2


def home(env: Env) -> HomeService:
    return HomeService(env.store, ai_level="search", clock=env.clock)


async def start(
    env: Env, *users: User, channel: int = CHANNEL, guild: int = GUILD, bots: int = 0
) -> int:
    out = await env.service.new(
        guild_id=guild, channel_id=channel, user=users[0], players=len(users) + bots, bots=bots
    )
    game_id = out.posts[0].game_id
    for user in users[1:]:
        await env.service.join(channel_id=channel, user=user)
    await env.service.start(channel_id=channel, user=users[0])
    return game_id


async def to_move(env: Env, game_id: int) -> tuple[GameRow, Game, SeatRow] | None:
    """The game's row, its position and the seat to move; None once it no longer runs."""
    row = await env.store.game(game_id)
    assert row is not None and row.position is not None
    if row.status != "running":
        return None
    game = Game.from_position(row.position)
    seat = next(s for s in await env.store.seats(game_id) if s.name == game.to_move)
    return row, game, seat


async def play_out(env: Env, game_id: int, seed: int, *, until: int | None = None) -> None:
    """Random decisions (humans and computers alike) until the end, or *until* decisions."""
    rng = random.Random(seed)
    done = 0
    while until is None or done < until:
        now = await to_move(env, game_id)
        if now is None:
            return
        row, game, seat = now
        if seat.is_ai:
            await env.service.ai_step(game_id)
        else:
            text = "; ".join(_random_decision(game, rng))
            await env.service.play(channel_id=row.channel_id, user=USERS[seat.user_id], text=text)
        done += 1


async def test_my_games_lists_my_turn_first_and_other_servers_by_link_only(env: Env):
    """Unfinished games only; where it is my turn first; other servers without their names."""
    h = home(env)
    first = await start(env, BOB, ANN)  # bob (red) to move
    env.clock.now += 100
    second = await start(env, ANN, BOB, channel=CHANNEL + 1)  # ann (red) to move
    opened = (
        (await env.service.new(guild_id=GUILD, channel_id=CHANNEL + 2, user=ANN, players=3))
        .posts[0]
        .game_id
    )
    elsewhere = await start(env, CY, ANN, channel=5000, guild=OTHER_GUILD)
    ended = await start(env, ANN, BOB, channel=CHANNEL + 3)
    await env.service.cancel(channel_id=CHANNEL + 3, user=ANN, can_manage_channel=False)
    text = await h.my_games(user_id=ANN.id, guild_id=GUILD)
    lines = text.splitlines()
    assert lines[0] == "**Your Torres games** (4 unfinished, your turn in 1)"
    assert lines[1].startswith(
        f"• #{second} (🔴 red) in <#{CHANNEL + 1}>: **your turn**, since <t:"
    )
    assert lines[2].startswith(f"• #{first} (🔵 blue) in <#{CHANNEL}>: Bob's turn, since <t:")
    assert lines[3].startswith(f"• #{opened} in <#{CHANNEL + 2}>: waiting to start (1/3 players")
    assert lines[4] == "On other servers:"
    assert lines[5].startswith(f"• #{elsewhere} (🔵 blue) in <#5000>: Cy's turn")
    assert f"#{ended} " not in text
    since = int(env.clock.now - 100)
    assert f"since <t:{since}:R>" in lines[2]
    # after bob moves, the first game's turn (ann's) began at that moment
    env.clock.now += 50
    await env.service.play(channel_id=CHANNEL, user=BOB, text="place c3")
    text = await h.my_games(user_id=ANN.id, guild_id=GUILD)
    assert (
        f"#{first} (🔵 blue) in <#{CHANNEL}>: **your turn**, since <t:{int(env.clock.now)}:R>"
        in text
    )
    assert "your turn in 2" in text
    assert "no unfinished Torres games" in await h.my_games(user_id=EVE.id, guild_id=GUILD)
    # a clocked game shows when its turn's time runs out
    await env.store.set_turn_clock(first, 3600.0, 900.0)
    text = await h.my_games(user_id=ANN.id, guild_id=GUILD)
    assert f"since <t:{int(env.clock.now)}:R>, ⏰ <t:{int(env.clock.now) + 3600}:R>" in text


async def test_history_board_and_export_of_a_finished_game(env: Env):
    """A finished game stays: listed with its result, any position shown, its record replays."""
    h = home(env)
    game_id = await start(env, ANN, BOB)
    await play_out(env, game_id, seed=3)
    row = await env.store.game(game_id)
    assert row is not None and row.status == "over" and row.position is not None
    history = await h.history(channel_id=CHANNEL, guild_id=GUILD)
    assert "in this channel" in history and f"• #{game_id} in <#{CHANNEL}>" in history
    scores = row.result["scores"]
    for name, who in (("red", "Ann"), ("blue", "Bob")):
        assert f"{who} ({name}) {scores[name]}" in history
    assert "won" in history or "shared victory" in history
    # elsewhere on the server: the server's games
    assert f"#{game_id}" in await h.history(channel_id=777, guild_id=GUILD)
    assert "No Torres game has ended" in await h.history(channel_id=777, guild_id=OTHER_GUILD)

    out = await h.export(channel_id=CHANNEL, guild_id=GUILD, game_id=None)
    assert out.filename == f"torres-game-{game_id}.txt"
    record = parse_record(out.text)
    assert replay(record).position() == row.position
    assert record.seed == row.seed and record.players == ("red", "blue")
    headers = record.headers
    assert headers["Game"] == str(game_id) and headers["Server"] == str(GUILD)
    assert headers["Channel"] == str(CHANNEL)
    assert headers["Name red"] == "Ann" and headers["Name blue"] == "Bob"
    assert headers["Started"].endswith("UTC") and headers["Finished"].endswith("UTC")
    assert str(scores["red"]) in headers["Result"]
    total = len(record.decisions)
    assert f"({total} decisions)" in out.reply

    final = await h.past_board(
        channel_id=CHANNEL, guild_id=GUILD, user_id=ANN.id, game_id=None, decision=None
    )
    assert final.position == row.position and final.viewer is None
    assert f"decision {total} of {total}" in final.text
    at0 = await h.past_board(
        channel_id=777, guild_id=GUILD, user_id=EVE.id, game_id=game_id, decision=0
    )
    assert at0.position == row.initial and "at the start" in at0.text
    at3 = await h.past_board(
        channel_id=777, guild_id=GUILD, user_id=EVE.id, game_id=game_id, decision=3
    )
    assert at3.position == replay(record, 3).position()
    assert at3.highlight  # the third decision put the king somewhere
    with pytest.raises(NotAllowed, match=f"decisions 0 \\(the start\\) to {total}"):
        await h.past_board(
            channel_id=CHANNEL, guild_id=GUILD, user_id=ANN.id, game_id=game_id, decision=total + 1
        )
    with pytest.raises(NoGame, match=f"no game #{game_id} on this server"):
        await h.past_board(
            channel_id=1, guild_id=OTHER_GUILD, user_id=ANN.id, game_id=game_id, decision=None
        )
    with pytest.raises(NoGame, match="no game #99 on this server"):
        await h.export(channel_id=CHANNEL, guild_id=GUILD, game_id=99)


async def test_a_running_game_is_not_exported_but_its_past_is_shown(env: Env):
    """The seed gives the deck away: no export before the end; earlier positions are fine."""
    h = home(env)
    game_id = await start(env, ANN, BOB)
    await play_out(env, game_id, seed=5, until=5)
    with pytest.raises(NotAllowed, match="still going"):
        await h.export(channel_id=CHANNEL, guild_id=GUILD, game_id=None)
    with pytest.raises(NotAllowed, match="still going"):
        await h.export(channel_id=CHANNEL, guild_id=GUILD, game_id=game_id)
    with pytest.raises(NoGame, match="No Torres game has ended"):
        await h.export(channel_id=4321, guild_id=GUILD, game_id=None)
    view = await h.past_board(
        channel_id=CHANNEL, guild_id=GUILD, user_id=ANN.id, game_id=None, decision=2
    )
    assert view.viewer == "red" and "decision 2 of 5" in view.text
    row = await env.store.game(game_id)
    assert row is not None
    now = await h.past_board(
        channel_id=CHANNEL, guild_id=GUILD, user_id=BOB.id, game_id=None, decision=None
    )
    assert now.position == row.position and now.viewer == "blue"


async def test_results_stats_and_ratings_follow_the_stored_games(env: Env):
    """Each finished game gives one result; stats and ratings are recomputed from them."""
    h = home(env)
    ids = []
    for seed in range(4):
        game_id = await start(env, ANN, BOB, bots=1, channel=CHANNEL + seed)
        await play_out(env, game_id, seed=seed)
        ids.append(game_id)
        assert await h.record_results() == 1
    # a cancelled game gives none
    await start(env, ANN, CY, channel=CHANNEL + 10)
    await env.service.cancel(channel_id=CHANNEL + 10, user=ANN, can_manage_channel=False)
    assert await h.record_results() == 0
    results = await env.store.results(GUILD)
    assert [r.game_id for r in results] == ids
    # ranks follow the scores; the computer seat is kept with its level
    model = PlackettLuce()
    ratings: dict[object, object] = {}
    wins = {ANN.id: 0, BOB.id: 0}
    points = {ANN.id: 0, BOB.id: 0}
    for r in results:
        row = await env.store.game(r.game_id)
        assert row is not None
        by_name = {s.name: s for s in r.seats}
        assert {n: s.score for n, s in by_name.items()} == row.result["scores"]
        for s in r.seats:
            better = [o for o in r.seats if o.score > s.score]
            assert s.rank <= len(better) + 1
            if s.user_id is None:
                assert s.ai_level == "search" and s.display == "Computer"
            else:
                wins[s.user_id] += s.rank == 1
                points[s.user_id] += s.score
        keys = [s.user_id or "ai" for s in r.seats]
        teams = [[ratings.get(k) or model.rating()] for k in keys]
        for k, (new,) in zip(keys, model.rate(teams, ranks=[s.rank for s in r.seats]), strict=True):
            ratings[k] = new
    text = await h.stats(guild_id=GUILD, user_id=ANN.id, name="Ann")
    ann = ratings[ANN.id]
    assert f"**Ann** on this server: 4 games, {wins[ANN.id]} win" in text
    assert f"average score {points[ANN.id] / 4:.1f}" in text
    assert f"Rating {ann.mu - 3 * ann.sigma:.1f} (skill {ann.mu:.1f} ± {ann.sigma:.1f})" in text
    assert "no finished Torres games" in await h.stats(guild_id=GUILD, user_id=CY.id, name="Cy")
    assert "no finished" in await h.stats(guild_id=OTHER_GUILD, user_id=ANN.id, name="Ann")
    board = (await h.leaderboard(guild_id=GUILD)).splitlines()
    assert len(board) == 5 and board[0].startswith("**Torres leaderboard**")
    entries = board[1:4]
    assert sorted(e.split(" — ")[0].split(". ", 1)[1] for e in entries) == sorted(
        [f"<@{ANN.id}>", f"<@{BOB.id}>", "Computer (search)"]
    )
    shown = [float(e.split("rating ")[1].split(",")[0]) for e in entries]
    assert shown == sorted(shown, reverse=True)
    # a fresh service (another process, a restart) computes the same from the database
    assert await home(env).leaderboard(guild_id=GUILD) == "\n".join(board)
    assert "Nobody has 3 finished games" in await h.leaderboard(guild_id=OTHER_GUILD)


async def test_the_rating_cache_catches_up_with_new_results(env: Env):
    """Stats asked between games are brought up to date, equal to a full recomputation."""
    h = home(env)
    for seed in range(3):
        game_id = await start(env, ANN, BOB, channel=CHANNEL + seed)
        await play_out(env, game_id, seed=seed + 10)
        await h.record_results()
        assert await h.stats(guild_id=GUILD, user_id=BOB.id, name="Bob") == await home(env).stats(
            guild_id=GUILD, user_id=BOB.id, name="Bob"
        )
    assert "3 games" in await h.stats(guild_id=GUILD, user_id=BOB.id, name="Bob")
