"""``python -m bot``: run the Torres bot (settings: docs/bot.md)."""

from __future__ import annotations

import asyncio
import logging
import signal
import sqlite3
import sys
import time

import asyncpg
import discord
import discord.gateway
import discord.http
import yarl

from bot.app import make_bot
from bot.config import BotConfig, ConfigError
from bot.service import GameService, ServiceConfig
from bot.storage import GameStore, describe, open_store
from bot.store import StoreError
from bot.workers import WorkerPool

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


async def run(config: BotConfig) -> int:
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
    stopping = asyncio.Event()

    def stop() -> None:
        log.info("signal received; shutting down")
        stopping.set()

    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop)

    runner = asyncio.create_task(bot.start(config.token), name="discord")
    waiter = asyncio.create_task(stopping.wait(), name="signals")
    status = 0
    try:
        done, _ = await asyncio.wait({runner, waiter}, return_when=asyncio.FIRST_COMPLETED)
        if runner in done:
            exc = runner.exception()
            if isinstance(exc, discord.LoginFailure):
                print("The Discord token was refused: check DISCORD_TOKEN.", file=sys.stderr)
                status = 1
            elif exc is not None:
                log.error("the bot stopped with an error", exc_info=exc)
                status = 1
    finally:
        waiter.cancel()
        await bot.close()
        if not runner.done():
            runner.cancel()
        await asyncio.gather(runner, return_exceptions=True)
        await store.close()
        if workers is not None:
            workers.close()
    log.info("stopped")
    return status


def main() -> int:
    if sys.argv[1:2] == ["migrate"]:
        from bot.migrate import main as migrate

        return migrate(sys.argv[2:])
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
        return asyncio.run(run(config))
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
