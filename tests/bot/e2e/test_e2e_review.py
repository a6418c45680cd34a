"""After the game, end to end (issue 36): the last post's score chart, ``/torres review``
with its swings, pictures and ◀ ▶, and ``/torres board game:N`` stepping with ⏮ ◀ ▶ ⏭.

alice plays a computer to the end, ending each turn at once (so the expert finds
swings), then looks back at the game; every answer is private and edited in place.
"""

from __future__ import annotations

import json
import re

import pytest

from engine import Game
from tests.bot.e2e._harness import TIMEOUT, BotRunner, Table, check_png, play_the_computer
from tests.fakediscord import FakeMessage

REVIEW_TIMEOUT = 120.0  # a whole game's review by the expert, one decision at a time


def mirror(runner: BotRunner, game_id: int) -> Game:
    [position] = runner.db_row("SELECT position FROM games WHERE id = ?", game_id)
    return Game.from_position(json.loads(position))


def ids(message: FakeMessage) -> dict[str, tuple[str, bool]]:
    """The message's buttons: the step each goes to (the custom id's end) -> (id, disabled)."""
    return {
        (b.custom_id or "").rsplit(":", 1)[1]: (b.custom_id or "", bool(b.disabled))
        for b in message.buttons
    }


async def press(t: Table, reply: FakeMessage, step: str) -> FakeMessage:
    custom_id, disabled = ids(reply)[step]
    assert not disabled, (step, reply.text)
    ix = await t.fake.click("alice", reply, custom_id)
    edited = await ix.reply(REVIEW_TIMEOUT)
    assert ix.callback_type in (6, 7), ix.describe()  # edited in place, not a new message
    assert edited.ephemeral and edited.viewer is t.user("alice")
    return edited


async def play_to_the_end(t: Table, runner: BotRunner) -> FakeMessage:
    """alice against the computer; returns the game's last post."""
    over = await play_the_computer(t, runner)
    return await t.fake.wait_for_message(
        lambda m: any(a.filename == "replay.gif" for a in m.attachments),
        channel=t.channel, public=True, after=over.seq, timeout=TIMEOUT, what="the last post",
    )  # fmt: skip


@pytest.mark.parametrize(
    "runner", [{"TORRES_AI_LEVEL": "random", "TORRES_AI_SECONDS": "0.01"}], indirect=True
)
async def test_the_chart_the_review_and_the_board_steps(runner: BotRunner) -> None:
    t = Table(runner)
    last = await play_to_the_end(t, runner)
    game = mirror(runner, 1)
    assert game.stage == "over"

    # The last post: the replay, the score chart and the castles that scored most.
    assert [a.filename for a in last.attachments] == ["replay.gif", "chart.png"]
    check_png(last.attachments[1].data)
    assert "**Castles that scored most**" in last.text
    assert "Alice (red)" in last.text or "alice (red)" in last.text.lower()
    assert t.public_since(last.seq) == []  # nothing after it

    # /torres review game:1 shows the chart again, privately.
    _, reply = await t.slash("alice", "review", game=1)
    assert [a.filename for a in reply.attachments] == ["chart.png"]
    check_png(reply.attachments[0].data)
    assert "Game #1" in reply.text and "/torres review game:1 player:@name" in reply.text

    # /torres review game:1 player:alice: the swings first, then ▶ through every decision.
    ix = await t.fake.slash("alice", t.channel, "torres", "review", game=1, player="alice")
    front = await ix.reply(REVIEW_TIMEOUT)
    assert front.ephemeral and front.viewer is t.user("alice")
    assert "**Review of" in front.text and "in game #1**" in front.text
    assert "**Largest swings**" in front.text, front.text
    swing = [int(n) for n in re.findall(r"^\d\. Decision (\d+) ", front.text, re.M)]
    assert 1 <= len(swing) <= 3
    assert ids(front)["prev"][1] and not ids(front)["next"][1]  # ◀ off on the first page
    pages = int(re.search(r"through (?:your|the) (\d+) decision", front.text).group(1))
    page, seen_pictures = front, set()
    for n in range(1, pages + 1):
        page = await press(t, page, "next")
        m = re.search(r"\*\*Game #1, decision (\d+)\*\* \([^)]*\) · (\d+)/(\d+)", page.text)
        assert m and (int(m.group(2)), int(m.group(3))) == (n, pages), page.text
        names = [a.filename for a in page.attachments]
        for a in page.attachments:
            check_png(a.data)
        if int(m.group(1)) in swing:
            assert names == ["played.png", "expert.png"], (names, page.text)
            assert "The expert would have played `" in page.text
        seen_pictures.add(tuple(names))
        if n == 2:  # ◀ goes back one, ▶ forward again
            back = await press(t, page, "prev")
            assert " · 1/" in back.text
            page = await press(t, back, "next")
            assert " · 2/" in page.text
    assert ("played.png", "expert.png") in seen_pictures
    assert ids(page)["next"][1]  # ▶ off on the last page

    # /torres board game:1: the last decision, then ◀, ⏮ and ▶ step through the game in place.
    _, board = await t.slash("alice", "board", game=1)
    steps = ids(board)
    assert set(steps) == {"first", "prev", "next", "last"}
    assert steps["next"][1] and steps["last"][1] and not steps["prev"][1]
    total = int(re.search(r"decision (\d+) of (\d+)", board.text).group(2))
    board = await press(t, board, "prev")
    assert f"decision {total - 1} of {total}" in board.text
    assert [a.filename for a in board.attachments] == ["board.png"]
    board = await press(t, board, "first")
    assert f"at the start (decision 0 of {total})" in board.text
    assert ids(board)["first"][1] and ids(board)["prev"][1]
    board = await press(t, board, "next")
    assert f"decision 1 of {total}" in board.text
    board = await press(t, board, "last")
    assert f"decision {total} of {total}" in board.text
    assert runner.unexpected_log_errors() == []
