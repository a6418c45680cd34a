"""After the game: the score chart and best castles, and the turn review (issue 36).

Discord-free, like the other services. The numbers come from the game's record,
replayed by the engine (``engine.summary``, ``engine.ai.review``); the chart is drawn
by ``renderer.chart``. Both run in the worker processes when there are any
(``bot.workers``), so the event loop never waits for them; a review is sent there
one decision at a time, so a computer player's move queued meanwhile waits for one
decision's review (a few tenths of a second) at most, never for a whole game's.

Reviews are kept in memory (the last ``_KEPT``) so that paging is instant; after a
restart the first press computes the review again, the same one (fixed seed: the
game's number).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from bot.core.errors import NoGame, NotAllowed
from bot.core.panel import describe_all
from bot.core.past_games import server_game, stored_record
from bot.core.service import Lru, picture_labels, public_action
from bot.core.workers import WorkerPool
from bot.db.contract import GameStore
from bot.db.rows import GameRow, SeatRow
from bot.texts import review as words
from bot.texts.i18n import DEFAULT, t
from engine import Game, changed_squares
from engine.ai.review import (
    NODES,
    SAMPLES,
    DecisionReview,
    View,
    player_views,
    review_decision,
    swings,
)
from engine.record import Record, replay

log = logging.getLogger(__name__)

T = TypeVar("T")
_KEPT = 32  # reviews kept for paging
_CHART = "chart.png"


@dataclass(frozen=True, slots=True)
class Picture:
    """A board picture for the client to draw (``bot.client.replies.picture_file``)."""

    position: dict[str, Any]
    highlight: frozenset[str]
    note: str
    labels: dict[str, str]


@dataclass(slots=True)
class Summary:
    """A finished game's chart (PNG bytes) and its words."""

    png: bytes
    castles: str  # per player, the castles that scored most
    text: str  # /torres review game:N's answer
    alt: str  # the chart's description (alt text): final scores, phase scorings, king's castle
    filename: str = _CHART


@dataclass(slots=True)
class ReviewPage:
    """One page of a turn review: 0 is the swings list, 1..pages-1 a decision each."""

    game_id: int
    seat: str
    page: int
    pages: int
    text: str
    pictures: list[Picture] = field(default_factory=list)


def chart_job(
    record: Record, title: str, labels: dict[str, str], language: str
) -> tuple[bytes, dict[str, Any], dict[str, int], list[tuple[int, int, int]]]:
    """In a worker: the chart's PNG, each player's best castles, the final scores and
    the phase scorings as ``(phase, decision, king's castle size then)``."""
    from engine.summary import score_track
    from renderer.chart import score_chart

    track = score_track(record)
    png = score_chart(track, title=title, labels=labels, language=language)
    scorings = [(phase, n, track.king_castle[n]) for phase, n in track.scorings]
    return png, {p: track.best(p) for p in track.players}, track.scores[-1], scorings


def decisions_job(record: Record, player: str) -> list[View]:
    """In a worker: *player*'s views before and after each of their decisions."""
    return player_views(record, player)


def decision_job(
    before: dict[str, Any],
    after: dict[str, Any],
    played: tuple[str, ...],
    player: str,
    number: int,
    seed: int,
    nodes: int,
    samples: int,
) -> DecisionReview:
    """In a worker: one decision's review (``engine.ai.review.review_decision``)."""
    return review_decision(
        before, after, played, player, number=number, seed=seed, nodes=nodes, samples=samples
    )


class Reviews:
    """Game summaries and turn reviews of this server's finished games."""

    def __init__(
        self,
        store: GameStore,
        workers: WorkerPool | None = None,
        *,
        nodes: int = NODES,
        samples: int = SAMPLES,
    ) -> None:
        self._store = store
        self._workers = workers
        self.nodes = nodes
        self.samples = samples
        self._reviews: Lru[tuple[int, str], list[DecisionReview]] = Lru(_KEPT)
        self._running: dict[tuple[int, str], asyncio.Future[list[DecisionReview]]] = {}
        # One decision's review in the workers at a time, whoever asked for how many.
        self._slot = asyncio.Semaphore(1)

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        if self._workers is not None:
            return await self._workers.run(fn, *args)
        return await asyncio.get_running_loop().run_in_executor(None, fn, *args)

    # -- the chart ------------------------------------------------------------------

    async def summary(self, game_id: int, lang: str = DEFAULT) -> Summary:
        """Game *game_id*'s chart and best castles, in *lang* (the final post's: the game's)."""
        row = await self._store.game(game_id)
        if row is None or row.initial is None:
            raise NoGame(f"Game #{game_id} never started.")
        seats = await self._store.seats(game_id)
        return await self._summary(row, seats, lang)

    async def _summary(self, row: GameRow, seats: Sequence[SeatRow], lang: str) -> Summary:
        record = await stored_record(self._store, row, seats)
        png, best, final, scorings = await self._run(
            chart_job, record, words.chart_title(row.id, lang), picture_labels(seats, lang), lang
        )
        castles = words.best_castles(best, seats, lang)
        alt = words.chart_alt(row.id, seats, final, scorings, lang)
        return Summary(png, castles, words.summary_text(row.id, seats, castles, lang), alt)

    async def chart(
        self, *, channel_id: int, guild_id: int | None, game_id: int | None, lang: str = DEFAULT
    ) -> Summary:
        """``/torres review game:N``: the chart of a finished game of this server."""
        row, seats = await self._finished(channel_id, guild_id, game_id, lang)
        return await self._summary(row, seats, lang)

    async def _finished(
        self, channel_id: int, guild_id: int | None, game_id: int | None, lang: str
    ) -> tuple[GameRow, list[SeatRow]]:
        row = await self._pick(channel_id, guild_id, game_id, lang)
        if row.status == "cancelled":
            raise NotAllowed(
                t(
                    lang,
                    "Game #{game} was cancelled: it has no end to review "
                    "(`/torres board game:{game}` shows its positions).",
                    game=row.id,
                )
            )
        if row.status != "over" or row.initial is None:
            raise NotAllowed(
                t(
                    lang,
                    "Game #{game} has not finished: it can be reviewed once it is over "
                    "(`/torres history` lists the finished games).",
                    game=row.id,
                )
            )
        return row, list(await self._store.seats(row.id))

    async def _pick(
        self, channel_id: int, guild_id: int | None, game_id: int | None, lang: str
    ) -> GameRow:
        """Game *game_id* of this server; without a number, this channel's last finished
        one (a game running in the channel meanwhile has nothing to review yet)."""
        if game_id is None:
            past = await self._store.past_games(channel_id=channel_id, limit=1)
            if not past:
                raise NoGame(
                    t(
                        lang,
                        "No Torres game has ended in this channel yet. Name one with "
                        "`/torres review game:N` (`/torres history` lists them).",
                    )
                )
            return past[0]
        return await server_game(self._store, lang, game_id, guild_id)

    # -- the turn review ------------------------------------------------------------

    async def page(
        self,
        *,
        channel_id: int,
        guild_id: int | None,
        game_id: int | None,
        user_id: int | None = None,
        seat: str | None = None,
        page: int = 0,
        lang: str = DEFAULT,
        asker: int | None = None,
    ) -> ReviewPage:
        """A page of the review of a player's decisions (the player by user or seat).

        *asker*: who reads it; unless it is the reviewed player, the cards they kept
        from a personal draw stay unsaid, as in the game's public posts.
        """
        row, seats = await self._finished(channel_id, guild_id, game_id, lang)
        mine = next(
            (
                s
                for s in seats
                if s.name and (s.name == seat or (seat is None and s.user_id == user_id))
            ),
            None,
        )
        if mine is None or mine.name is None:
            raise NotAllowed(
                t(
                    lang,
                    "That player has no seat in game #{game}; name one who played it.",
                    game=row.id,
                )
            )
        own = asker is not None and mine.user_id == asker
        reviews = await self.reviews(row, seats, mine.name)
        pages = len(reviews) + 1
        page = max(0, min(page, pages - 1))
        if page == 0:
            text = words.review_front(row.id, mine, reviews, swings(reviews), lang, own=own)
            return ReviewPage(row.id, mine.name, 0, pages, text)
        r = reviews[page - 1]
        record = await stored_record(self._store, row, seats)
        before = replay(record, r.number - 1)
        world = Game.from_position(r.world)
        text = words.review_page(
            row.id,
            r,
            page,
            pages - 1,
            describe_all(list(r.played), before, lang=lang, public=not own),
            describe_all(list(r.suggested), world, lang=lang) if r.suggested else "",
            lang,
            played=r.played if own else [public_action(a) for a in r.played],
        )
        labels = picture_labels(seats, lang)
        start = before.position()
        pictures = [
            Picture(
                r.position,
                frozenset(changed_squares(start, r.position)),
                words.played_note(lang),
                labels,
            )
        ]
        if r.swing and r.suggested_position is not None:
            pictures.append(
                Picture(
                    r.suggested_position,
                    frozenset(changed_squares(start, r.suggested_position)),
                    words.suggested_note(lang),
                    labels,
                )
            )
        return ReviewPage(row.id, mine.name, page, pages, text, pictures)

    async def reviews(
        self, row: GameRow, seats: Sequence[SeatRow], player: str
    ) -> list[DecisionReview]:
        """Every decision of *player* reviewed (kept; computed once at a time per player)."""
        key = (row.id, player)
        kept = self._reviews.get(key)
        if kept is not None:
            return kept
        running = self._running.get(key)
        if running is None:
            running = asyncio.ensure_future(self._review(row, seats, player))
            self._running[key] = running
            running.add_done_callback(lambda _: self._running.pop(key, None))
        return await asyncio.shield(running)

    async def _review(
        self, row: GameRow, seats: Sequence[SeatRow], player: str
    ) -> list[DecisionReview]:
        record = await stored_record(self._store, row, seats)
        views = await self._run(decisions_job, record, player)
        out = []
        for number, before, after, played in views:
            # One decision a job, one job at a time: a computer move queued meanwhile
            # waits for one decision's review at most, however many reviews run.
            async with self._slot:
                out.append(
                    await self._run(
                        decision_job,
                        before,
                        after,
                        played,
                        player,
                        number,
                        row.id,
                        self.nodes,
                        self.samples,
                    )
                )
        self._reviews[(row.id, player)] = out
        return out
