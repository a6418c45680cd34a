"""Another process holding a SQLite database's write lock, for as long as a test wants.

The bot's disk is part of its world as much as Discord is: a backup tool, an
operator's ``sqlite3`` shell or a stuck second process can keep the write lock.
This starts a separate Python process that takes ``BEGIN IMMEDIATE`` on the
database and keeps it until :meth:`release` (it then rolls back: nothing changes).

    async with WriteLock(db_path) as lock:   # returns once the lock is held
        ...                                   # the bot's writes now wait; reads must not
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

_HOLDER = r"""
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=30)
conn.execute("BEGIN IMMEDIATE")
print("locked", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
conn.close()
print("released", flush=True)
"""


class WriteLock:
    """A process holding the write lock of the database at *path* until released."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self.proc: asyncio.subprocess.Process | None = None

    async def acquire(self, timeout: float = 30.0) -> WriteLock:
        self.proc = await asyncio.create_subprocess_exec(
            sys.executable,
            "-c",
            _HOLDER,
            self.path,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
        )
        assert self.proc.stdout is not None
        line = await asyncio.wait_for(self.proc.stdout.readline(), timeout)
        if line.strip() != b"locked":
            raise AssertionError(f"the lock holder did not get the lock: {line!r}")
        return self

    async def release(self) -> None:
        if self.proc is None or self.proc.returncode is not None:
            return
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(b"go\n")
        await self.proc.stdin.drain()
        await asyncio.wait_for(self.proc.stdout.readline(), 30)
        await self.proc.wait()

    async def __aenter__(self) -> WriteLock:
        return await self.acquire()

    async def __aexit__(self, *exc: object) -> None:
        await self.release()
