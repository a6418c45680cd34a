"""The home's changes of a game take the game's lock, like every other change (issue 34):
a seat given back, a clock set, a seat the computer keeps after two timeouts."""

from __future__ import annotations

import asyncio

from bot.core.home import HomeService
from tests.bot.conftest import ANN, BOB, CHANNEL, GUILD, Env


def home(env: Env) -> HomeService:
    return HomeService(env.store, ai_level="search", clock=env.clock)


async def test_a_seat_given_back_waits_for_the_games_lock(env: Env) -> None:
    out = await env.service.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=2)
    game_id = out.posts[0].game_id
    await env.service.join(channel_id=CHANNEL, user=BOB)
    await env.service.start(channel_id=CHANNEL, user=ANN)
    await env.store.set_seat_ai(game_id, "red", True)  # the computer took the seat (timeouts)
    async with env.service._lock(game_id):  # a move of the game is being written
        back = asyncio.create_task(home(env).rejoin(channel_id=CHANNEL, user=ANN))
        await asyncio.sleep(0.05)
        assert not back.done()
        seats = await env.store.seats(game_id)
        assert next(s for s in seats if s.name == "red").is_ai  # nothing changed meanwhile
    assert await back is not None
    seats = await env.store.seats(game_id)
    assert not next(s for s in seats if s.name == "red").is_ai


async def test_a_clock_is_set_under_the_games_lock(env: Env) -> None:
    out = await env.service.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=2)
    game_id = out.posts[0].game_id
    async with env.service._lock(game_id):
        line = asyncio.create_task(home(env).set_clock(game_id, 24))
        await asyncio.sleep(0.05)
        assert not line.done()
        assert await env.store.turn_clock(game_id) is None
    assert (await line).startswith("Time per turn: 1 day.")
    assert await env.store.turn_clock(game_id) == 24 * 3600


async def test_an_away_period_begun_while_the_computer_thinks_stops_the_clock(env: Env) -> None:
    """The clock ran out, but before the computer's play is written (under the game's lock)
    its player went away: nothing is played, the turn stays theirs."""
    h = home(env)
    out = await env.service.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=2)
    game_id = out.posts[0].game_id
    await h.set_clock(game_id, 1)
    await env.service.join(channel_id=CHANNEL, user=BOB)
    await env.service.start(channel_id=CHANNEL, user=ANN)
    before = await env.store.game(game_id)
    assert before is not None
    env.clock.now += 3601  # Ann's hour ran out
    async with env.service._lock(game_id):
        due = asyncio.create_task(h.due_clocks(env.service))
        await asyncio.sleep(0.3)  # it found the clock run out; the computer thought; it waits
        assert not due.done()
        await h.away(user=ANN, days=3)
    assert await due == []
    after = await env.store.game(game_id)
    assert after is not None and after.last_seq == before.last_seq  # nothing played
