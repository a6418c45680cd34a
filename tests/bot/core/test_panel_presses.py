"""One panel choice is one action (issue 33, item 6), at the service layer.

A panel's choices carry the state it shows (``PanelState.version``, the game's log
position). A second tap on the same choice, or the same choice on a second panel
of the turn (Play pressed on phone and desktop), must find the game moved on and
redraw the panel, saying so, instead of acting again; checked under the game's
lock, so presses at the same moment are covered too.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.core.errors import NotYourTurn, StaleButton
from bot.core.panel import DO, OUT_OF_DATE, WHAT
from bot.core.service import PanelState, User
from engine import Game
from tests.bot.conftest import ANN, BOB, CHANNEL, GUILD, Env


async def past_setup(env: Env) -> int:
    """ANN (red) on c3, BOB (blue) on f6, the king on d1; ANN to move with 5 AP. The turn."""
    s = env.service
    await s.new(guild_id=GUILD, channel_id=CHANNEL, user=ANN, players=2, variant="common")
    await s.join(channel_id=CHANNEL, user=BOB)
    await s.start(channel_id=CHANNEL, user=ANN)
    await s.play(channel_id=CHANNEL, user=ANN, text="place c3")
    await s.play(channel_id=CHANNEL, user=BOB, text="place f6")
    await s.play(channel_id=CHANNEL, user=BOB, text="king d1")
    row = await env.store.game(1)
    assert row is not None
    return row.turn_no


async def played(env: Env) -> list[str]:
    """The log of the turn in progress: what was really done, undos included."""
    row = await env.store.game(1)
    assert row is not None
    return [
        a.action if a.kind == "play" else "undo"
        for a in await env.store.actions(1, after_seq=row.turn_start_seq)
    ]


async def position(env: Env) -> Game:
    row = await env.store.game(1)
    assert row is not None and row.position is not None
    return Game.from_position(row.position)


def out_of_date(state: PanelState) -> bool:
    return OUT_OF_DATE in state.model.text


async def test_a_panel_carries_the_state_it_shows(env: Env) -> None:
    turn = await past_setup(env)
    opened = await env.service.panel_open(game_id=1, turn=turn, user=ANN)
    row = await env.store.game(1)
    assert row is not None and opened.version == row.last_seq
    moved = await env.service.panel_press(
        game_id=1, turn=turn, user=ANN, op="do", value=DO + "move c3 d3", version=opened.version
    )
    assert moved.version == opened.version + 1 and not out_of_date(moved)


@pytest.mark.parametrize("action", ["draw", "build d3", "move c3 d3"])
async def test_the_same_choice_on_two_panels_at_once_acts_once(env: Env, action: str) -> None:
    """Play pressed on phone and desktop: two panels; the choice made on both at once."""
    turn = await past_setup(env)
    a = await env.service.panel_open(game_id=1, turn=turn, user=ANN)
    b = await env.service.panel_open(game_id=1, turn=turn, user=ANN)
    assert a.version == b.version
    before = await position(env)
    first, second = await asyncio.gather(
        *(
            env.service.panel_press(
                game_id=1, turn=turn, user=ANN, op="do", value=DO + action, version=p.version
            )
            for p in (a, b)
        )
    )
    assert await played(env) == [action]
    after = await position(env)
    assert after.ap == (before.ap or 0) - 1
    done, refreshed = (first, second) if "Done:" in first.model.text else (second, first)
    assert "Done:" in done.model.text and not out_of_date(done)
    assert out_of_date(refreshed) and "Done:" not in refreshed.model.text
    # The refreshed panel shows the game as it is now, and its choices act again.
    assert refreshed.version == done.version and refreshed.position == after.position()
    assert f"**{after.ap} AP** left" in refreshed.model.text
    again = await env.service.panel_press(
        game_id=1, turn=turn, user=ANN, op="hint", version=refreshed.version
    )
    assert "💡 Suggested:" in again.model.text and len(await played(env)) == 1
    (offer,) = [s for s in again.model.selects if s.placeholder.startswith("💡")]
    await env.service.panel_press(
        game_id=1, turn=turn, user=ANN, op="do", value=offer.options[0].value, version=again.version
    )
    row = await env.store.game(1)
    assert row is not None and (row.turn_no > turn or len(await played(env)) > 1)


async def test_a_second_tap_on_the_same_panel_does_not_act_again(env: Env) -> None:
    """The same press, one after the other: the second finds the game moved on."""
    turn = await past_setup(env)
    panel = await env.service.panel_open(game_id=1, turn=turn, user=ANN)
    hand = len((await position(env)).hand("red"))
    for _ in range(2):
        last = await env.service.panel_press(
            game_id=1, turn=turn, user=ANN, op="what", value=DO + "draw", version=panel.version
        )
    assert await played(env) == ["draw"] and out_of_date(last)
    assert len((await position(env)).hand("red")) == hand + 1


@pytest.mark.parametrize("op", ["hint", "undo", "end", "endok"])
async def test_every_acting_button_is_bound_to_the_panel_state(env: Env, op: str) -> None:
    """💡, Undo and End turn (asked, or confirmed) on a panel the game has left do nothing."""
    turn = await past_setup(env)
    old = await env.service.panel_open(game_id=1, turn=turn, user=ANN)
    await env.service.play(channel_id=CHANNEL, user=ANN, text="move c3 d3")
    state = await env.service.panel_press(
        game_id=1, turn=turn, user=ANN, op=op, version=old.version
    )
    assert out_of_date(state) and not state.model.confirm_end and not state.model.closed
    assert await played(env) == ["move c3 d3"]
    row = await env.store.game(1)
    assert row is not None and row.turn_no == turn and state.version == row.last_seq
    assert "This turn so far: `move c3 d3`" in state.model.text


async def test_undo_pressed_twice_at_once_takes_back_one_action(env: Env) -> None:
    turn = await past_setup(env)
    await env.service.play(channel_id=CHANNEL, user=ANN, text="move c3 d3; build e3")
    panel = await env.service.panel_open(game_id=1, turn=turn, user=ANN)
    states = await asyncio.gather(
        *(
            env.service.panel_press(
                game_id=1, turn=turn, user=ANN, op="undo", version=panel.version
            )
            for _ in range(2)
        )
    )
    assert (await played(env))[-1] == "undo" and (await played(env)).count("undo") == 1
    assert sorted(out_of_date(s) for s in states) == [False, True]
    assert "This turn so far: `move c3 d3`" in states[0].model.text


async def test_choosing_a_group_on_an_old_panel_shows_the_game_as_it_is(env: Env) -> None:
    """Choosing what to do acts on nothing: the panel shows the group now, and says why."""
    turn = await past_setup(env)
    old = await env.service.panel_open(game_id=1, turn=turn, user=ANN)
    await env.service.play(channel_id=CHANNEL, user=ANN, text="move c3 d3")
    state = await env.service.panel_press(
        game_id=1, turn=turn, user=ANN, op="what", value=WHAT + "move d3", version=old.version
    )
    assert out_of_date(state) and await played(env) == ["move c3 d3"]
    where = [o.value for s in state.model.selects[1:] for o in s.options]
    assert where and all(v.startswith(DO + "move d3 ") for v in where)


async def test_a_panel_without_a_version_is_redrawn_without_acting(env: Env) -> None:
    """Custom ids posted before versions existed: the press only redraws the panel."""
    turn = await past_setup(env)
    state = await env.service.panel_refresh(game_id=1, turn=turn, user=ANN)
    assert out_of_date(state) and await played(env) == []
    row = await env.store.game(1)
    assert row is not None and state.version == row.last_seq and state.model.selects
    with pytest.raises(NotYourTurn):
        await env.service.panel_refresh(game_id=1, turn=turn, user=BOB)


async def test_a_forged_version_is_refused_before_the_database(env: Env) -> None:
    turn = await past_setup(env)
    for version in (2**63, -1):
        with pytest.raises(StaleButton, match="doesn't belong to any game"):
            await env.service.panel_press(
                game_id=1, turn=turn, user=ANN, op="hint", version=version
            )
    assert await played(env) == []


@pytest.mark.parametrize(("locale", "words"), [("de", "veraltet"), ("nl", "verouderd")])
async def test_the_out_of_date_line_speaks_the_players_language(
    env: Env, locale: str, words: str
) -> None:
    turn = await past_setup(env)
    ann = User(ANN.id, ANN.display, locale=locale)
    old = await env.service.panel_open(game_id=1, turn=turn, user=ann)
    await env.service.play(channel_id=CHANNEL, user=ann, text="draw")
    state = await env.service.panel_press(
        game_id=1, turn=turn, user=ann, op="what", value=DO + "draw", version=old.version
    )
    assert words in state.model.text and OUT_OF_DATE not in state.model.text
    assert await played(env) == ["draw"]


# -- fewer taps (issue 35) ------------------------------------------------------------


async def test_several_blocks_in_one_choice(env: Env) -> None:
    """The build select takes as many squares as AP and the stack allow; the set is
    played as one action, in the order chosen, and stays on the builds."""
    turn = await past_setup(env)
    panel = await env.service.panel_open(game_id=1, turn=turn, user=ANN)
    builds = [s for s in panel.model.selects if s.placeholder.startswith("Build")]
    assert builds and all(s.max_values == 3 for s in builds)  # stack of 3, 5 AP
    values = [DO + "build b3", DO + "build c4"]
    done = await env.service.panel_press(
        game_id=1,
        turn=turn,
        user=ANN,
        op="do",
        value=values[0],
        values=values,
        version=panel.version,
    )
    assert await played(env) == ["build b3; build c4"]
    assert "**3 AP** left" in done.model.text and "this turn's stack: 1 block" in done.model.text
    # the builds stay at hand: one block left, so one square a choice
    after = [s for s in done.model.selects if s.placeholder.startswith("Build")]
    assert after and all(s.max_values == 1 for s in after)


async def test_a_set_of_blocks_the_engine_refuses_changes_nothing(env: Env) -> None:
    """Four squares with three blocks in the stack (a forged choice): refused, in words."""
    turn = await past_setup(env)
    values = [DO + f"build {sq}" for sq in ("b3", "c4", "d3", "c2")]
    state = await env.service.panel_press(
        game_id=1, turn=turn, user=ANN, op="do", value=values[0], values=values
    )
    assert await played(env) == []
    assert "⚠ Blocks on b3, c4, d3, c2 can't all be built now; nothing was built." in (
        state.model.text
    )
    # values that are not all blocks are not played at all
    mixed = [DO + "build b3", DO + "move c3 d3"]
    await env.service.panel_press(
        game_id=1, turn=turn, user=ANN, op="do", value=mixed[0], values=mixed
    )
    assert await played(env) == []


async def test_a_path_is_one_choice_at_its_cost(env: Env) -> None:
    """A square two steps away is one option, `move c3 d3 e3` style, at 2 AP."""
    turn = await past_setup(env)
    panel = await env.service.panel_press(
        game_id=1, turn=turn, user=ANN, op="what", value=WHAT + "move c3"
    )
    paths = [o for s in panel.model.selects for o in s.options if len(o.value.split()) == 4]
    assert paths and all("(2 AP)" in o.label for o in paths if len(o.value.split()) == 4)
    done = await env.service.panel_press(
        game_id=1, turn=turn, user=ANN, op="do", value=paths[0].value
    )
    assert await played(env) == [paths[0].value[len(DO) :]]
    assert "**3 AP** left" in done.model.text
