"""The game service: everything the bot does, without Discord.

Each request takes the game's lock, loads the snapshot, applies the request
with the engine on a copy, and commits the action log row together with the
new snapshot before returning. Refusals raise a :class:`~bot.core.errors.ServiceError`
whose message is shown to the player; the game is then unchanged. Results are
plain objects that say what to reply privately and what to post publicly; the
Discord layer renders and sends them.

:class:`GameService` is put together from one part per concern, each in its own
module over :class:`~bot.core.games.GameCore` (the lock, the checks, the cache):
seating (lobby, resign, cancel), turns (play, undo), computer (computer seats and
stand-ins), hints (autocomplete), presses (the play panel), reads (board, hand,
reminders, replays). The names callers use are all importable from here.
"""

from __future__ import annotations

from bot.core.apply import _apply
from bot.core.complete import rank_actions
from bot.core.computer import Computer
from bot.core.players import _engine_ai, _engine_choose, _random_decision
from bot.core.presses import Presses
from bot.core.reads import Reads
from bot.core.seating import Seating
from bot.core.turns import draw_parts, public_action
from bot.core.values import (
    BUTTONS_ALL,
    CACHED_GAMES,
    COLOURS,
    ID_MAX,
    VARIANTS,
    BoardView,
    ChooseActions,
    Confirmable,
    Lru,
    Outcome,
    PanelState,
    Post,
    ServiceConfig,
    User,
)
from bot.texts.posts import picture_labels, stand_in_note, stand_ins_count
from engine import decision_over as decision_done

__all__ = [
    "BUTTONS_ALL",
    "CACHED_GAMES",
    "COLOURS",
    "ID_MAX",
    "VARIANTS",
    "BoardView",
    "ChooseActions",
    "Confirmable",
    "GameService",
    "Lru",
    "Outcome",
    "PanelState",
    "Post",
    "ServiceConfig",
    "User",
    "_apply",
    "_engine_ai",
    "_engine_choose",
    "_random_decision",
    "decision_done",
    "draw_parts",
    "picture_labels",
    "public_action",
    "rank_actions",
    "stand_in_note",
    "stand_ins_count",
]


class GameService(Presses, Computer, Seating, Reads):
    """Torres games in channels. See the module docstring for the guarantees."""
