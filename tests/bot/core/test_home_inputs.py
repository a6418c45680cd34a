"""bot.core.home's rejoin and away (issue 33, items 7 and 9): names shown as typed, days checked."""

from __future__ import annotations

import pytest

from bot.core.errors import NotAllowed
from bot.core.home import AWAY_DAYS, HomeService
from bot.core.service import User
from bot.texts.posts import shown_name
from tests.bot.conftest import ANN, BOB, CHANNEL, GUILD, Env

HOSTILE = "[pwn](https://evil.example) <@1> @everyone **# x**"


def home(env: Env) -> HomeService:
    return HomeService(env.store, ai_level="search", clock=env.clock)


async def start(env: Env, author: User, other: User) -> int:
    out = await env.service.new(guild_id=GUILD, channel_id=CHANNEL, user=author, players=2)
    await env.service.join(channel_id=CHANNEL, user=other)
    await env.service.start(channel_id=CHANNEL, user=author)
    return out.posts[0].game_id


def literal(text: str) -> None:
    """Nothing of the hostile name formats, links or pings."""
    assert "](" not in text and "<@1>" not in text and "@everyone" not in text, text
    assert "**#" not in text, text


async def test_rejoin_shows_the_name_as_typed(env: Env) -> None:
    ann = User(ANN.id, HOSTILE)
    game_id = await start(env, ann, BOB)
    await env.store.set_seat_ai(game_id, "red", True)  # the computer took the seat (timeouts)
    back = await home(env).rejoin(channel_id=CHANNEL, user=ann)
    assert back is not None
    (post,) = back.posts
    assert post.text.startswith(f"{shown_name(HOSTILE)} is back in game #{game_id}"), post.text
    literal(post.text)


async def test_away_and_back_show_the_name_as_typed(env: Env) -> None:
    ann = User(ANN.id, HOSTILE)
    await start(env, ann, BOB)
    for days, words in ((3, "is away until"), (0, "is back:")):
        out = await home(env).away(user=ann, days=days)
        (post,) = out.posts
        assert post.text.startswith(f"{shown_name(HOSTILE)} {words}"), post.text
        literal(post.text)


@pytest.mark.parametrize("days", [-1, AWAY_DAYS + 1, 2**63, 1.5])
async def test_away_refuses_days_out_of_range_and_changes_nothing(env: Env, days: float) -> None:
    await start(env, ANN, BOB)
    h = home(env)
    with pytest.raises(NotAllowed, match=f"1 to {AWAY_DAYS} days"):
        await h.away(user=ANN, days=days)  # type: ignore[arg-type]
    assert (await env.store.user_settings(ANN.id)).away_until is None
    with pytest.raises(NotAllowed, match="Eine Abwesenheit dauert 1 bis 14 Tage"):
        await h.away(user=User(ANN.id, ANN.display, "de"), days=days)  # type: ignore[arg-type]


async def test_away_days_at_the_bounds_are_accepted(env: Env) -> None:
    await start(env, ANN, BOB)
    out = await home(env).away(user=ANN, days=AWAY_DAYS)
    settings = await env.store.user_settings(ANN.id)
    assert settings.away_until == env.clock.now + AWAY_DAYS * 86400 and out.posts
    await home(env).away(user=ANN, days=0)
    assert (await env.store.user_settings(ANN.id)).away_until is None


async def test_games_history_and_stats_show_the_name_as_typed(env: Env) -> None:
    """``/torres games`` (the mover's name), ``history`` and ``stats`` never format a name."""
    ann = User(ANN.id, HOSTILE)
    await start(env, ann, BOB)
    h = home(env)
    games = [await h.my_games(user_id=u.id, guild_id=GUILD, lang="en") for u in (ann, BOB)]
    assert any(shown_name(HOSTILE) in text for text in games), games
    await env.service.resign(channel_id=CHANNEL, user=ann)
    await h.record_results()
    history = await h.history(channel_id=CHANNEL, guild_id=GUILD, lang="en")
    stats = await h.stats(guild_id=GUILD, user_id=ANN.id, name=HOSTILE, lang="en")
    for text in (*games, history, stats):
        literal(text)
    assert shown_name(HOSTILE) in history and shown_name(HOSTILE) in stats
