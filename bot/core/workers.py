"""Worker processes for the CPU-heavy work: computer players and replay animations.

A computer player thinks for about a second of pure Python. In a thread of the
bot process it would hold the interpreter lock against the event loop, so every
interaction waiting behind it would be late; in a worker process it only
competes for a CPU. The pool uses ``forkserver`` (never ``fork``: the bot
process has threads and open sockets), with the engine and renderer imported
once in the fork server so a new worker starts warm.

The workers run at a lower priority (``nice`` 10 for computer players, in a
scheduling group of their own): on a machine with few CPUs a thinking computer
would otherwise take a whole CPU from the event loop, and a reply waits for the
loop, while a computer's decision may take a little longer unnoticed
(bench/bot_bench.py --ai-games).

Results are deterministic: a computer player's choice depends only on the game
(pickled whole, hidden information and all) and its seed, never on which process
computes it (tests/bot/core/test_workers.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import os
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")

_PRELOAD = ["engine", "engine.ai", "renderer", "renderer.replay"]


def default_processes() -> int:
    """One worker per CPU, at most 4."""
    return max(1, min(4, os.cpu_count() or 1))


def _alive(pid: int) -> bool:
    """Whether *pid* runs (a zombie — killed, not yet reaped — counts as dead)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


def _follow(parent: int, nice: int) -> None:
    """Worker initializer: lower the worker's priority by *nice*, and exit as soon as
    the bot process is gone, even killed by SIGKILL.

    A worker's parent is the fork server, not the bot, and its task queue never
    reports the bot's death; so a thread watches for it.
    """
    if nice:
        with contextlib.suppress(OSError):
            os.nice(nice)
        # Linux groups a session's processes for scheduling ("autogroup") and then
        # honours nice only inside the group: a session of its own, niced as a whole,
        # makes the workers yield to the bot and to everything else too.
        with contextlib.suppress(OSError):
            os.setsid()
        with contextlib.suppress(OSError), open("/proc/self/autogroup", "w") as f:
            f.write(str(nice))

    def watch() -> None:
        while _alive(parent):
            time.sleep(0.25)
        os._exit(0)

    threading.Thread(target=watch, name="watch-bot", daemon=True).start()


def _warm() -> int:
    import engine.ai  # noqa: F401

    return os.getpid()


class WorkerPool:
    """A process pool that replaces itself if a worker dies (the task is then tried once more)."""

    def __init__(self, processes: int, *, nice: int = 0) -> None:
        """*nice* > 0: the workers yield the CPU to the bot process when both want it."""
        self.processes = max(1, processes)
        self.nice = nice
        self._context = multiprocessing.get_context("forkserver")
        self._context.set_forkserver_preload(_PRELOAD)
        self._pool = self._new()

    def _new(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.processes,
            mp_context=self._context,
            initializer=_follow,
            initargs=(os.getpid(), self.nice),
        )

    async def start(self) -> None:
        """Start every worker now, so that the first computer move does not wait for one."""
        loop = asyncio.get_running_loop()
        await asyncio.gather(
            *(loop.run_in_executor(self._pool, _warm) for _ in range(self.processes))
        )

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(*args)`` in a worker; *fn* and *args* must pickle (module-level functions)."""
        loop = asyncio.get_running_loop()
        for attempt in range(2):
            pool = self._pool
            try:
                return await loop.run_in_executor(pool, fn, *args)
            except BrokenProcessPool:
                if attempt:
                    raise
                log.error("a worker process died; starting a fresh pool")
                if self._pool is pool:
                    pool.shutdown(wait=False, cancel_futures=True)
                    self._pool = self._new()
        raise AssertionError("unreachable")

    def close(self) -> None:
        """Stop the workers without waiting for them (no event loop needed)."""
        self._pool.shutdown(wait=False, cancel_futures=True)

    async def aclose(self, timeout: float = 5.0) -> None:
        """Stop the workers and wait, up to *timeout* seconds, until the pool has finished.

        At exit Python wakes every process pool's manager thread without its lock
        (CPython 3.11, ``concurrent.futures.process._python_exit``); a pool still
        closing then can print "OSError: [Errno 9] Bad file descriptor" from a pipe
        its manager thread closed at the same moment. A finished pool is skipped.
        The wait runs in a daemon thread, so a worker stuck in a long job delays the
        exit by *timeout* at most.
        """
        closer = threading.Thread(
            target=self._pool.shutdown,
            kwargs={"wait": True, "cancel_futures": True},
            name="close-workers",
            daemon=True,
        )
        closer.start()
        deadline = time.monotonic() + timeout
        while closer.is_alive() and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        if closer.is_alive():
            log.warning("worker processes still busy after %.0f s; not waiting", timeout)
