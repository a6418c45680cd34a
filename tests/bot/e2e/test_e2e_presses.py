"""One press is one action (issue 33, item 6), and forged custom ids get an answer (item 9).

The real bot process against the fake Discord. A panel's custom ids carry the
state it shows; a choice made twice at once on one panel, or on two panels of
the same turn (Play pressed on phone and desktop), acts once, and the late one
redraws its panel saying it was out of date. An interaction Discord delivers twice
is handled once. Panels posted before versions existed redraw instead of acting.
"""

from __future__ import annotations

import asyncio
import copy
import json
import sqlite3
from typing import Any

from bot.core.panel import DO, OUT_OF_DATE, WHAT
from engine import Game
from tests.bot.e2e._harness import (
    SEED,
    TIMEOUT,
    BotRunner,
    PanelDriver,
    Table,
    open_game,
    play_setup,
)
from tests.fakediscord import FakeInteraction, FakeMessage

SEATS = {"red": "alice", "blue": "bob"}


def turn_log(runner: BotRunner) -> list[str]:
    """The actions of the game's turn in progress, as the database holds them."""
    (start,) = runner.db_row("SELECT turn_start_seq FROM games WHERE id = 1")
    conn = sqlite3.connect(f"file:{runner.db}?mode=ro", uri=True)
    try:
        rows = conn.execute(
            "SELECT kind, action FROM actions WHERE game_id = 1 AND seq > ? ORDER BY seq", (start,)
        ).fetchall()
    finally:
        conn.close()
    return [action if kind == "play" else kind for kind, action in rows]


async def first_turn(runner: BotRunner) -> tuple[Table, Game, FakeMessage]:
    t = Table(runner)
    await open_game(t)
    game = Game.new(players=2, names=list(SEATS), seed=SEED)
    post = await play_setup(t, game, SEATS)
    return t, game, post


async def first_panel(
    runner: BotRunner,
) -> tuple[Table, str, FakeMessage, PanelDriver, FakeMessage]:
    """The first turn's mover, its turn message, a panel opened on it and its driver."""
    t, game, post = await first_turn(runner)
    who = SEATS[game.to_move or ""]
    driver = PanelDriver(t.fake, who)
    panel = await driver.open(post)
    return t, who, post, driver, panel


async def both_answered(ixs: list[FakeInteraction]) -> None:
    """Every press was answered by editing its panel in place, and made no new message."""
    for ix in ixs:
        await ix.reply(TIMEOUT)
        assert ix.callback_type in (6, 7), ix
        assert ix.messages == [], ix.messages


async def test_the_same_choice_pressed_twice_at_once_on_one_panel_acts_once(
    runner: BotRunner,
) -> None:
    t, who, post, driver, panel = await first_panel(runner)
    cid = driver.find(DO + "draw")
    assert cid is not None, driver.values()
    presses = await asyncio.gather(
        *(t.fake.click(who, panel, cid, values=[DO + "draw"]) for _ in range(2))
    )
    await both_answered(list(presses))
    assert turn_log(runner) == ["draw"]
    await t.fake.wait_until(
        lambda: "This turn so far: `draw`" in panel.text or None, TIMEOUT, "the last edit"
    )
    assert "**4 AP** left" in panel.text, panel.text


async def test_the_same_choice_on_two_panels_acts_once_and_the_other_redraws(
    runner: BotRunner,
) -> None:
    """Play pressed on phone and desktop: Draw chosen on each, then Build on each, at once."""
    t, game, post = await first_turn(runner)
    who = SEATS[game.to_move or ""]
    a, b = PanelDriver(t.fake, who), PanelDriver(t.fake, who)
    await a.open(post)
    await b.open(post)
    await asyncio.gather(a.do("draw"), b.do("draw"))
    assert turn_log(runner) == ["draw"]
    late, first = (a, b) if OUT_OF_DATE in (a.panel.text if a.panel else "") else (b, a)
    assert late.panel is not None and first.panel is not None
    assert OUT_OF_DATE in late.panel.text and "Done: Draw a card" in first.panel.text
    # The redrawn panel shows the game as it is now, and plays on from there.
    assert "This turn so far: `draw`" in late.panel.text and "**4 AP** left" in late.panel.text
    build = next(x for x in (await mirror(runner)).legal() if x.startswith("build "))
    square = build.split()[1]
    for d in (late, first):  # both panels show the builds (choosing a group acts on nothing)
        await d.tap(d.find(WHAT + "build") or "", WHAT + "build")
    await asyncio.gather(*(d.tap(d.find(DO + build) or "", DO + build) for d in (late, first)))
    assert turn_log(runner) == ["draw", build], turn_log(runner)
    assert sum(OUT_OF_DATE in d.panel.text for d in (a, b) if d.panel) == 1
    stored = await mirror(runner)
    assert stored.height(square) == game.height(square) + 1
    assert stored.ap == 3


async def test_undo_on_the_turn_message_pressed_on_two_devices_takes_back_one(
    runner: BotRunner,
) -> None:
    """The turn message's Undo opens the panel saying what its Undo takes back; pressed
    on phone and desktop, then Undo on both panels at once: one action is taken back."""
    t, game, post = await first_turn(runner)
    who = SEATS[game.to_move or ""]
    first = next(x for x in game.legal() if x.startswith("build "))
    game.play(first)
    second = next(x for x in game.legal() if x.startswith("build "))
    await t.slash(who, "play", actions=f"{first}; {second}")
    a, b = PanelDriver(t.fake, who), PanelDriver(t.fake, who)
    for d in (a, b):
        panel = await d.open(post, "undo")
        assert f"Press **Undo** below to take back `{second}`" in panel.text, panel.text
    assert turn_log(runner) == [f"{first}; {second}"]  # opening the panels did nothing
    await asyncio.gather(a.tap(a.button("undo")), b.tap(b.button("undo")))
    assert turn_log(runner) == [f"{first}; {second}", "undo"], turn_log(runner)
    texts = [d.panel.text for d in (a, b) if d.panel]
    assert sum(OUT_OF_DATE in x for x in texts) == 1, texts
    assert sum(f"Took back `{second}`" in x for x in texts) == 1, texts


async def mirror(runner: BotRunner) -> Game:
    raw = runner.db_row("SELECT position FROM games WHERE id = 1")[0]
    return Game.from_position(json.loads(raw))


async def test_an_interaction_delivered_twice_is_handled_once(runner: BotRunner) -> None:
    """Discord may deliver an event again (a gateway resume): a press and a command run once."""
    t, game, post = await first_turn(runner)
    who = SEATS[game.to_move or ""]
    sent: list[tuple[dict[str, Any], Any]] = []
    dispatch = t.fake._dispatch

    async def spy(event: str, data: dict[str, Any], conn: Any = None) -> None:
        if event == "INTERACTION_CREATE":
            sent.append((copy.deepcopy(data), conn))
        await dispatch(event, data, conn)

    t.fake._dispatch = spy  # type: ignore[method-assign]
    driver = PanelDriver(t.fake, who)
    await driver.open(post)
    await driver.do("draw")
    for again in ("press", "command"):
        if again == "command":
            _, reply = await t.slash(who, "play", actions="draw")
            assert reply.text.startswith("Done: `draw`"), reply.text
        data, conn = sent[-1]
        await dispatch("INTERACTION_CREATE", data, conn)  # the Draw press, the command: again
        # the bot's evidence that it took the second delivery for what it is
        await runner.wait_for_log(f"interaction {data['id']} delivered again; ignored", TIMEOUT)
    assert turn_log(runner) == ["draw", "draw"]
    assert t.fake.errors == [], t.fake.errors  # no second answer to either


def with_ids(message: FakeMessage, rewrite: Any) -> None:
    """A modified client (or an old bot) gave *message*'s components these custom ids."""
    text = json.dumps(message.components)
    message.components = json.loads(rewrite(text))


async def press_forged(
    t: Table, who: str, message: FakeMessage, real_id: str, custom_id: str
) -> None:
    """*message* with *real_id* forged to *custom_id*, pressed: a private answer saying
    the button belongs to no game. The message's components are restored after."""
    real = copy.deepcopy(message.components)
    with_ids(message, lambda text: text.replace(real_id, custom_id))
    ix = await t.fake.click(who, message, custom_id)
    reply = await ix.reply(TIMEOUT)
    assert reply.ephemeral and "doesn't belong to any game" in reply.text, reply.text
    message.components = real


async def test_a_panel_posted_before_versions_redraws_instead_of_acting(
    runner: BotRunner,
) -> None:
    """Custom ids of the old form ``tp:GAME:TURN:OP``: the press redraws the panel only."""
    t, who, post, driver, panel = await first_panel(runner)
    version = driver.button("hint").split(":")[3]
    with_ids(panel, lambda text: text.replace(f":{version}:", ":"))
    old = driver.find(DO + "draw")
    assert old is not None and old.count(":") == 3, old
    await driver.tap(old, DO + "draw")
    assert turn_log(runner) == []
    assert OUT_OF_DATE in panel.text and driver.button("hint").count(":") == 4
    await driver.do("draw")  # the redrawn panel plays
    assert turn_log(runner) == ["draw"]


async def test_forged_custom_ids_get_a_clear_answer_and_change_nothing(
    runner: BotRunner,
) -> None:
    """Digits of other scripts, negative and non-numeric numbers: a private answer, no action."""
    t, who, post, driver, panel = await first_panel(runner)
    hint = driver.button("hint")
    _, _, turn, version, _ = hint.split(":")
    forged_panel = [
        f"tp:\u0661:{turn}:{version}:hint",  # Arabic-Indic 1
        f"tp:1:{turn}:\u0663:hint",
        f"tp:-1:{turn}:{version}:hint",
        f"tp:x:{turn}:{version}:hint",
        f"tp:1:{turn}:-{version}:hint",
    ]
    for custom_id in forged_panel:
        await press_forged(t, who, panel, hint, custom_id)
    for custom_id in (f"torres:\u0661:{turn}:end", f"torres:-1:{turn}:undo", "torres:a:b:hand"):
        await press_forged(t, who, post, f"torres:1:{turn}:end", custom_id)
    assert turn_log(runner) == []
