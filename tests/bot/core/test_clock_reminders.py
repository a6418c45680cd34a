"""Reminders in a game with a clock say when the computer plays the turn (issue 35).

Without a clock the last reminder says when the game may be cancelled (14 days idle);
with one, the computer plays the turn when its time runs out, counted from when the
turn began (bot.core.clocks.due_clocks), so that is the time every reminder names."""

from __future__ import annotations

from bot.core.home import HomeService
from tests.bot.conftest import ANN, BOB, CHANNEL, GUILD, Env


async def _clocked(env: Env, language: str = "en") -> tuple[HomeService, int, float]:
    """A two-player game with a one-hour clock, started; (home, game, when the turn began)."""
    h = HomeService(env.store, ai_level="search", clock=env.clock)
    out = await env.service.new(
        guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=2, language=language
    )
    game_id = out.posts[0].game_id
    await h.set_clock(game_id, 1)
    await env.service.join(channel_id=CHANNEL, user=BOB)
    env.clock.now += 60
    await env.service.start(channel_id=CHANNEL, user=ANN)
    ((_, seconds, since),) = await env.store.clocked_games()
    assert seconds == 3600
    return h, game_id, since


async def test_clock_game_reminders_name_when_the_computer_plays(env: Env) -> None:
    h, game_id, since = await _clocked(env)
    ends = f"<t:{int(since + 3600)}:R>"
    env.clock.now += 901  # a quarter of the hour: the first reminder
    (first,) = await env.service.due_reminders()
    assert first.mentions == (ANN.id,)
    assert "Next reminder <t:" in first.text
    assert f"⏰ The computer plays this turn for you {ends}." in first.text, first.text
    env.clock.now += 900  # half the hour: the last one (two reminders)
    (last,) = await env.service.due_reminders()
    assert f"This is the last reminder: the computer plays this turn for you {ends}." in last.text
    assert "/torres cancel" not in last.text and "Next reminder" not in last.text, last.text
    assert await env.service.due_reminders() == []
    env.clock.now = since + 3601  # and then it does, as the reminders said
    (played,) = await h.due_clocks(env.service)
    assert f"<@{ANN.id}>'s time for this turn" in played.posts[0].text
    assert game_id == played.posts[0].game_id


async def test_an_away_period_moves_the_time_the_reminders_name(env: Env) -> None:
    """Back from an away period, the turn's time starts again (bot.core.clocks._ran_out)."""
    h, _, since = await _clocked(env)
    await h.away(user=ANN, days=1)
    until = env.clock.now + 86400
    env.clock.now = until + 10  # no reminders while away; back, the turn's hour starts again
    (first,) = await env.service.due_reminders()
    assert f"for you <t:{int(max(since, until) + 3600)}:R>" in first.text, first.text
    assert await h.due_clocks(env.service) == []


async def test_clock_game_reminders_speak_the_games_language(env: Env) -> None:
    _, _, since = await _clocked(env, "de")
    env.clock.now += 901
    (first,) = await env.service.due_reminders()
    assert (
        "Nächste Erinnerung <t:" in first.text and "⏰ Der Computer spielt diesen Zug" in first.text
    )
    env.clock.now += 900
    (last,) = await env.service.due_reminders()
    assert (
        "Das ist die letzte Erinnerung: Der Computer spielt diesen Zug für dich "
        f"<t:{int(since + 3600)}:R>." in last.text
    ), last.text
    assert "/torres cancel" not in last.text
