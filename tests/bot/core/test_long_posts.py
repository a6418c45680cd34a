"""A post longer than Discord's 2,000 characters (consecutive computer decisions with a
phase scoring, merged) goes out whole, as several messages cut between lines, in order."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.client.app import TorresBot
from bot.client.cards import card_buttons
from bot.core.batch import merge_posts, split_message
from bot.core.config import BotConfig
from bot.core.outbox import POSTED
from bot.core.service import Post, _random_decision
from bot.db.rows import SeatRow
from bot.texts.posts import phase_summary, scores_line, turn_header
from engine import Game
from tests.bot.conftest import Env
from tests.bot.recording_channel import RecordingChannel

NAMES = ["red", "blue", "green", "yellow"]


@pytest.fixture
def bot(env: Env) -> TorresBot:
    return TorresBot(config=BotConfig(token="x"), store=env.store, service=env.service)


def _computer_posts() -> list[Post]:
    """The turn posts of three computer seats up to and including a late phase scoring.

    Built as the service builds them (a header, the scores, the phase summary), from a
    random 4-player master game: its later phases list many castles per player.
    """
    seats = [SeatRow(1, i, None, "Computer", n, True, False, 0.0) for i, n in enumerate(NAMES)]
    rng = random.Random(3)
    game = Game.new(4, names=NAMES, variant="master", seed=33)
    posts: list[Post] = []
    while game.stage != "over":
        player, before = game.to_move, game.copy()
        actions = _random_decision(game, rng)
        events = []
        for action in actions:
            events += game.play(action) or []
        lines = [turn_header(1, seats[NAMES.index(player)], actions)]
        lines.append(scores_line(game.scores, before.scores, game.players))
        scored = [e for e in events if e.get("type") == "phase_scored"]
        for event in scored:
            lines.append(phase_summary(event, seats, game.position()))
        posts.append(Post(1, 7, "\n".join(lines), position=game.position(), outbox_id=len(posts)))
        if scored and scored[0].get("phase") == 3:
            return posts[-30:]
    raise AssertionError("the game ended without a third phase scoring")


async def test_a_long_merged_computer_post_is_posted_whole_in_order(bot: TorresBot, monkeypatch):
    merged = merge_posts(_computer_posts())
    merged.turn, merged.buttons, merged.mentions = 9, ("play", "hand"), (42,)
    assert len(merged.text) > 2000 and "**Phase 3 scoring**" in merged.text
    channel = RecordingChannel()
    monkeypatch.setattr(bot, "get_channel", lambda _id: channel)

    async def picture(*args: object, **kwargs: object) -> tuple[bytes, str | None]:
        return b"\x89PNG fake", "the board"

    monkeypatch.setattr(bot.renderer, "picture", picture)
    assert await bot.send_post(merged) == POSTED
    texts = [text for text, _ in channel.sent]
    assert len(texts) >= 2 and all(0 < len(x) <= 2000 for x in texts)
    # Nothing lost, nothing cut inside a line: the messages are the post's lines, in order.
    assert "\n".join(texts).splitlines() == [x for x in merged.text.splitlines() if x.strip()]
    *earlier, (_, last) = channel.sent
    assert [f.filename for f in last["files"]] == ["board.png"]
    assert card_buttons(last["view"]) == ["torres:7:9:play", "torres:7:9:hand"]
    for _, kwargs in earlier:  # text only; every piece its own nonce (a repeat is not doubled)
        assert "files" not in kwargs and "view" not in kwargs
    nonces = [kwargs["nonce"] for _, kwargs in channel.sent]
    assert len(set(nonces)) == len(nonces) and all(len(n) <= 25 for n in nonces)
    # A repeat (Discord refused a later piece) sends the same pieces with the same nonces.
    again = RecordingChannel()
    monkeypatch.setattr(bot, "get_channel", lambda _id: again)
    assert await bot.send_post(merged) == POSTED
    assert [(t, k.get("nonce")) for t, k in again.sent] == list(zip(texts, nonces, strict=True))

    # Resent late after a restart: the same cuts (the note goes on the first piece), so
    # the nonces of pieces Discord already has still name the same text: no line twice.
    late = RecordingChannel()
    monkeypatch.setattr(bot, "get_channel", lambda _id: late)
    assert await bot.send_post(merged, late=True) == POSTED
    assert [k.get("nonce") for _, k in late.sent] == nonces
    first, *rest = [text for text, _ in late.sent]
    assert first.startswith("*(Posted late after a restart.)*\n")
    assert [first.split("\n", 1)[1], *rest] == texts
    assert all(len(text) <= 2000 for text, _ in late.sent)


async def test_a_late_resend_cuts_the_same_pieces(bot: TorresBot, monkeypatch):
    # 40 lines of 99 characters: cut at exactly 2,000 characters, the late note would
    # move a line from the first piece to the second, whose nonce Discord already knows.
    post = Post(1, 7, "\n".join(f"line {i:03d} " + "x" * 90 for i in range(40)), outbox_id=5)
    sent: dict[bool, list[tuple[str, dict]]] = {}
    for late in (False, True):
        channel = RecordingChannel()
        monkeypatch.setattr(bot, "get_channel", lambda _id, c=channel: c)
        assert await bot.send_post(post, late=late) == POSTED
        sent[late] = channel.sent
    on_time = [text for text, _ in sent[False]]
    first, *rest = [text for text, _ in sent[True]]
    assert first.startswith("*(Posted late after a restart.)*\n")
    assert [first.split("\n", 1)[1], *rest] == on_time
    assert [k["nonce"] for _, k in sent[True]] == [k["nonce"] for _, k in sent[False]]
    assert all(len(text) <= 2000 for text, _ in sent[True])


@given(
    st.lists(st.text(alphabet=st.sampled_from("ab \n·🔴"), max_size=300), min_size=1, max_size=30),
    st.integers(min_value=20, max_value=200),
)
def test_split_keeps_every_line_and_character(lines: list[str], limit: int):
    text = "\n".join(lines)
    pieces = split_message(text, limit)
    assert all(len(p) <= limit for p in pieces)
    if len(text) <= limit:
        assert pieces == [text]
        return
    assert all(p.strip() for p in pieces)
    # Every non-space character, in order (only spaces at a cut and blank lines go).
    assert "".join("".join(pieces).split()) == "".join(text.split())
    # A line that fits a message is never cut.
    for line in text.split("\n"):
        if line.strip() and len(line) <= limit:
            assert any(line in p.split("\n") for p in pieces)
