"""Undo and the panel's version (issue 33 review): the public Undo acts once however
often it is pressed, the panel's words after an undo say each thing once, and a
resignation elsewhere does not make the mover's panel out of date."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from bot.core.panel import DO, OUT_OF_DATE, ap_line, describe
from bot.texts.i18n import t
from tests.bot.conftest import ANN, BOB, CHANNEL, GUILD, Env
from tests.bot.core.test_panel_presses import past_setup, played, position


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_the_panel_after_an_undo_says_each_thing_once(env: Env, lang: str) -> None:
    ann = replace(ANN, locale=lang)
    turn = await past_setup(env)
    opened = await env.service.panel_open(game_id=1, turn=turn, user=ann)
    moved = await env.service.panel_press(
        game_id=1, turn=turn, user=ann, op="do", value=DO + "move c3 d3", version=opened.version
    )
    undone = await env.service.panel_press(
        game_id=1, turn=turn, user=ann, op="undo", version=moved.version
    )
    text = undone.model.text
    took = t(
        lang,
        "Took back `{action}` — {description}.",
        action="move c3 d3",
        description=describe("move c3 d3", lang=lang),
    )
    assert took in text.splitlines(), text
    # the panel shows the AP (and what to do at 0 AP) itself: the reply's line is left out
    assert ap_line(await position(env), lang=lang) not in text, text


async def test_another_players_resignation_leaves_the_movers_panel_current(env: Env) -> None:
    """A resignation writes to the log but moves nothing: the panel opened before it
    still shows the position, so its next choice acts (no false "out of date")."""
    s = env.service
    users = {ANN.id: ANN, BOB.id: BOB}
    await s.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=3, bots=1)
    await s.join(channel_id=CHANNEL, user=BOB)
    await s.start(channel_id=CHANNEL, user=ANN)
    for _ in range(50):  # setup, until ANN is to move in the play stage
        game = await position(env)
        seat = next(x for x in await env.store.seats(1) if x.name == game.to_move)
        if seat.is_ai:
            await s.ai_step(1)
        elif game.stage == "play" and seat.user_id == ANN.id:
            break
        else:
            text = game.legal()[0] if game.stage != "play" else "end"
            await s.play(channel_id=CHANNEL, user=users[seat.user_id], text=text)
    else:
        raise AssertionError("ANN never got a turn in the play stage")
    row = await env.store.game(1)
    assert row is not None
    opened = await s.panel_open(game_id=1, turn=row.turn_no, user=ANN)
    await s.resign(channel_id=CHANNEL, user=BOB)  # the computer takes BOB's seat
    drawn = await s.panel_press(
        game_id=1, turn=row.turn_no, user=ANN, op="do", value=DO + "draw", version=opened.version
    )
    assert OUT_OF_DATE not in drawn.model.text, drawn.model.text
    assert (await played(env))[-1] == "draw"
    # and the panel still binds: the same press again is out of date, and does nothing
    again = await s.panel_press(
        game_id=1, turn=row.turn_no, user=ANN, op="do", value=DO + "draw", version=opened.version
    )
    assert OUT_OF_DATE in again.model.text and (await played(env)).count("draw") == 1


async def test_undo_on_the_turn_message_opens_the_panel_and_acts_once(env: Env) -> None:
    """Phone and desktop: the turn message's Undo pressed on both opens two panels that
    name what Undo takes back; Undo on both at once takes back one action."""
    turn = await past_setup(env)
    await env.service.play(channel_id=CHANNEL, user=ANN, text="move c3 d3; build e3")
    panels = [
        await env.service.panel_open(game_id=1, turn=turn, user=ANN, undo=True) for _ in range(2)
    ]
    for p in panels:
        assert "Press **Undo** below to take back `build e3`" in p.model.text, p.model.text
    assert await played(env) == ["move c3 d3; build e3"]
    presses = await asyncio.gather(
        *(
            env.service.panel_press(game_id=1, turn=turn, user=ANN, op="undo", version=p.version)
            for p in panels
        )
    )
    assert await played(env) == ["move c3 d3; build e3", "undo"]
    assert sorted(OUT_OF_DATE in p.model.text for p in presses) == [False, True]


async def test_undo_on_the_turn_message_with_nothing_to_take_back_says_so(env: Env) -> None:
    turn = await past_setup(env)
    opened = await env.service.panel_open(game_id=1, turn=turn, user=ANN, undo=True)
    assert "Nothing to take back" in opened.model.text
    assert await played(env) == []
