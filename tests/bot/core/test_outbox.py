"""The outbox worker: order, retries, permanent refusals, late posts, the replay after game over."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from typing import Any

import pytest

import bot.core.outbox
from bot.core.outbox import FORBIDDEN, POSTED, RETRY, Poster
from bot.core.service import Post
from bot.db.sqlite import Store


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch):
    monkeypatch.setattr(bot.core.outbox, "RETRY_FIRST", 0.01)


async def _store_with_posts(path: str, texts: list[str], now: float) -> tuple[Store, list[int]]:
    store = await Store.open(path)
    game_id = await store.create_game(
        guild_id=1, channel_id=5, author_id=1, author_display="Ann", seats_wanted=2, bots=0,
        variant="common", seed=1, reminder_interval=60.0, reminder_limit=1,
        idle_cancel_after=60.0, now=now,
    )  # fmt: skip
    posts = [Post(5, game_id, text).to_payload() for text in texts]
    ids = await store.start_game(game_id, seats=[], initial={}, now=now, outbox=posts)
    return store, ids


async def settled(poster: Poster) -> None:
    while poster.busy:
        await asyncio.sleep(0.01)


def _counting_reads(store: Store) -> tuple[list[int], Any]:
    """Make *store* note each game whose outbox is read; returns the notes and the real read."""
    reads: list[int] = []
    unsent = store.unsent

    async def counted(game_id: int) -> list[tuple[int, float, dict[str, Any]]]:
        reads.append(game_id)
        return await unsent(game_id)

    store.unsent = counted  # type: ignore[method-assign]
    return reads, unsent


class Discord:
    """A send() whose answers the test scripts: RETRY a few times, then POSTED."""

    def __init__(self, answers: dict[str, list[str]] | None = None) -> None:
        self.answers = answers or {}
        self.tries: list[str] = []
        self.posted: list[tuple[str, bool]] = []

    async def send(self, post: Post, late: bool) -> str:
        self.tries.append(post.text)
        queue = self.answers.get(post.text)
        answer = queue.pop(0) if queue else POSTED
        if answer == POSTED:
            self.posted.append((post.text, late))
        return answer


async def test_posts_go_out_in_order_and_a_failing_one_holds_back_the_rest(tmp_path):
    """A message Discord refuses for a while is retried; the later ones wait behind it."""
    store, ids = await _store_with_posts(str(tmp_path / "t.db"), ["one", "two", "three"], 1.0)
    discord = Discord({"one": [RETRY, RETRY, RETRY]})
    poster = Poster(store, discord.send, started=0.0)
    results = await asyncio.gather(*(poster.submit(Post(5, 1, "", outbox_id=i)) for i in ids))
    assert results == [POSTED] * 3
    await settled(poster)
    assert discord.posted == [("one", False), ("two", False), ("three", False)]
    assert discord.tries == ["one"] * 4 + ["two", "three"]
    assert await store.unsent(1) == []
    await store.close()


async def test_the_worker_reads_the_outbox_again_only_when_kicked(tmp_path):
    """Posting a game's rows costs one read, not one more after each post to see that
    nothing follows; a row submitted meanwhile is read and posted too."""
    store, ids = await _store_with_posts(str(tmp_path / "t.db"), ["one", "two"], 1.0)
    reads, unsent = _counting_reads(store)
    discord = Discord()
    poster = Poster(store, discord.send, started=0.0)
    assert await poster.submit(Post(5, 1, "", outbox_id=ids[0])) == POSTED
    await settled(poster)
    assert discord.posted == [("one", False), ("two", False)] and reads == [1]
    with sqlite3.connect(tmp_path / "t.db") as db:  # a row committed after the worker's read
        three = db.execute(
            "INSERT INTO outbox (game_id, created_at, payload) VALUES (1, 2.0, ?)",
            (json.dumps(Post(5, 1, "three").to_payload()),),
        ).lastrowid
    assert three is not None
    assert await poster.submit(Post(5, 1, "", outbox_id=three)) == POSTED
    await settled(poster)
    assert [text for text, _ in discord.posted] == ["one", "two", "three"] and len(reads) == 2
    assert await unsent(1) == []
    await store.close()


async def test_a_post_whose_earlier_rows_are_known_needs_no_read(tmp_path):
    """``Post.earlier`` (the game's unsent rows at its commit, from ``record``): when
    the poster knows each of them, the post joins its list without reading the outbox;
    when one is news to it (left by a crash, queued by another process), it reads, and
    that row goes out first."""
    store, ids = await _store_with_posts(str(tmp_path / "t.db"), ["one", "two", "three"], 1.0)
    reads, unsent = _counting_reads(store)
    discord = Discord({"one": [RETRY]})
    poster = Poster(store, discord.send, started=0.0)
    first = poster.submit(Post(5, 1, "one", outbox_id=ids[0], earlier=()))
    second = poster.submit(Post(5, 1, "two", outbox_id=ids[1], earlier=(ids[0],)))
    assert await asyncio.gather(first, second) == [POSTED, POSTED]
    assert reads == []  # "one" was retried, "two" waited behind it: no read either way
    # "three" is news to the poster: a post that follows it reads, and "three" goes first.
    with sqlite3.connect(tmp_path / "t.db") as db:
        four = db.execute(
            "INSERT INTO outbox (game_id, created_at, payload) VALUES (1, 2.0, ?)",
            (json.dumps(Post(5, 1, "four").to_payload()),),
        ).lastrowid
    assert four is not None
    assert await poster.submit(Post(5, 1, "four", outbox_id=four, earlier=(ids[2],))) == POSTED
    await settled(poster)
    assert [text for text, _ in discord.posted] == ["one", "two", "three", "four"]
    assert reads == [1]
    assert await unsent(1) == []
    await store.close()


async def test_a_forbidden_post_is_given_up_and_reported(tmp_path):
    store, [only] = await _store_with_posts(str(tmp_path / "t.db"), ["one"], 1.0)
    discord = Discord({"one": [FORBIDDEN]})
    poster = Poster(store, discord.send, started=0.0)
    assert await poster.submit(Post(5, 1, "", outbox_id=only)) == FORBIDDEN
    await settled(poster)
    assert discord.tries == ["one"] and await store.unsent(1) == []
    await store.close()


async def test_after_a_restart_every_left_post_goes_out_late_then_the_replay(tmp_path):
    """Rows of an earlier process are posted (late), none dropped; a game-over post brings its replay."""
    store, ids = await _store_with_posts(str(tmp_path / "t.db"), ["turn 5", "turn 6"], 1.0)
    over = Post(5, 1, "Game over", replay=True).to_payload()
    await store.record(
        1, expected_seq=0, player="red", user_id=1, kind="play", action="end",
        position={}, turn_ended=True, result=None, now=2.0, outbox=[over],
    )  # fmt: skip
    discord = Discord()
    poster = Poster(store, discord.send, started=10.0)  # started after all three were queued
    await poster.resume()
    await settled(poster)
    assert discord.posted[:3] == [("turn 5", True), ("turn 6", True), ("Game over", True)]
    assert [text for text, _ in discord.posted[3:]] == [
        "Game #1 from the first knight to the last turn: `replay.gif`."
    ]
    assert await store.unsent(1) == []
    await store.close()


async def test_a_post_whose_mark_fails_is_not_posted_again(tmp_path, monkeypatch):
    """Posted, then the database refuses the mark: marked later, never re-sent."""
    store, [only] = await _store_with_posts(str(tmp_path / "t.db"), ["one"], 1.0)
    failures = [RuntimeError("database is locked")] * 2  # the post, and the worker's next pass

    def flaky(real):
        async def marking(*args, **kwargs):
            if failures:
                raise failures.pop()
            return await real(*args, **kwargs)

        return marking

    monkeypatch.setattr(store, "mark_sent", flaky(store.mark_sent))
    monkeypatch.setattr(store, "mark_many_sent", flaky(store.mark_many_sent))
    discord = Discord()
    poster = Poster(store, discord.send, started=0.0)
    assert await poster.submit(Post(5, 1, "", outbox_id=only)) == POSTED
    await settled(poster)
    assert [i for i, _, _ in await store.unsent(1)] == [only]  # posted, not yet marked
    await poster.resume()  # the background pass
    assert await store.unsent(1) == [] and discord.tries == ["one"]
    await store.close()


async def test_marks_asked_for_while_one_is_on_its_way_share_the_next_round_trip(tmp_path):
    """Three games' posts: the first mark goes alone; the two asked for while it is on
    its way go together in the next; every row ends marked, the turn-message notes too."""
    store = await Store.open(str(tmp_path / "t.db"))
    ids = []
    for channel in (5, 6, 7):
        game_id = await store.create_game(
            guild_id=1, channel_id=channel, author_id=1, author_display="Ann", seats_wanted=2,
            bots=0, variant="common", seed=1, reminder_interval=60.0, reminder_limit=1,
            idle_cancel_after=60.0, now=1.0,
        )  # fmt: skip
        payload = Post(channel, game_id, f"g{game_id}").to_payload()
        ids += await store.start_game(game_id, seats=[], initial={}, now=1.0, outbox=[payload])
    calls: list[list[int]] = []
    gate = asyncio.Event()
    real = store.mark_many_sent

    async def slow(outbox_ids, now, *, meta=None):
        calls.append(list(outbox_ids))
        if len(calls) == 1:
            await gate.wait()
        await real(outbox_ids, now, meta=meta)

    store.mark_many_sent = slow  # type: ignore[method-assign]

    async def send(post: Post, late: bool) -> str:  # as TorresBot.send_post notes a turn message
        post.meta[f"turn_message:{post.game_id}"] = f"{post.channel_id}:{post.game_id}"
        return POSTED

    poster = Poster(store, send, started=0.0)
    await poster.submit(Post(5, 1, "", outbox_id=ids[0]))
    while not calls:
        await asyncio.sleep(0.01)
    later = [
        poster.submit(Post(6, 2, "", outbox_id=ids[1])),
        poster.submit(Post(7, 3, "", outbox_id=ids[2])),
    ]
    await asyncio.gather(*later)
    await asyncio.sleep(0.05)
    assert calls == [[ids[0]]]  # the others wait for the first round trip
    gate.set()
    await settled(poster)
    assert calls == [[ids[0]], [ids[1], ids[2]]]
    assert [await store.unsent(g) for g in (1, 2, 3)] == [[], [], []]
    assert [await store.get_meta(f"turn_message:{g}") for g in (1, 2, 3)] == ["5:1", "6:2", "7:3"]
    await store.close()


async def test_consecutive_computer_decisions_go_out_as_one_message(tmp_path):
    """A merged post is sent when its first row is due and marks every row it reports."""
    from bot.core.batch import merge_posts

    store, ids = await _store_with_posts(str(tmp_path / "t.db"), ["a", "b", "c"], 1.0)
    discord = Discord()
    poster = Poster(store, discord.send, started=0.0)
    posts = [
        Post(5, 1, f"**{t}** played `x`", outbox_id=i) for t, i in zip("abc", ids, strict=True)
    ]
    assert await poster.submit(merge_posts(posts)) == POSTED
    await settled(poster)
    assert len(discord.posted) == 1 and discord.posted[0][0].count("played") == 3
    assert await store.unsent(1) == []
    await store.close()


async def test_a_held_game_posts_only_what_was_submitted_then_the_merged_post(tmp_path):
    """While computers move (hold), their committed rows are not posted one by one by a
    worker the human's post woke: the human's row goes out, then the one merged post
    reporting the computers' rows, each decision once."""
    from bot.core.batch import merge_posts

    store, (human, ai1, ai2) = await _store_with_posts(
        str(tmp_path / "t.db"), ["human", "ai one", "ai two"], 1.0
    )
    discord = Discord()
    poster = Poster(store, discord.send, started=0.0)
    poster.hold(1)
    assert await poster.submit(Post(5, 1, "human", outbox_id=human)) == POSTED
    await settled(poster)
    assert discord.posted == [("human", False)]
    merged = merge_posts([Post(5, 1, "ai one", outbox_id=ai1), Post(5, 1, "ai two", outbox_id=ai2)])
    sent = poster.submit(merged)
    poster.release(1)
    assert await sent == POSTED
    await settled(poster)
    assert discord.posted == [("human", False), ("ai one\nai two", False)]
    assert await store.unsent(1) == []
    await store.close()
