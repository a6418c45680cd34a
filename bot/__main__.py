"""``python -m bot``: run the Torres bot (settings: docs/bot.md)."""

from __future__ import annotations

import asyncio
import logging
import signal
import sqlite3
import sys

import asyncpg
import discord
import discord.gateway
import discord.http
import yarl

from bot.app import TorresBot
from bot.config import BotConfig, ConfigError
from bot.service import GameService, ServiceConfig
from bot.storage import describe, open_store
from bot.store import StoreError
from bot.workers import WorkerPool

log = logging.getLogger("bot")


def point_at(api_base: str | None, gateway_url: str | None) -> None:
    """Send REST and gateway traffic elsewhere (a fake Discord in tests)."""
    if api_base:
        discord.http.Route.BASE = api_base.rstrip("/")
    if gateway_url:
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway_url)


async def run(config: BotConfig) -> int:
    store = await open_store(config.db_path)
    workers = WorkerPool(config.ai_processes) if config.ai_processes > 0 else None
    service = GameService(
        store,
        ServiceConfig(
            ai_seconds=config.ai_seconds,
            ai_level=config.ai_level,
            reminder_interval=config.reminder_seconds,
            reminder_limit=config.reminder_count,
            idle_cancel_after=config.idle_cancel_seconds,
            seed=config.seed,
        ),
        workers=workers,
    )
    bot = TorresBot(config=config, store=store, service=service, workers=workers)
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
