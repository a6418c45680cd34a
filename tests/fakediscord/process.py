"""Run a bot as a real, separate process against the fake, and kill it like a crash would."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]


class BotProcess:
    """A subprocess whose stdout+stderr go to ``log_path`` (read it when a test fails)."""

    def __init__(
        self,
        args: Sequence[str],
        *,
        env: Mapping[str, str],
        log_path: Path,
        cwd: Path = REPO_ROOT,
        prefix: Sequence[str] = (),
    ) -> None:
        """``args`` go to the current Python; ``prefix`` runs before it (e.g. ``nice -n -10``)."""
        python = [sys.executable, *args] if args and args[0] != sys.executable else list(args)
        self.args = [*prefix, *python]
        self.env = {**os.environ, "PYTHONUNBUFFERED": "1", **env}
        self.log_path = log_path
        self.cwd = cwd
        self.proc: asyncio.subprocess.Process | None = None
        self._log = None

    async def start(self) -> BotProcess:
        self._log = open(self.log_path, "ab")  # noqa: SIM115 - closed in wait()/kill()
        self._log.write(f"\n===== start: {' '.join(self.args)}\n".encode())
        self._log.flush()
        self.proc = await asyncio.create_subprocess_exec(
            *self.args,
            cwd=str(self.cwd),
            env=self.env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=self._log,
            stderr=asyncio.subprocess.STDOUT,
            start_new_session=True,  # its own process group: children can be found and reaped
        )
        return self

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.returncode is None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc else None

    async def kill(self) -> int | None:
        """SIGKILL: no shutdown handlers run, as in a power cut or OOM kill."""
        if self.proc is None:
            return None
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGKILL)
        rc = await self.proc.wait()
        self._close_log()
        return rc

    async def stop(self, timeout: float = 10.0) -> int | None:
        """SIGTERM, then SIGKILL if it does not exit within ``timeout``."""
        if self.proc is None:
            return None
        if self.proc.returncode is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.proc.wait(), timeout)
            except TimeoutError:
                self.proc.send_signal(signal.SIGKILL)
                await self.proc.wait()
        self._close_log()
        return self.proc.returncode

    def group_members(self) -> list[int]:
        """Live processes in the bot's process group (itself and e.g. render workers); Linux only."""
        if self.proc is None or not os.path.isdir("/proc"):
            return []  # no /proc (not Linux): nothing to check
        out = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except (OSError, IndexError):
                continue
            if int(fields[2]) == self.proc.pid and fields[0] != "Z":
                out.append(int(entry))
        return out

    async def reap_group(self, timeout: float = 10.0) -> list[int]:
        """Wait for the group to empty; SIGKILL (by pid) and return whatever outlived ``timeout``."""
        deadline = asyncio.get_running_loop().time() + timeout
        while True:
            left = self.group_members()
            if not left:
                return []
            if asyncio.get_running_loop().time() >= deadline:
                for pid in left:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
                return left
            await asyncio.sleep(0.1)

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def log_text(self, tail: int = 6000) -> str:
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return ""
        return text[-tail:]
