"""Settings from the environment (documented in docs/bot.md)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

# The engine's computer players, weakest first (engine.ai.choose_actions' levels).
AI_LEVELS = ("random", "heuristic", "search", "expert")


class ConfigError(ValueError):
    """An environment variable is missing or malformed; the message names it."""


@dataclass(frozen=True, slots=True)
class BotConfig:
    token: str
    db_path: str = "./torres.db"
    api_base: str | None = None
    gateway_url: str | None = None
    ai_seconds: float = 1.0
    ai_level: str = "search"
    reminder_seconds: float = 24 * 3600.0
    reminder_count: int = 3
    idle_cancel_seconds: float = 14 * 24 * 3600.0
    reminder_check_seconds: float = 60.0
    clock_scale: float = 1.0
    guild_ready_timeout: float = 2.0
    sync_guild: int | None = None
    seed: int | None = None
    log_level: str = "INFO"
    render_threads: int = 2
    ai_processes: int = 2
    render_processes: int = 0
    db_pool: int = 20
    event_loop: str = "uvloop"
    shard_count: int | None = None
    shard_ids: tuple[int, ...] | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> BotConfig:
        """Read the settings; :raises ConfigError: naming the first bad variable."""
        env = os.environ if env is None else env
        token = env.get("DISCORD_TOKEN", "").strip()
        if not token:
            raise ConfigError(
                "DISCORD_TOKEN is not set: put the bot token from the Discord developer "
                "portal in the DISCORD_TOKEN environment variable."
            )
        return cls(
            token=token,
            db_path=env.get("TORRES_DB") or "./torres.db",
            api_base=env.get("DISCORD_API_BASE") or None,
            gateway_url=env.get("DISCORD_GATEWAY_URL") or None,
            ai_seconds=_number(env, "TORRES_AI_SECONDS", 1.0, minimum=0.0),
            ai_level=_choice(env, "TORRES_AI_LEVEL", "search", AI_LEVELS),
            reminder_seconds=_number(env, "TORRES_REMINDER_SECONDS", 86400.0, minimum=1.0),
            reminder_count=int(_number(env, "TORRES_REMINDER_COUNT", 3, minimum=0, integer=True)),
            idle_cancel_seconds=_number(env, "TORRES_IDLE_CANCEL_SECONDS", 1209600.0, minimum=0.0),
            clock_scale=_number(env, "TORRES_CLOCK_SCALE", 1.0, minimum=1e-6),
            reminder_check_seconds=_number(
                env, "TORRES_REMINDER_CHECK_SECONDS", 60.0, minimum=0.05
            ),
            guild_ready_timeout=_number(env, "TORRES_GUILD_READY_TIMEOUT", 2.0, minimum=0.0),
            sync_guild=_optional_int(env, "TORRES_SYNC_GUILD"),
            seed=_optional_int(env, "TORRES_SEED"),
            log_level=(env.get("TORRES_LOG_LEVEL") or "INFO").upper(),
            render_threads=int(
                _number(env, "TORRES_RENDER_THREADS", _default_threads(), minimum=1, integer=True)
            ),
            ai_processes=int(
                _number(env, "TORRES_AI_PROCESSES", _default_threads(), minimum=0, integer=True)
            ),
            render_processes=int(
                _number(
                    env,
                    "TORRES_RENDER_PROCESSES",
                    _default_render_processes(),
                    minimum=0,
                    integer=True,
                )
            ),
            db_pool=int(_number(env, "TORRES_DB_POOL", 20, minimum=1, integer=True)),
            event_loop=_choice(env, "TORRES_EVENT_LOOP", "uvloop", EVENT_LOOPS),
            **_shards(env),
        )


# uvloop (libuv) runs the loop's socket and timer work in C: at 200 games the bot
# answered ~10% sooner with it (docs/bot.md, section 8). Where it is not installed
# (it has no Windows build), asyncio's own loop serves.
EVENT_LOOPS = ("uvloop", "asyncio")


def _number(
    env: Mapping[str, str], name: str, default: float, *, minimum: float, integer: bool = False
) -> float:
    raw = env.get(name)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw) if integer else float(raw)
    except ValueError:
        kind = "a whole number" if integer else "a number"
        raise ConfigError(f"{name} must be {kind}, not {raw!r}.") from None
    if value < minimum:
        raise ConfigError(f"{name} must be at least {minimum}, not {raw!r}.")
    return value


def _choice(env: Mapping[str, str], name: str, default: str, allowed: tuple[str, ...]) -> str:
    raw = (env.get(name) or "").strip().lower()
    if not raw:
        return default
    if raw not in allowed:
        raise ConfigError(f"{name} must be one of {', '.join(allowed)}, not {raw!r}.")
    return raw


def _default_threads() -> int:
    """One rendering thread per CPU, at most 4."""
    return max(1, min(4, os.cpu_count() or 1))


def _default_render_processes() -> int:
    """Board pictures are drawn in processes of their own, one per CPU, at most 2.

    Drawing holds the interpreter lock most of the time (Pillow's text and paste
    calls), and in a thread of the bot's process that made the event loop wait for
    it: processes measured better at 50 and at 200 games (docs/bot.md, section 8).
    """
    return max(1, min(2, os.cpu_count() or 1))


def _optional_int(env: Mapping[str, str], name: str) -> int | None:
    raw = env.get(name)
    if raw is None or not raw.strip():
        return None
    try:
        return int(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a whole number, not {raw!r}.") from None


def _shards(env: Mapping[str, str]) -> dict[str, object]:
    """``TORRES_SHARD_COUNT`` and ``TORRES_SHARD_IDS`` (a comma list; default: all shards)."""
    raw_ids = (env.get("TORRES_SHARD_IDS") or "").strip()
    if not (env.get("TORRES_SHARD_COUNT") or "").strip():
        if raw_ids:
            raise ConfigError(
                "TORRES_SHARD_IDS needs TORRES_SHARD_COUNT, the total number of shards."
            )
        return {}
    count = int(_number(env, "TORRES_SHARD_COUNT", 1, minimum=1, integer=True))
    if not raw_ids:
        return {"shard_count": count, "shard_ids": tuple(range(count))}
    try:
        ids = tuple(sorted({int(part) for part in raw_ids.split(",") if part.strip()}))
    except ValueError:
        raise ConfigError(
            f"TORRES_SHARD_IDS must be whole numbers separated by commas, not {raw_ids!r}."
        ) from None
    bad = [i for i in ids if not 0 <= i < count]
    if bad or not ids:
        raise ConfigError(
            f"TORRES_SHARD_IDS must name shards 0 to {count - 1} (TORRES_SHARD_COUNT is "
            f"{count}), not {raw_ids!r}."
        )
    return {"shard_count": count, "shard_ids": ids}
