"""The panel's last word after a turn says where the turn message is (issue 35): the
game's own thread, linked, when it plays in one; the channel otherwise."""

from __future__ import annotations

from dataclasses import replace

import pytest

from bot.core.panel import DO
from bot.core.service import User
from tests.bot.conftest import ANN, BOB, CHANNEL, GUILD, Env

THREAD = 7700  # the game's thread (Discord gives a thread its starter message's id)


async def _first_decision(env: Env, ann: User, *, thread: bool) -> str:
    """Open a two-player game (in a thread of its own or not), start it, and let Ann
    take her first decision on the panel; the closed panel's text."""
    where = THREAD if thread else CHANNEL
    out = await env.service.new(
        guild_id=GUILD,
        channel_id=where,
        user=ann,
        players=2,
        lobby_channel_id=CHANNEL if thread else None,
        lobby_message_id=THREAD if thread else None,
    )
    await env.service.join(channel_id=where, user=BOB)
    await env.service.start(channel_id=where, user=ann)
    row = await env.store.game(out.game_id or 0)
    assert row is not None and row.channel_id == where
    opened = await env.service.panel_open(game_id=row.id, turn=row.turn_no, user=ann)
    value = opened.model.selects[-1].options[0].value
    assert value.startswith(DO)
    done = await env.service.panel_press(
        game_id=row.id, turn=row.turn_no, user=ann, op="do", value=value
    )
    assert done.model.closed
    return done.model.text


async def test_a_game_in_a_thread_links_the_thread(env: Env) -> None:
    text = await _first_decision(env, ANN, thread=True)
    assert text.endswith(f"; the turn message is in <#{THREAD}>."), text
    assert "in the channel" not in text


async def test_a_game_in_the_channel_keeps_the_channel(env: Env) -> None:
    text = await _first_decision(env, ANN, thread=False)
    assert text.endswith("; the turn message is in the channel."), text


@pytest.mark.parametrize(
    ("locale", "words"),
    [("de", "die Zugnachricht steht in <#{t}>."), ("nl", "het beurtbericht staat in <#{t}>.")],
)
async def test_the_thread_words_are_translated(env: Env, locale: str, words: str) -> None:
    text = await _first_decision(env, replace(ANN, locale=locale), thread=True)
    assert text.endswith(words.format(t=THREAD)), text
