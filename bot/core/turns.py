"""Playing a turn: actions by text or by button, all or nothing up to a draw, undo, and the
commit that writes the log row, the snapshot and the turn message together."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from bot.core import panel as panels
from bot.core.actions import normalize, split_actions
from bot.core.apply import TYPE_AN_ACTION, _apply
from bot.core.errors import IllegalMove, NotAllowed
from bot.core.games import GameCore
from bot.core.values import Outcome, Post, User
from bot.db.rows import GameRow, SeatRow
from bot.texts import posts as texts
from bot.texts.i18n import DEFAULT, N_, t
from bot.texts.markup import (
    shorten,
)
from engine import Game, changed_squares

log = logging.getLogger(__name__)


class Turns(GameCore):
    """The mover's requests: play, end the turn, undo."""

    # -- playing ------------------------------------------------------------------

    async def play(
        self, *, channel_id: int, user: User, text: str, created_at: float | None = None
    ) -> Outcome:
        """Apply one or more actions of the player to move, all or nothing up to a draw.

        A draw shows the player new cards and can't be taken back, so a command
        is played up to and including each draw, which is committed, and what
        follows is checked against the cards really drawn (docs/rules.md,
        rulings). *created_at* is when the player sent the command (the
        interaction's creation time): a command sent before the current turn
        began is refused, so that it cannot act on a turn its sender never saw.
        """
        sent = self._sent_here(created_at)
        return await self._on_channel_game(
            channel_id,
            user.lang,
            lambda game_id, check: self._play(
                game_id, user, text, created_at=sent, channel_id=check
            ),
        )

    async def end_turn(
        self, *, game_id: int, turn: int, user: User, created_at: float | None = None
    ) -> Outcome:
        """The End turn button."""
        sent = self._sent_here(created_at)
        self._check_ids(game_id, turn, lang=user.lang)
        return await self._play(game_id, user, "end", turn=turn, created_at=sent)

    async def undo(
        self, *, channel_id: int, user: User, created_at: float | None = None
    ) -> Outcome:
        """``/torres undo``: take back the last action of the current turn; the reply
        adds the AP left (the panel, which shows them itself, takes ``_undo``'s bare
        sentence). A button has no unbound undo: the turn message's Undo opens the
        panel (``panel_open(undo=True)``), whose Undo is bound to the state it shows."""
        lang = user.lang
        created_at = self._sent_here(created_at)
        took, work = await self._on_channel_game(
            channel_id,
            lang,
            lambda game_id, check: self._undo(game_id, None, user, created_at, channel_id=check),
        )
        return Outcome(reply=f"{took} " + _ap_line(work, lang))

    async def _undo(
        self,
        game_id: int,
        turn: int | None,
        user: User,
        created_at: float | None,
        *,
        channel_id: int | None = None,
        version: int | None = None,
    ) -> tuple[str, Game]:
        """What was taken back, in a sentence, and the game after it. *version*: a
        panel's (``PanelState.version``); raises ``_OutOfDate``, having done nothing,
        if the game has moved on from it."""
        lang = user.lang
        if turn is not None:
            self._check_ids(game_id, turn, lang=lang)
        async with self.turn(
            game_id,
            user,
            stopped=STOPPED_UNCHANGED,
            turn=turn,
            channel_id=channel_id,
            version=version,
            created_at=created_at,
        ) as now:
            row, seat = now.row, now.seat
            work = now.game.copy()
            done_before = await self._turn_actions(row)
            undone = (done_before or [""])[-1]
            if not work.undo():
                raise NotAllowed(t(lang, NOTHING_TO_UNDO))
            seq, _ = await self._record(row, seat, user.id, "undo", "undo", work, turn_ended=False)
            self._cache[game_id] = (seq, work.copy())
            self._turn_log[game_id] = (seq, tuple(done_before[:-1]), seq)
        if undone:
            took = t(
                lang,
                "Took back `{action}` — {description}.",
                action=undone,
                description=panels.describe(undone, lang=lang),
            )
        else:
            took = t(lang, "Took back your last action.")
        return took, work

    async def _play(
        self,
        game_id: int,
        user: User,
        text: str,
        *,
        turn: int | None = None,
        created_at: float | None = None,
        channel_id: int | None = None,
        version: int | None = None,
    ) -> Outcome:
        """*channel_id*: the game was taken from the channel cache; raises ``_MovedOn``
        (nothing done) if it no longer runs in that channel. *version*: a panel's
        (``PanelState.version``); raises ``_OutOfDate`` (nothing done) if the game has
        moved on from it: a second tap, or another panel of the same turn, acted first."""
        lang = user.lang
        async with self.turn(
            game_id, user, turn=turn, channel_id=channel_id, version=version, created_at=created_at
        ) as now:
            row, seats, game, seat = now.row, now.seats, now.game, now.seat
            parts = draw_parts(text)
            if not parts:
                raise IllegalMove(t(lang, TYPE_AN_ACTION))
            played: list[str] = []
            outcome: Outcome | None = None
            start = game
            for part in parts:
                # Nothing after a draw is looked at before that draw is committed:
                # until then no answer may depend on the cards it will show.
                try:
                    work, events, done = _apply(game, part, unchanged=not played, lang=lang)
                except IllegalMove as exc:
                    if not played:
                        raise
                    return Outcome(
                        reply=_after_draw_refusal(played, part, exc.message, start, game, lang)
                    )
                outcome = await self._commit(
                    row, seats, seat, user.id, part, game, work, events, done, lang=lang
                )
                played.append(part)
                if done or len(played) == len(parts):
                    break
                row = await self._fresh(game_id, lang=lang)
                game = work
            assert outcome is not None
            if len(played) > 1 and not outcome.posts:
                joined = normalize("; ".join(played))
                outcome.reply = t(
                    lang,
                    "Done: `{actions}` — {words}",
                    actions=shorten(joined, 1500),
                    words=panels.done_words(joined, start, game, lang=lang),
                )
            return outcome

    async def _commit(
        self,
        row: GameRow,
        seats: list[SeatRow],
        seat: SeatRow,
        user_id: int | None,
        text: str,
        before: Game,
        work: Game,
        events: Sequence[Mapping[str, Any]],
        done: bool,
        *,
        note: str = "",
        lang: str = DEFAULT,
    ) -> Outcome:
        """Write the accepted actions and describe them; the caller holds the lock.

        The reply speaks *lang* (the player's), the turn message the game's language.
        """
        over = next((e for e in events if e.get("type") == "game_over"), None)
        result = None
        stand_ins: list[str] = []
        if over is not None:
            stand_ins = await self._stand_ins(row, seats, (seat.name or "?", user_id, text))
            result = {
                "reason": "finished",
                "scores": dict(over.get("scores", work.scores)),
                "winners": list(over.get("winners", work.winners)),
            }
            if stand_ins:  # seats the computer played for their players (docs/bot.md, Ratings)
                result["stand_ins"] = stand_ins
        posts: list[Post] = []
        done_before = await self._turn_actions(row)
        if done:
            nxt = row.last_seq + 1
            new_row = replace(row, turn_no=row.turn_no + 1, turn_start_seq=nxt, last_seq=nxt)
            posts.append(
                await self._turn_post(
                    row,
                    new_row,
                    seats,
                    seat,
                    before,
                    work,
                    events,
                    [*done_before, *split_actions(text)],
                    stand_ins=stand_ins,
                )
            )
            if note:  # e.g. why the computer played this turn (play_for), in the same message
                posts[-1].text = f"{note}\n{posts[-1].text}"
        seq, ids = await self._record(
            row,
            seat,
            user_id,
            "play",
            normalize(text),
            work,
            turn_ended=done,
            result=result,
            outbox=posts,
        )
        if over is not None:
            self._forget(row.id)
        else:
            self._cache[row.id] = (seq, work.copy())
            now_done = () if done else (*done_before, *split_actions(normalize(text)))
            self._turn_log[row.id] = (seq, now_done, seq)
        if not done:
            return Outcome(
                reply=t(
                    lang,
                    "Done: `{actions}` — {words}",
                    actions=shorten(normalize(text), 1500),
                    words=panels.done_words(text, before, work, lang=lang),
                )
            )
        reply = t(lang, "Your turn is over.") if seat.user_id is not None else ""
        if over is not None:
            reply = t(lang, "The game is over.")
        return Outcome(reply=reply, posts=posts, ai_game=self._ai_pending(work, seats))

    async def _turn_post(
        self,
        old_row: GameRow,
        new_row: GameRow,
        seats: list[SeatRow],
        seat: SeatRow,
        before: Game,
        after: Game,
        events: Sequence[Mapping[str, Any]],
        played: Sequence[str],
        *,
        stand_ins: Sequence[str] = (),
    ) -> Post:
        """The public message for a finished decision; *played* are the turn's actions.

        At the game's end, *stand_ins* are the seats the computer played for their
        player (``_stand_ins``): named so in the result, with whether the game counts.
        """
        actions = [public_action(a) for a in played]
        lang = new_row.language
        start = old_row.turn_start_position or before.position()
        start_scores = dict(start.get("scores") or {})
        lines = [texts.turn_header(new_row.id, seat, actions, lang)]
        lines.append(texts.scores_line(after.scores, start_scores, after.players, lang))
        prior = _before_scoring(start, played, events)
        for event in events:
            if event.get("type") == "phase_scored":
                lines.append(texts.phase_summary(event, seats, after.position(), lang, prior))
        over = next((e for e in events if e.get("type") == "game_over"), None)
        if over is not None:
            # A person's seat is named as the result counts it: theirs, or the computer's
            # (one the computer played for them, or took over when they resigned).
            shown = [
                x if x.user_id is None else replace(x, is_ai=x.name in stand_ins or x.resigned)
                for x in seats
            ]
            lines.append(texts.game_over(after, shown, lang))
            lines.append(texts.stand_in_note(seats, stand_ins, lang))
        else:
            clock = await self._turn_clock(new_row.id)
            lines.append(self._next_line(new_row, after, seats, clock))
        highlight = frozenset(changed_squares(start, after.position()))
        post = self._board_post(new_row, after, seats, "\n".join(x for x in lines if x), highlight)
        post.highlight_note = t(
            lang, "changed by {player}'s turn", player=texts.picture_label(seat, lang)
        )
        if over is not None:
            post.buttons = ()
            post.turn = None
            post.mentions = tuple(s.user_id for s in seats if s.user_id and not s.is_ai)
            post.replay = True  # the whole game, animated, follows in a message of its own
        return post


def _before_scoring(
    start: dict[str, Any], played: Sequence[str], events: Sequence[Mapping[str, Any]]
) -> dict[str, int] | None:
    """The scores just before a phase was scored at this turn's end (None: no scoring, or
    the turn cannot be replayed): the turn's actions but its last, from its start."""
    if not any(e.get("type") == "phase_scored" for e in events) or not played:
        return None
    try:
        game = Game.from_position(start)
        for action in played[:-1]:
            game.play(action)
    except Exception:  # noqa: BLE001 - only the leap-frog line is missing then
        log.warning("could not replay a turn to explain its scoring", exc_info=True)
        return None
    return game.scores


def public_action(action: str) -> str:
    """An action as the other players may see it: which card a player keeps stays secret.

    >>> public_action("keep ap6 bottom")
    'keep ? bottom'
    """
    words = action.split()
    if len(words) == 3 and words[0] == "keep":
        return f"keep ? {words[2]}"
    return action


def draw_parts(text: str) -> list[str]:
    """*text* cut after every ``draw``: the parts the bot plays (and commits) one by one.

    >>> draw_parts("move c3 d3; draw; keep lift top; end")
    ['move c3 d3; draw', 'keep lift top; end']
    """
    parts: list[list[str]] = [[]]
    for clause in normalize(text).split("; "):  # clauses as typed: `score 6` stays one
        if clause:
            parts[-1].append(clause)
            if split_actions(clause) == ["draw"]:
                parts.append([])
    return ["; ".join(p) for p in parts if p]


def _after_draw_refusal(
    played: list[str], refused: str, why: str, before: Game, after: Game, lang: str = DEFAULT
) -> str:
    """The reply when a command's draw was made but what followed it was refused.

    *before* is the game before the command, *after* the game after its draw.
    """
    done = normalize("; ".join(played))
    words = panels.done_words(done, before, after, lang=lang)
    return t(
        lang,
        "Done: `{actions}` (a draw can't be taken back) — {words} "
        "Then `{refused}` was not played: {reason}",
        actions=shorten(done, 300),
        words=words,
        refused=shorten(refused, 300),
        reason=why,
    )


STOPPED_UNCHANGED = N_("This game is not running any more; nothing was changed.")
NOTHING_TO_UNDO = N_(
    "Nothing to take back: this turn has no actions yet, or the last one "
    "was a card draw (a draw can't be undone)."
)


def _ap_line(game: Game, lang: str = DEFAULT) -> str:
    return panels.ap_line(game, lang=lang)
