"""``/torres learn`` end to end: the real bot process against the fake Discord.

alice takes the tutorial by taps alone: one private message edited in place, each
lesson shown exactly once (numbered 1 to 12 in the order shown) with a picture
marking its squares; she leaves halfway, the bot is killed and started again, and
``/torres learn`` picks the tutorial up where she left it; a tap on the old message
after that changes nothing. Nobody else sees any of it.
"""

from __future__ import annotations

import re

from bot.core.learn import SCRIPT
from tests.bot.e2e._harness import TIMEOUT, Table, check_png
from tests.fakediscord import FakeMessage

LESSON = re.compile(r"^🎓 \*\*Lesson (\d+) of (\d+): (.+)\*\*$", re.M)


def _tap(message: FakeMessage) -> tuple[str, str | None]:
    """A hurried learner's tap: a lesson's (or a group's) first choice, Got it, End turn."""
    selects = sorted(message.selects, key=lambda s: s["custom_id"].endswith(":what"))
    for select in selects:
        options = select.get("options", [])
        if options:
            return select["custom_id"], options[0]["value"]
    for op in ("ok", "end"):
        for b in message.buttons:
            if (b.custom_id or "").endswith(":" + op) and not b.disabled:
                return b.custom_id or "", None
    raise AssertionError(f"nothing to tap: {message.content}")


async def _tap_once(t: Table, message: FakeMessage) -> None:
    cid, value = _tap(message)
    before = message.edits
    ix = await t.fake.click("alice", message, cid, values=[value] if value else None)
    await ix.reply(TIMEOUT)
    assert ix.callback_type in (6, 7), f"{ix.describe()} answered with {ix.callback_type}"
    assert ix.messages == [], "a tap edits the tutorial in place"
    assert message.edits == before + 1


def _lessons(message: FakeMessage, seen: dict[str, int], firsts: list[str]) -> None:
    for number, total, title in LESSON.findall(message.content):
        assert int(total) == len(SCRIPT)
        if title not in seen:
            seen[title] = int(number)
            firsts.append(title)
            assert message.attachments, "a lesson comes with its picture"
            check_png(message.attachments[0].data)
        assert seen[title] == int(number), "a lesson keeps its number"


async def test_the_tutorial_is_played_to_its_end_by_taps_left_and_picked_up(runner):
    t = Table(runner, "games")
    before_public = len(t.fake.channel_messages(t.channel))
    _, message = await t.slash("alice", "learn")
    assert "Lesson 1 of 12: Placing your first knight" in message.content
    assert message.attachments and message.attachments[0].filename == "board.png"
    alt = message.attachments[0].description or ""
    assert "empty castles for your knight" in alt, alt
    seen: dict[str, int] = {}
    firsts: list[str] = []
    _lessons(message, seen, firsts)
    left = False
    for _ in range(400):
        if "Tutorial complete" in message.content or "The game is over" in message.content:
            break
        if len(firsts) == 4 and not left:
            left = True
            old = message
            leave = next(b for b in message.buttons if (b.custom_id or "").endswith(":leave"))
            ix = await t.fake.click("alice", message, leave.custom_id or "")
            await ix.reply(TIMEOUT)
            assert "Tutorial saved" in message.content and message.buttons == []
            await runner.kill()
            await runner.restart_after_kill()
            _, message = await t.slash("alice", "learn")
            assert f"Lesson 4 of 12: {firsts[3]}" in message.content, "picked up where it was"
            assert old.buttons == [], "the left message has no buttons to press"
        await _tap_once(t, message)
        _lessons(message, seen, firsts)
    else:
        raise AssertionError("the tutorial did not end")
    assert "Tutorial complete" in message.content, message.content
    assert message.buttons == [] and message.selects == []
    assert len(firsts) == len(SCRIPT) and sorted(seen.values()) == list(range(1, 13))
    # the ids of the lessons, in the order the bot's database says they were tried
    row = runner.db_row("SELECT shown, tried, finished FROM tutorials")
    assert row[0] == row[1] and row[2] == 1
    # private from start to end: nothing was posted in the channel
    assert len(t.fake.channel_messages(t.channel)) == before_public
    _, again = await t.slash("alice", "learn")
    assert "Lesson 1 of 12" in again.content, "a finished tutorial: /torres learn begins anew"
