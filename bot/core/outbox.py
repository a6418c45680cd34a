"""Delivery of public posts: in order per game, retried until Discord takes them.

Posts that report a committed change (turn messages, resignations, the game's
end and its replay) are rows of the ``outbox`` table, written in the same
transaction as the change. A worker per game sends that game's unsent rows
oldest first, so a message that Discord refused for a while (429, 5xx, a lost
connection) or that a crash left unsent is posted before anything committed
after it, however late. Each row is posted once: it is marked sent after
Discord took it, and a repeat after a crash carries the same nonce, which makes
Discord return the message it already has. Only a 403/404 (the bot may not post
there) or another 4xx (Discord will never take the message) ends the attempts.

Posts with nothing to keep (lobby notes) wait in memory in the same per-game
order and are retried the same way while the process lives. A post that reports
several queued rows at once (consecutive computer decisions, ``Post.merged``) is
sent when the first of them is due and marks them all.
"""

from __future__ import annotations

import asyncio
import bisect
import logging
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import replace
from typing import Any

from bot.core.service import Post
from bot.db.contract import GameStore
from bot.texts.i18n import t

log = logging.getLogger(__name__)

POSTED = "posted"
FORBIDDEN = "forbidden"  # 403/404: the bot may not post in that channel
REJECTED = "rejected"  # another 4xx: Discord will never take this message
RETRY = "retry"  # 429, 5xx, connection trouble: try again

RETRY_FIRST = 0.5  # seconds before the first retry; doubled each time
RETRY_MAX = 30.0
_REMEMBER = 2048  # finished outbox ids kept to answer a late submit()

Send = Callable[[Post, bool], Awaitable[str]]


class Poster:
    """Sends posts for the bot; see the module docstring for the guarantees."""

    def __init__(self, store: GameStore, send: Send, *, started: float | None = None) -> None:
        self._store = store
        self._send = send
        # Rows queued before this process started are announced as late.
        self.started = time.time() if started is None else started
        self._memory: dict[int, deque[tuple[Post, asyncio.Future[str]]]] = {}
        self._waiters: dict[int, list[asyncio.Future[str]]] = {}
        self._finished: OrderedDict[int, str] = OrderedDict()
        self._workers: dict[int, asyncio.Task[None]] = {}
        self._again: set[int] = set()  # games kicked while their worker was reading
        self._bundles: dict[int, Post] = {}  # outbox id -> the merged post that reports it
        # Games whose computer players are moving: their stored rows wait for the one
        # merged post (``hold``), so that no decision is posted alone and then again.
        self._held: set[int] = set()
        # Posted, but marking the row sent failed (e.g. the database was busy): never
        # post these again; mark them when the database lets us.
        self._unmarked: dict[int, Post] = {}
        self._marking = False  # a mark_pending pass is running
        # Each worker's rows from its last read of the outbox, not yet delivered: read
        # again only when the game was kicked since (this process queues every row it
        # commits with submit(), which kicks; rows left by a crash, by the background
        # resume()), so a post costs no second read to find that nothing follows it.
        # A submitted post that says which rows came before it (``Post.earlier``), all
        # known here, joins this list with no read at all (``_follows_known``).
        self._rows: dict[int, list[tuple[int, float, dict[str, Any]]]] = {}
        self._reading: set[int] = set()  # games whose worker is reading the outbox
        self._marks: list[tuple[Post, asyncio.Future[None]]] = []  # for the next round trip
        self._marker: asyncio.Task[None] | None = None

    def submit(self, post: Post) -> asyncio.Future[str]:
        """Queue *post*; the future ends with POSTED, FORBIDDEN or REJECTED (never RETRY)."""
        fut: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        if post.outbox_id is None:
            self._memory.setdefault(post.game_id, deque()).append((post, fut))
        elif post.outbox_id in self._finished:
            fut.set_result(self._finished[post.outbox_id])
        else:
            self._waiters.setdefault(post.outbox_id, []).append(fut)
            if post.merged:
                for member in _members(post):
                    self._bundles[member] = post
            elif self._follows_known(post):
                self._queue_known(post)
                return fut
        self.kick(post.game_id)
        return fut

    def _follows_known(self, post: Post) -> bool:
        """Whether every row queued before *post* is one this process already knows.

        Then the outbox holds nothing for the game that the worker's list lacks, and
        the post joins that list without a read. Not while a read is under way (its
        answer replaces the list) nor while the game is held or due a read anyway.
        """
        game_id = post.game_id
        if (
            post.earlier is None
            or game_id in self._reading
            or game_id in self._held
            or game_id in self._again
        ):
            return False
        listed = {r[0] for r in self._rows.get(game_id, ())}
        return all(i in self._finished or i in self._unmarked or i in listed for i in post.earlier)

    def _queue_known(self, post: Post) -> None:
        assert post.outbox_id is not None
        rows = self._rows.setdefault(post.game_id, [])
        bisect.insort(rows, (post.outbox_id, time.time(), post.to_payload()), key=lambda r: r[0])
        self._start_worker(post.game_id)  # no read: not marked in _again

    def hold(self, game_id: int) -> None:
        """Keep the game's stored rows that nobody submitted until :meth:`release`.

        Called while computer players move: their decisions are committed one by one
        and then submitted as one merged post; a worker woken meanwhile (by the human's
        own post) must not post them one by one first.
        """
        self._held.add(game_id)

    def release(self, game_id: int) -> None:
        self._held.discard(game_id)
        self.kick(game_id)

    def kick(self, game_id: int) -> None:
        """Make sure a worker is sending the game's posts."""
        self._again.add(game_id)
        self._start_worker(game_id)

    def _start_worker(self, game_id: int) -> None:
        task = self._workers.get(game_id)
        if task is None or task.done():
            self._workers[game_id] = asyncio.create_task(
                self._work(game_id), name=f"torres-posts-{game_id}"
            )

    async def resume(
        self,
        *,
        skip: Iterable[int] = (),
        mine: Callable[[int], Awaitable[bool]] | None = None,
    ) -> None:
        """Start workers for every game with unsent rows (at start-up and now and then).

        Games in *skip* (their computer players are still moving and will submit
        one merged post) are left alone, and so are games for which *mine* says
        no (another process's shard: that process posts them).
        """
        await self.mark_pending()
        leave = set(skip)
        for game_id in await self._store.games_with_unsent():
            if game_id not in leave and (mine is None or await mine(game_id)):
                self.kick(game_id)

    async def mark_pending(self) -> None:
        """Mark sent the rows that were posted while the database refused the mark.

        One pass at a time: every game's worker calls this, and under load many at
        once; the others go on with their own posts meanwhile (a row left
        unmarked is never posted again, see ``_next``).
        """
        if self._marking:
            return
        self._marking = True
        try:
            for outbox_id, post in list(self._unmarked.items()):
                if outbox_id not in self._unmarked:
                    continue
                try:
                    await self._mark(post)
                except Exception as exc:  # noqa: BLE001 - logged; tried again later
                    log.warning("post %s is still not marked sent (%s)", outbox_id, exc)
                    return
                self._unmarked.pop(outbox_id, None)
        finally:
            self._marking = False

    async def close(self) -> None:
        tasks = list(self._workers.values())
        if self._marker is not None:
            tasks.append(self._marker)  # unmarked rows are posted again, with the same nonce
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

    @property
    def busy(self) -> bool:
        """Whether any worker is still sending (for tests and shutdown)."""
        return any(not t.done() for t in self._workers.values())

    # -- the worker ---------------------------------------------------------------

    async def _work(self, game_id: int) -> None:
        delay = RETRY_FIRST
        while True:
            try:
                fresh = game_id in self._again
                self._again.discard(game_id)
                if self._unmarked:
                    await self.mark_pending()
                item = await self._next(game_id, fresh=fresh)
                if item is None:
                    if game_id in self._again:  # something was queued while we looked
                        continue
                    self._rows.pop(game_id, None)
                    # Forgotten when done: one entry per game ever played added up.
                    if self._workers.get(game_id) is asyncio.current_task():
                        del self._workers[game_id]
                    return
                post, late = item
                try:
                    result = await self._send(post, late)
                except Exception:  # a bug while building the message: log it and try again
                    log.exception("posting in game %s failed", game_id)
                    result = RETRY
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # noqa: BLE001 - e.g. the database is busy: try again
                log.warning("the posts of game %s wait (%s)", game_id, exc)
                result = RETRY
                post = None  # type: ignore[assignment]
            if result == RETRY:
                await asyncio.sleep(delay)
                delay = min(delay * 2, RETRY_MAX)
                continue
            delay = RETRY_FIRST
            await self._done(post, result)

    async def _next(self, game_id: int, *, fresh: bool = True) -> tuple[Post, bool] | None:
        """The oldest undelivered post of the game: queued rows first, then memory.

        The rows are read from the database when *fresh* (the game was kicked since
        the last read) or never read yet; else the rest of the last read serves.
        """
        rows = self._rows.get(game_id)
        if fresh or rows is None:
            self._reading.add(game_id)
            try:
                rows = await self._store.unsent(game_id)
            finally:
                self._reading.discard(game_id)
        # Delivered since the read (a merged post delivers several rows at once).
        rows = [r for r in rows if r[0] not in self._finished]
        self._rows[game_id] = rows
        for outbox_id, created_at, payload in rows:
            if outbox_id in self._unmarked:
                continue
            bundle = self._bundles.get(outbox_id)
            if game_id in self._held and bundle is None and outbox_id not in self._waiters:
                return None  # a computer's decision: it goes out in the merged post, in order
            post = replace(bundle) if bundle else Post.from_payload(payload, outbox_id)
            late = created_at < self.started
            if late and post.turn is not None:
                # Its turn may be over by now: then its buttons would only be stale,
                # and the player it names has played since, so nobody is pinged.
                row = await self._store.game(game_id)
                if row is None or row.status != "running" or row.turn_no != post.turn:
                    post.buttons = ()
                    post.turn = None
                    post.mentions = ()
            return post, late
        queue = self._memory.get(game_id)
        if queue:
            return queue[0][0], False
        self._memory.pop(game_id, None)
        return None

    async def _done(self, post: Post, result: str) -> None:
        if post.outbox_id is None:
            queue = self._memory.get(post.game_id)
            if queue and queue[0][0] is post:
                _, fut = queue.popleft()
                if not fut.done():
                    fut.set_result(result)
            return
        members = [*post.merged, post]
        for member in members:
            if member.outbox_id is None:
                continue
            self._bundles.pop(member.outbox_id, None)
            self._finished[member.outbox_id] = result
            for fut in self._waiters.pop(member.outbox_id, []):
                if not fut.done():
                    fut.set_result(result)
        while len(self._finished) > _REMEMBER:
            self._finished.popitem(last=False)
        for member in members:
            if member.outbox_id is None:
                continue
            try:
                await self._mark(member)
            except Exception as exc:  # noqa: BLE001 - posted all the same; marked later
                log.warning("post %s was sent but not yet marked sent (%s)", member.outbox_id, exc)
                self._unmarked[member.outbox_id] = member

    async def _mark(self, post: Post) -> None:
        """Mark a row sent; a game's last message is followed by its replay, queued with the mark.

        Other marks share a round trip: those asked for while one is on its way go
        together in the next (no waiting added when the database keeps up).
        """
        assert post.outbox_id is not None
        if not post.replay:
            fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
            self._marks.append((post, fut))
            if self._marker is None or self._marker.done():
                self._marker = asyncio.create_task(self._mark_many(), name="torres-marks")
            await fut
            return
        then = [replay_post(post).to_payload()]
        await self._store.mark_sent(post.outbox_id, time.time(), then=then, meta=post.meta)
        self.kick(post.game_id)  # a row queued here, not submitted: the game's worker reads it

    async def _mark_many(self) -> None:
        while self._marks:
            batch, self._marks = self._marks, []
            meta: dict[str, str] = {}
            for post, _ in batch:
                meta.update(post.meta)
            try:
                await self._store.mark_many_sent(
                    [p.outbox_id for p, _ in batch if p.outbox_id is not None],
                    time.time(),
                    meta=meta,
                )
            except Exception as exc:  # noqa: BLE001 - each waiter notes its post unmarked
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(exc)
            else:
                for _, fut in batch:
                    if not fut.done():
                        fut.set_result(None)


def _members(post: Post) -> list[int]:
    """The outbox ids a post reports: its own and those of the posts merged into it."""
    return [p.outbox_id for p in [*post.merged, post] if p.outbox_id is not None]


def replay_post(after: Post) -> Post:
    """The message carrying ``replay.gif``, drawn from the log when it is sent.

    It speaks the game's language, like the game-over message it follows.
    """
    return Post(
        channel_id=after.channel_id,
        game_id=after.game_id,
        text=t(
            after.language,
            "Game #{game} from the first knight to the last turn: `replay.gif`.",
            game=after.game_id,
        ),
        animation=True,
        language=after.language,
    )
