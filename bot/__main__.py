"""``python -m bot``: run the Torres bot (settings: docs/bot.md).

``python -m bot backup FILE`` copies the database (``TORRES_DB``) to *FILE*
while the bot runs, with SQLite's online backup API.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence

import aiohttp
import asyncpg
import discord
import discord.gateway
import discord.http
import yarl

import engine
from bot.client.app import make_bot
from bot.core.config import BotConfig, ConfigError
from bot.core.service import GameService, ServiceConfig
from bot.core.workers import WorkerPool
from bot.db.contract import GameStore, open_store
from bot.db.rows import StoreError, describe, is_postgres

log = logging.getLogger("bot")


def point_at(api_base: str | None, gateway_url: str | None) -> None:
    """Send REST and gateway traffic elsewhere (a fake Discord in tests)."""
    if api_base:
        discord.http.Route.BASE = api_base.rstrip("/")
    if gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


async def claim_shards(store: GameStore, config: BotConfig, wait: float = 30.0) -> bool:
    """Take this process's shards in the database, so that no other process runs them too.

    A process killed a moment ago may still hold them until PostgreSQL notices
    its connection is gone, so this waits a little before giving up.
    """
    shards = list(config.shard_ids or (0,))
    deadline = time.monotonic() + wait
    while True:
        taken = await store.claim_shards(shards)
        if not taken:
            return True
        if time.monotonic() >= deadline:
            count = config.shard_count or 1
            print(
                f"error: shard {', '.join(map(str, taken))} of {count} is already run by another "
                f"bot process on {describe(config.db_path)}. Each shard runs in exactly one "
                "process: give every process its own TORRES_SHARD_IDS.",
                file=sys.stderr,
            )
            return False
        log.warning("shard %s held by another process; waiting for it", taken)
        shards = taken
        await asyncio.sleep(1.0)


REACH_HINT = (
    "Check the network connection (and DISCORD_API_BASE, if set); "
    "DISCORD_TOKEN could not be checked yet."
)


def start_failure(exc: BaseException) -> str | None:
    """The one line that explains why the bot could not get going, for what an operator
    can fix (the network, the token); None for anything else (logged with its traceback)."""
    if isinstance(exc, discord.LoginFailure):
        return (
            "error: Discord refused the token: check DISCORD_TOKEN "
            "(the bot's token from the developer portal)."
        )
    if isinstance(exc, aiohttp.ClientConnectionError):
        reason = " ".join(str(exc).split()) or type(exc).__name__
        return f"error: could not reach Discord ({reason}). {REACH_HINT}"
    return None


def token_problem(token: str) -> str | None:
    """Why *token* cannot be a bot token (spaces, line breaks, other characters no token
    holds: it would fail deep in the HTTP library); None if it may be one."""
    if token.isascii() and token.isprintable() and not any(c.isspace() for c in token):
        return None
    return (
        "error: DISCORD_TOKEN holds a space, a line break or a character no token has: "
        "copy the bot's token again from the developer portal (the token alone, without 'Bot ')."
    )


async def run(config: BotConfig) -> int:
    problem = token_problem(config.token)
    if problem is not None:
        print(problem, file=sys.stderr)
        return 1
    store = await open_store(config.db_path, pool_size=config.db_pool)
    if not await claim_shards(store, config):
        await store.close()
        return 1
    workers = WorkerPool(config.ai_processes, nice=10) if config.ai_processes > 0 else None
    service = GameService(
        store,
        ServiceConfig(
            ai_seconds=config.ai_seconds,
            ai_level=config.ai_level,
            reminder_interval=config.reminder_seconds,
            reminder_limit=config.reminder_count,
            idle_cancel_after=config.idle_cancel_seconds,
            seed=config.seed,
            shard_count=config.shard_count,
            shard_ids=config.shard_ids or (),
        ),
        workers=workers,
    )
    bot = make_bot(config=config, store=store, service=service, workers=workers)
    loop = asyncio.get_running_loop()
    log.info("event loop: %s.%s", type(loop).__module__, type(loop).__name__)
    # which engine plays (its compiled core, or the reference without it), said once
    (log.info if engine.ENGINE == "core" else log.warning)("engine: %s", engine.ENGINE_NOTE)
    stopping = asyncio.Event()

    def stop() -> None:
        log.info("signal received; shutting down")
        stopping.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)

    runner = asyncio.create_task(bot.start(config.token), name="discord")
    waiter = asyncio.create_task(stopping.wait(), name="signals")
    # The database file replaced under the bot: the store logged it; stop acknowledging.
    lost = asyncio.create_task(store.lost.wait(), name="database-lost")
    status = 0
    try:
        done, _ = await asyncio.wait({runner, waiter, lost}, return_when=asyncio.FIRST_COMPLETED)
        if lost in done:
            status = 1
        elif runner in done:
            exc = runner.exception()
            if exc is not None:
                status = 1
                line = start_failure(exc)
                if line is None:
                    log.error("the bot stopped with an error", exc_info=exc)
                else:
                    print(line, file=sys.stderr)
    finally:
        waiter.cancel()
        lost.cancel()
        await bot.close()
        if not runner.done():
            runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
        await store.close()
        if workers is not None:
            await workers.aclose()
    log.info("stopped")
    return status


def backup(source: str, target: str) -> str:
    """Copy the live database *source* to *target* consistently; returns a one-line summary.

    SQLite's backup API reads one snapshot while the bot goes on writing (WAL
    mode: readers and the writer do not block each other). The copy is checked
    with ``PRAGMA quick_check`` and only then moved into place, so *target* is
    either the old file or a whole, checked backup.

    :raises StoreError: with the reason, in one line.
    """
    if not os.path.exists(source):
        raise StoreError(f"there is no database at {source} (set TORRES_DB)")
    if os.path.exists(target) and os.path.samefile(source, target):
        raise StoreError("the backup must go to another file than the database itself")
    partial = f"{target}.partial"
    try:
        src = sqlite3.connect(source, timeout=10)
        try:
            dst = sqlite3.connect(partial)
            try:
                src.backup(dst)
                check = dst.execute("PRAGMA quick_check").fetchone()
                if check is None or check[0] != "ok":
                    raise StoreError(
                        f"the database {source} is damaged ({check and check[0]}); "
                        "keep your older backups"
                    )
                games = dst.execute("SELECT COUNT(*) FROM games").fetchone()[0]
            finally:
                dst.close()
        finally:
            src.close()
        os.replace(partial, target)
    except sqlite3.Error as exc:
        raise StoreError(f"could not back up {source} to {target}: {exc}") from None
    except OSError as exc:
        raise StoreError(f"could not write the backup {target}: {exc.strerror}") from None
    finally:
        if os.path.exists(partial):
            os.remove(partial)
    size = os.path.getsize(target)
    return f"Backed up {source} ({games} games, {size // 1024} KiB) to {target}."


def _backup_main(args: Sequence[str]) -> int:
    if len(args) != 1:
        print("usage: python -m bot backup FILE   (copies TORRES_DB to FILE)", file=sys.stderr)
        return 2
    source = os.environ.get("TORRES_DB") or "./torres.db"
    if is_postgres(source):
        print(
            "error: TORRES_DB is a PostgreSQL database: back it up with pg_dump "
            "(python -m bot backup copies SQLite files)",
            file=sys.stderr,
        )
        return 2
    try:
        print(backup(source, args[0]))
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


def _loop_factory(name: str) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop when chosen (``TORRES_EVENT_LOOP``, the default) and
    installed; else None: asyncio's own."""
    if name != "uvloop":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop.new_event_loop


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "backup":
        return _backup_main(args[1:])
    if args and args[0] == "migrate":
        from bot.core.migrate import main as migrate

        return migrate(args[1:])
    if args:
        print("usage: python -m bot [backup FILE | migrate --from SRC --to DST]", file=sys.stderr)
        return 2
    try:
        config = BotConfig.from_env()
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    logging.basicConfig(
        level=getattr(logging, config.log_level, logging.INFO),
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    point_at(config.api_base, config.gateway_url)
    try:
        with asyncio.Runner(loop_factory=_loop_factory(config.event_loop)) as runner:
            return runner.run(run(config))
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except sqlite3.Error as exc:
        print(f"error: cannot open the database {config.db_path!r}: {exc}", file=sys.stderr)
        return 1
    except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
        print(f"error: cannot use the database {describe(config.db_path)}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
