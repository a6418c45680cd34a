"""The play panel's requests: open it, press a choice (bound to the position it shows),
draw it again; the panel's words come from bot.core.panel."""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import TypeVar

from bot.core import panel as panels
from bot.core.actions import split_actions
from bot.core.errors import IllegalMove, NotAllowed, ServiceError, StaleButton
from bot.core.games import _OutOfDate
from bot.core.hints import Hints
from bot.core.turns import NOTHING_TO_UNDO, Turns
from bot.core.values import PanelState, User
from bot.db.rows import GameRow, SeatRow
from bot.texts import posts as texts
from bot.texts.i18n import t
from bot.texts.markup import (
    channel_link,
    shorten,
)
from engine import Game, changed_squares

T = TypeVar("T")


class Presses(Turns, Hints):
    """The private play panel."""

    # -- the play panel ------------------------------------------------------------

    async def panel_open(
        self, *, game_id: int, turn: int, user: User, undo: bool = False
    ) -> PanelState:
        """The Play button of a turn message: the mover's panel; anyone else is refused.

        *undo*: the turn message's Undo button, which opens the panel saying what its
        Undo would take back. That message is the same for every action of the turn,
        so it can't say which state its player saw; the panel's Undo is bound to the
        state it shows, so a double tap or a press on two devices takes back one action.
        """
        lang = user.lang
        row, seats = await self._check_button(game_id, turn, lang=lang)
        game = await self._load(row)
        self._mover(row, game, seats, user)
        note = ""
        if undo:
            done = await self._turn_actions(row)
            if game.can_undo and done:
                note = t(
                    lang,
                    "Press **Undo** below to take back `{action}` — {description}.",
                    action=done[-1],
                    description=panels.describe(done[-1], lang=lang),
                )
            else:
                note = f"⚠ {t(lang, NOTHING_TO_UNDO)}"
        return await self._panel_state(row, game, None, note, lang, seats)

    async def panel_press(
        self,
        *,
        game_id: int,
        turn: int,
        user: User,
        op: str,
        value: str = "",
        version: int | None = None,
        values: Sequence[str] = (),
    ) -> PanelState:
        """A choice on an open panel: *op* is ``what``, ``do``, ``undo``, ``hint``, ``end``,
        ``endok`` or ``back``; *value* the chosen option's value (*values*: all of them,
        from a select that takes several: blocks built in one choice).

        *version* is the ``PanelState.version`` of the panel pressed (None: not bound,
        for callers that draw no panel). A choice that changes the game acts only if the
        game is still at that version, checked under the game's lock: a second tap on
        the same choice, or the same choice on a second panel of the turn, comes back
        as the panel of the game as it is now, saying so, and does nothing.
        A refused action leaves the game unchanged and shows why on the panel;
        a panel of a finished turn comes back closed.
        """
        lang = user.lang
        self._check_ids(game_id, turn, version=version, lang=lang)
        row, seats = await self._fresh_seated(game_id, lang=lang)
        if row.status != "running" or row.turn_no != turn:
            return self._closed_panel(row, turn, lang)
        game = await self._load(row)
        self._mover(row, game, seats, user)
        shown = await self._shown(row)
        stale = version is not None and version != shown
        group: str | None = None
        action: str | None = None
        if op in ("what", "do") and value.startswith(panels.WHAT):  # a group, or its source
            group = value[len(panels.WHAT) :]
        elif op in ("what", "do") and value.startswith(panels.DO):
            action = value[len(panels.DO) :]
            if len(values) > 1:
                several = await self._several(row, game, values, lang, seats, stale)
                if isinstance(several, PanelState):
                    return several
                action = several
        elif op not in ("hint", "undo", "end", "endok", "back"):
            return await self._panel_state(row, game, None, "", lang, seats)
        if action is None and op in ("what", "do", "back"):  # only the panel changes
            note = f"⚠ {t(lang, panels.OUT_OF_DATE)}" if stale else ""
            return await self._panel_state(row, game, group, note, lang, seats)
        if stale:
            return await self._out_of_date(game_id, turn, lang)
        if op == "hint":
            suggestion = await self._suggested_turn(row, game)
            note = "" if suggestion else t(lang, "No suggestion right now: choose yourself.")
            return await self._panel_state(
                row, game, None, note, lang, seats, suggestion=suggestion
            )
        elif op == "undo":
            undo = self._undo(game_id, turn, user, None, version=version)
            undone = await self._pressed(undo, NotAllowed, row, game, seats, turn, lang)
            if isinstance(undone, PanelState):
                return undone
            took, _ = undone
            row, seats = await self._fresh_seated(game_id, lang=lang)
            return await self._panel_state(row, await self._load(row), None, took, lang, seats)
        elif op in ("end", "endok"):
            action = "end"
            if op == "end" and game.stage == "play" and (game.ap or 0) > 0:
                return PanelState(
                    panels.confirm_end_model(
                        self._panel_header(row, game, lang), game.ap or 0, lang
                    ),
                    position=None,
                    version=shown,
                )
        assert action is not None
        before_actions = await self._turn_actions(row)
        play = self._play(game_id, user, action, turn=turn, version=version)
        outcome = await self._pressed(play, IllegalMove, row, game, seats, turn, lang)
        if isinstance(outcome, PanelState):
            return outcome
        row, seats = await self._fresh_seated(game_id, lang=lang)
        if (
            outcome.posts
            or outcome.ai_game is not None
            or row.status != "running"
            or row.turn_no != turn
        ):
            played = "; ".join([*before_actions, *split_actions(action)])
            reply, actions = outcome.reply or t(lang, "Done."), shorten(played, 1500)
            if row.lobby_message_id is not None:  # the game plays in a thread of its own
                text = t(
                    lang,
                    "**{reply}** You played `{actions}`; the turn message is in {thread}.",
                    reply=reply,
                    actions=actions,
                    thread=channel_link(row.channel_id),
                )
            else:
                text = t(
                    lang,
                    "**{reply}** You played `{actions}`; the turn message is in the channel.",
                    reply=reply,
                    actions=actions,
                )
            return PanelState(panels.closed_model(text), outcome=outcome)
        after = await self._load(row)
        words = panels.done_words(action, game, after, panel=True, lang=lang)
        groups = panels.grouped(after) if after.to_move == game.to_move else {}
        nxt = panels.follow_group(action, groups)
        return await self._panel_state(
            row, after, nxt, t(lang, "Done: {words}", words=words), lang, seats
        )

    async def _several(
        self,
        row: GameRow,
        game: Game,
        values: Sequence[str],
        lang: str,
        seats: Sequence[SeatRow],
        stale: bool,
    ) -> str | PanelState:
        """Several squares of the build select as one action text, or the panel saying
        why not (nothing done): only blocks, and a set the engine takes in some order."""
        squares = []
        for v in values:
            words = v[len(panels.DO) :].split() if v.startswith(panels.DO) else []
            if len(words) != 2 or words[0] != "build":
                return await self._panel_state(row, game, None, "", lang, seats)
            squares.append(words[1])
        if stale:  # acted on by a later check; the order does not matter for it
            return "; ".join(f"build {sq}" for sq in squares)
        text = panels.build_order(game, squares)
        if text is not None:
            return text
        note = "⚠ " + t(
            lang,
            "Blocks on {squares} can't all be built now; nothing was built. Choose fewer squares.",
            squares=", ".join(squares),
        )
        return await self._panel_state(row, game, "build", note, lang, seats)

    async def _pressed(
        self,
        write: Awaitable[T],
        refusal: type[ServiceError],
        row: GameRow,
        game: Game,
        seats: Sequence[SeatRow],
        turn: int,
        lang: str,
    ) -> T | PanelState:
        """What *write* (a press's change to the game) returns, or the panel to show
        instead: the game as it is now if it moved on meanwhile, a closed panel if the
        turn is over, or this one saying why *refusal* refused it."""
        try:
            return await write
        except _OutOfDate:
            return await self._out_of_date(row.id, turn, lang)
        except StaleButton:
            return self._closed_panel(await self._fresh(row.id, lang=lang), turn, lang)
        except refusal as exc:
            return await self._panel_state(row, game, None, f"⚠ {exc.message}", lang, seats)

    async def panel_refresh(self, *, game_id: int, turn: int, user: User) -> PanelState:
        """A panel that does not say which state it shows (its custom ids predate
        ``PanelState.version``): drawn again as the game is now, saying so; nothing done."""
        self._check_ids(game_id, turn, lang=user.lang)
        row, seats = await self._fresh_seated(game_id, lang=user.lang)
        if row.status == "running" and row.turn_no == turn:
            self._mover(row, await self._load(row), seats, user)
        return await self._out_of_date(game_id, turn, user.lang)

    async def _out_of_date(self, game_id: int, turn: int, lang: str) -> PanelState:
        """The panel of the game as it is now, after a choice made on an older state."""
        row, seats = await self._fresh_seated(game_id, lang=lang)
        if row.status != "running" or row.turn_no != turn:
            return self._closed_panel(row, turn, lang)
        game = await self._load(row)
        note = f"⚠ {t(lang, panels.OUT_OF_DATE)}"
        return await self._panel_state(row, game, None, note, lang, seats)

    def _panel_header(self, row: GameRow, game: Game, lang: str = "en") -> str:
        me = game.to_move or ""
        seat = texts.dotted(me, lang)
        if game.stage in ("play", "draw-keep"):
            return t(
                lang,
                "**Your turn** in game #{game} ({seat}, phase {phase}, round {round})",
                game=row.id,
                seat=seat,
                phase=game.phase,
                round=game.round,
            )
        if game.stage == "king" and game.position().get("king") is not None:
            return t(
                lang,
                "**Your turn** in game #{game} ({seat}, the king's move after phase {phase})",
                game=row.id,
                seat=seat,
                phase=game.phase,
            )
        return t(lang, "**Your turn** in game #{game} ({seat}, setup)", game=row.id, seat=seat)

    def _closed_panel(self, row: GameRow, turn: int, lang: str = "en") -> PanelState:
        if row.status != "running":
            text = t(lang, "Game #{game} is over; this panel no longer does anything.", game=row.id)
        else:
            text = t(
                lang,
                "This turn is over (the game is at turn {now}, this panel was for turn {turn}). "
                "Press **Play** on the latest turn message.",
                now=row.turn_no,
                turn=turn,
            )
        return PanelState(panels.closed_model(text))

    async def _panel_state(
        self,
        row: GameRow,
        game: Game,
        group: str | None,
        note: str,
        lang: str = "en",
        seats: Sequence[SeatRow] | None = None,
        *,
        suggestion: Sequence[str] = (),
    ) -> PanelState:
        done = await self._turn_actions(row)
        if seats is None:
            seats = await self._store.seats(row.id)
        model = panels.build_panel(
            game,
            header=self._panel_header(row, game, lang),
            group=group,
            note=note,
            stack_text=shorten("; ".join(done), 300) if done else "",
            lang=lang,
            suggestion=suggestion,
        )
        assert row.position is not None
        highlight = frozenset(
            changed_squares(row.turn_start_position or row.position, row.position)
        )
        return PanelState(
            model,
            game.position(),
            game.to_move,
            highlight,
            note=t(lang, "changed this turn so far"),
            labels=texts.picture_labels(seats, lang),
            version=await self._shown(row),
        )
