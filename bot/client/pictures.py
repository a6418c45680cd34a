"""The board pictures and the replay animation: rendered off the event loop (threads, or
the worker processes), with their alt text from the same reading of the position."""

from __future__ import annotations

import asyncio
import itertools
import logging
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from bot.core.workers import WorkerPool
from bot.texts.i18n import DEFAULT
from bot.texts.markup import ALT_TEXT_LIMIT, cut_end
from engine import changed_squares

if TYPE_CHECKING:
    from renderer import BoardView

log = logging.getLogger(__name__)


def _alt_or_none(view: BoardView) -> str | None:
    """The picture's description for screen readers, cut to the 1,024 characters
    Discord allows; None if it could not be made (the picture goes without it)."""
    from renderer import describe_view

    try:
        text = describe_view(view)
    except Exception:
        log.exception("could not describe the board picture")
        return None
    return cut_end(text, ALT_TEXT_LIMIT)


def _png_and_alt(
    position: dict[str, Any],
    viewer: str | None,
    highlight: list[str],
    note: str | None,
    labels: dict[str, str] | None,
    language: str,
) -> tuple[bytes, str | None]:
    """The PNG and ``_alt_or_none``, with the position read through the engine once
    for both."""
    from renderer import read_view, view_png

    view = read_view(
        position, viewer, highlight, highlight_note=note, labels=labels, language=language
    )
    return view_png(view), _alt_or_none(view)


def _animate_gif(positions: list[dict[str, Any]], language: str = DEFAULT) -> bytes:
    from renderer.replay import animate

    highlights: list[list[str]] = [[]] + [
        changed_squares(a, b) for a, b in itertools.pairwise(positions)
    ]
    return animate(positions, highlights, language=language)


class Renderer:
    """Draws board pictures off the event loop: in processes of their own (the bot's
    default) or in worker threads.

    A picture (PNG and alt text) costs ~5 ms of CPU, of which ~2-3 ms hold the
    interpreter lock (laying out and pasting; the deflate lets go of it). In a
    thread that made the event loop wait for the lock at every socket call under
    load; in processes it does not (docs/bot.md, section 8: processes answered
    faster at 50 and at 200 games).
    """

    def __init__(self, threads: int, workers: WorkerPool | None = None, processes: int = 0) -> None:
        """*processes* > 0: draw in that many processes of their own, else in *threads*
        threads (``TORRES_RENDER_PROCESSES``, ``TORRES_RENDER_THREADS``)."""
        self._pool = ThreadPoolExecutor(max_workers=max(1, threads), thread_name_prefix="render")
        self._processes = WorkerPool(processes) if processes > 0 else None
        # Replays (dozens of frames, ~0.6 s of CPU) go to the worker processes when
        # there are any, else to a thread of their own, so that a game's end never
        # queues the other games' turn pictures behind it.
        self._workers = workers
        self._replays = ThreadPoolExecutor(max_workers=1, thread_name_prefix="replay")
        # Replays drawn at once (held around building the frames and drawing them): with
        # worker processes, one fewer than there are, so a burst of game ends (a
        # stress test queued hundreds) never queues the computer players' thinking
        # behind them in the shared pool, and waiting replays hold no frames in memory.
        slots = max(1, workers.processes - 1) if workers is not None else 1
        self.replays = asyncio.Semaphore(slots)

    async def start(self) -> None:
        """Import the renderer and fill its caches now rather than during the first turn."""
        await asyncio.get_running_loop().run_in_executor(self._pool, _import_renderer)
        if self._processes is not None:
            await asyncio.gather(
                *(self._processes.run(_import_renderer) for _ in range(self._processes.processes))
            )

    async def picture(
        self,
        position: dict[str, Any],
        viewer: str | None,
        highlight: Iterable[str],
        note: str | None = None,
        labels: dict[str, str] | None = None,
        language: str = DEFAULT,
    ) -> tuple[bytes, str | None]:
        """The PNG and its description (``alt_text``, None if that failed): *labels* name
        the seats as the players know each other (display names); *language* is the
        game's for a public picture, the asker's for a private one. Both are drawn off
        the event loop in one job (one hand-off a picture), in a render process or a
        thread. (The description in a thread beside the process held the interpreter
        lock against the loop: handing it over cost the loop ~5% at 200 games.)"""
        args = (position, viewer, sorted(highlight), note, labels, language)
        if self._processes is None:
            loop = asyncio.get_running_loop()
            return await loop.run_in_executor(self._pool, _png_and_alt, *args)
        return await self._processes.run(_png_and_alt, *args)

    async def animate(self, positions: list[dict[str, Any]], language: str = DEFAULT) -> bytes:
        """The animated replay of a whole game (one frame a decision), as GIF bytes."""
        if self._workers is not None:
            return await self._workers.run(_animate_gif, positions, language)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._replays, _animate_gif, positions, language)

    def _stop_threads(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._replays.shutdown(wait=False, cancel_futures=True)

    def close(self) -> None:
        """Stop drawing without waiting (no event loop needed)."""
        self._stop_threads()
        if self._processes is not None:
            self._processes.close()

    async def aclose(self) -> None:
        """Stop drawing, and wait for the render processes to finish (``WorkerPool.aclose``)."""
        self._stop_threads()
        if self._processes is not None:
            await self._processes.aclose()


def _import_renderer() -> None:
    import renderer

    renderer.warm_up()
