"""Games read back from the store by number, and their records rebuilt from the stored
log: shared by the home's reads (record, board) and the reviews."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bot.core.errors import NoGame
from bot.db.contract import GameStore
from bot.db.rows import GameRow, SeatRow
from bot.texts.i18n import t
from engine.record import Record, record_from_log


async def server_game(store: GameStore, lang: str, game_id: int, guild_id: int | None) -> GameRow:
    """Game *game_id* if it was played on this server: a number from another server
    is refused as if it did not exist (in *lang*, the asker's)."""
    row = await store.game(game_id)
    if row is None or row.guild_id != guild_id:
        raise NoGame(
            t(
                lang,
                "There is no game #{game} on this server (`/torres history` lists them).",
                game=game_id,
            )
        )
    return row


async def stored_record(
    store: GameStore,
    row: GameRow,
    seats: Sequence[SeatRow],
    headers: Mapping[str, Any] | None = None,
) -> Record:
    """The game's record from its stored log (the engine replays it; undone actions
    leave no trace)."""
    log = [(a.kind, a.action) for a in await store.actions(row.id) if a.kind in ("play", "undo")]
    players = [s.name for s in seats if s.name is not None]
    return record_from_log(
        variant=row.variant, seed=row.seed, players=players, log=log, headers=headers
    )
