"""The tutorial (``/torres learn``) without Discord: a private game against the computer
that teaches one rule at a time (the script: bot.core.learn; the words: bot.texts.learn).

A tutorial is kept in the store (``tutorials``: the seed, the actions played, the
lessons shown and tried), so the learner can leave it and pick it up again, in any
process. Each change raises its version; a tap carries the version it was made on
and acts only if the tutorial is still there (a second tap, an older message), else
the tutorial is shown as it is now. Nothing about an open message needs storing.

The computer plays the ``heuristic`` level, in the worker processes when there are
any. It reads only its own view of the game (engine.ai); the learner's picture shows
only the learner's hand.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bot.core import learn
from bot.core.learn import COMPUTER, LEARNER, PLAYERS, SCRIPT
from bot.core.panel import (
    DO,
    OUT_OF_DATE,
    WHAT,
    Option,
    Select,
    build_panel,
    describe,
    describe_all,
    done_words,
    split_options,
)
from bot.core.service import Lru, User
from bot.core.workers import WorkerPool
from bot.db.contract import GameStore
from bot.db.rows import TutorialRow
from bot.texts import learn as words
from bot.texts.i18n import t
from engine import Game, IllegalAction, NotationError, changed_squares, new_seed

THINK_SECONDS = 0.1  # the computer's budget a decision (the quick heuristic player)
CACHED = 256  # tutorials whose game is kept in memory (least recently used go first)
UNDO = "undo"  # a log entry taking the learner's last action back


@dataclass(slots=True)
class LearnView:
    """What the tutorial's message shows, and which taps it offers (the custom ids
    carry ``owner`` and ``version``)."""

    owner: int
    version: int
    text: str
    selects: list[Select] = field(default_factory=list)
    can_undo: bool = False
    can_end: bool = False
    can_confirm: bool = False  # the open lesson's Got it
    closed: bool = False  # finished or left: no components
    position: dict[str, Any] | None = None  # the learner's view
    highlight: list[str] = field(default_factory=list)
    note: str | None = None
    labels: dict[str, str] = field(default_factory=dict)


def _think(game: Game, seconds: float) -> list[str]:
    """The computer's next decision (module-level: it pickles into a worker)."""
    from engine.ai import choose_actions

    return list(choose_actions(game, seconds=seconds, level="heuristic"))


def replay(row: TutorialRow) -> Game:
    """The tutorial's game: its seed, then every entry of its log."""
    game = Game.new(names=list(PLAYERS), seed=row.seed)
    for entry in row.log:
        if entry == UNDO:
            game.undo()
        else:
            game.play(entry)
    return game


def _fresh_turn(game: Game) -> bool:
    """Whether the learner has done nothing yet in the decision before them."""
    if game.stage != "play":
        return True
    turn = game.position()["turn"] or {}
    return not game.can_undo and turn.get("stack") is None and not turn.get("played")


@dataclass(slots=True)
class _Step:
    """What one tap did, for the message: the learner's action, the computer's moves."""

    done: str = ""
    computer: list[tuple[tuple[str, ...], Game]] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    note: str = ""


class LearnService:
    """Tutorials, one per user. ``begin`` opens (or resumes) one, ``press`` acts on a tap."""

    def __init__(
        self,
        store: GameStore,
        *,
        seed: int | None = None,
        workers: WorkerPool | None = None,
        clock: Callable[[], float] = time.time,
        think: Callable[[Game, float], list[str]] = _think,
    ) -> None:
        """*seed*: every new tutorial's (tests; None: a fresh one each time)."""
        self._store = store
        self._seed = seed
        self._workers = workers
        self._clock = clock
        self._think = think
        self._locks: weakref.WeakValueDictionary[int, asyncio.Lock] = weakref.WeakValueDictionary()
        self._games: Lru[int, tuple[int, Game]] = Lru(CACHED)

    def _lock(self, user_id: int) -> asyncio.Lock:
        lock = self._locks.get(user_id)
        if lock is None:
            lock = self._locks[user_id] = asyncio.Lock()
        return lock

    async def _game(self, row: TutorialRow) -> Game:
        cached = self._games.get(row.user_id)
        if cached is not None and cached[0] == row.version:
            self._games.move_to_end(row.user_id)
            kept: Game = cached[1]
            return kept.copy()
        game = replay(row)
        self._games[row.user_id] = (row.version, game.copy())
        return game

    async def _decide(self, game: Game) -> list[str]:
        if self._workers is not None:
            return await self._workers.run(self._think, game.copy(), THINK_SECONDS)
        return await asyncio.to_thread(self._think, game.copy(), THINK_SECONDS)

    # -- commands ---------------------------------------------------------------

    async def begin(self, user: User, *, restart: bool = False) -> LearnView:
        """``/torres learn``: the user's tutorial where they left it, or a new one
        (none yet, the last one finished, or *restart*)."""
        lang = user.lang
        async with self._lock(user.id):
            row = await self._store.tutorial(user.id)
            if row is not None and not row.finished and not restart:
                game = await self._game(row)
                return self._view(row, game, _Step(), user, lang)
            now = self._clock()
            seed = self._seed if self._seed is not None else new_seed()
            old = 0 if row is None else row.version
            row = TutorialRow(user.id, seed, version=old + 1, created_at=now, updated_at=now)
            game = replay(row)
            step = _Step()
            row = await self._settle(row, game, step)
            await self._store.save_tutorial(row, replacing=None)
            self._games[user.id] = (row.version, game.copy())
            return self._view(row, game, step, user, lang)

    async def press(
        self, user: User, *, owner: int, version: int, op: str, value: str = ""
    ) -> LearnView:
        """A tap on the tutorial's message: ``what`` (a group: show its choices), ``do``
        (an action), ``undo``, ``end``, ``ok`` (the open lesson's Got it), ``leave``."""
        lang = user.lang
        if owner != user.id:
            return LearnView(owner, version, words.not_yours(lang), closed=True)
        async with self._lock(user.id):
            row = await self._store.tutorial(user.id)
            if row is None:
                return LearnView(owner, version, words.no_tutorial(lang), closed=True)
            game = await self._game(row)
            if row.version != version or row.finished:
                step = _Step(note="⚠ " + t(lang, OUT_OF_DATE))
                return self._view(row, game, step, user, lang)
            if op == "leave":
                return LearnView(owner, version, words.left_text(lang), closed=True)
            if op == "what":
                group = value[len(WHAT) :] if value.startswith(WHAT) else None
                if group is None:
                    return await self._act(row, game, value, user, lang)
                return self._view(row, game, _Step(), user, lang, group=group)
            if op == "do":
                return await self._act(row, game, value, user, lang)
            if op in ("undo", "end", "ok"):
                return await self._act(row, game, op, user, lang)
            return self._view(row, game, _Step(), user, lang)

    async def _act(
        self, row: TutorialRow, game: Game, choice: str, user: User, lang: str
    ) -> LearnView:
        step = _Step()
        offered = learn.offered(game, row.shown, row.tried)
        log, tried = list(row.log), list(row.tried)
        if choice == "ok":
            lesson = learn.open_lesson(row.shown, row.tried)
            if lesson is None or not learn.confirmed_by_button(lesson, game):
                return self._view(row, game, step, user, lang)
            tried.append(lesson.id)
        elif choice == "undo":
            if offered is not None or game.to_move != LEARNER or not game.can_undo:
                return self._view(row, game, step, user, lang)
            game.undo()
            log.append(UNDO)
            taken = describe(_last_played(row.log), game, lang=lang)
            step.done = t(lang, "Took back: {action}.", action=taken)
        else:
            action = choice[len(DO) :] if choice.startswith(DO) else choice
            allowed = game.legal() if offered is None else offered
            if game.to_move != LEARNER or action not in allowed:
                step.note = "⚠ " + t(lang, "That is not one of the choices now; choose again.")
                return self._view(row, game, step, user, lang)
            before = game.copy()
            try:
                game.play(action)
            except (IllegalAction, NotationError):  # listed as legal: never expected
                step.note = "⚠ " + t(lang, "That is not one of the choices now; choose again.")
                return self._view(row, before, step, user, lang)
            log.append(action)
            lesson_id = learn.tried_by(action, before, row.shown, row.tried)
            if lesson_id is not None:
                tried.append(lesson_id)
            step.done = words.done(done_words(action, before, game, panel=True, lang=lang), lang)
        new = replace(
            row,
            log=tuple(log),
            tried=tuple(tried),
            version=row.version + 1,
            updated_at=self._clock(),
        )
        new = await self._settle(new, game, step)
        if not await self._store.save_tutorial(new, replacing=row.version):
            # another process took a tap first: show the tutorial as it is now
            fresh = await self._store.tutorial(user.id)
            if fresh is None:
                return LearnView(row.user_id, row.version, words.no_tutorial(lang), closed=True)
            step = _Step(note="⚠ " + t(lang, OUT_OF_DATE))
            return self._view(fresh, await self._game(fresh), step, user, lang)
        self._games[user.id] = (new.version, game.copy())
        return self._view(new, game, step, user, lang)

    async def _settle(self, row: TutorialRow, game: Game, step: _Step) -> TutorialRow:
        """Show the lesson that is due, let the computer play up to the learner's next
        decision (or a lesson to confirm), and finish the tutorial when it is done."""
        log, shown = list(row.log), list(row.shown)
        changed: set[str] = set()
        while True:
            if learn.finished(game, row.tried) and (game.to_move != LEARNER or _fresh_turn(game)):
                row = replace(row, finished=True)
                break
            lesson = learn.due(game, shown, row.tried)
            if lesson is not None:
                shown.append(lesson.id)
                continue
            if learn.open_lesson(shown, row.tried) is not None:
                break
            if game.to_move != COMPUTER or game.stage == "over":
                break
            before = game.copy()
            actions = await self._decide(game)
            game.play("; ".join(actions))
            log.extend(actions)
            step.computer.append((tuple(actions), before))
            changed.update(changed_squares(before.position(), game.position()))
        step.changed = sorted(changed)
        return replace(row, log=tuple(log), shown=tuple(shown))

    # -- the message --------------------------------------------------------------

    def _view(
        self,
        row: TutorialRow,
        game: Game,
        step: _Step,
        user: User,
        lang: str,
        *,
        group: str | None = None,
    ) -> LearnView:
        labels = {COMPUTER: words.computer_name(lang), LEARNER: user.display}
        view = LearnView(
            row.user_id,
            row.version,
            "",
            position=game.position(viewer=LEARNER),
            labels=labels,
        )
        lines = [words.intro(lang)]
        lines.extend(_computer_lines(step, lang))
        if step.done:
            lines.append(step.done)
        if row.finished:
            scores = game.scores
            lines.append(words.scores_line(scores[LEARNER], scores[COMPUTER], lang))
            lines.append(words.finished_text(game.stage == "over", lang))
            view.text = "\n".join(lines)
            view.closed = True
            view.highlight = step.changed
            view.note = words.computer_changed(lang) if step.changed else None
            return view
        lesson = learn.open_lesson(row.shown, row.tried)
        offered = learn.offered(game, row.shown, row.tried)
        model = None
        if game.to_move == LEARNER and game.stage != "over":
            model = build_panel(game, header="", group=group, lang=lang)
        if lesson is not None:
            number = row.shown.index(lesson.id) + 1
            by_computer = learn.confirmed_by_button(lesson, game) and lesson.id == "king_move"
            lines.append(words.lesson_text(lesson.id, number, len(SCRIPT), lang))
            if lesson.id == "scoring":
                scores = game.scores
                lines.append(words.scores_line(scores[LEARNER], scores[COMPUTER], lang))
            lines.append(words.attempt_line(lesson.id, by_computer, lang))
            view.highlight = learn.highlight(lesson, game)
            view.note = words.marks_note(lesson.id, by_computer, lang)
            view.can_confirm = offered == []
            if offered:
                view.selects = _lesson_selects(offered, game, lang)
        else:
            lines.append(words.free_play(lang))
            view.highlight = step.changed
            view.note = words.computer_changed(lang) if step.changed else None
            if model is not None:
                view.selects = model.selects
                view.can_undo = model.can_undo
                view.can_end = model.can_end
        if model is not None and model.text:
            lines.append(model.text)
        if step.note:
            lines.append(step.note)
        view.text = "\n".join(x for x in lines if x)
        return view


def _computer_lines(step: _Step, lang: str) -> list[str]:
    """The computer's decisions of this tap, in words and in the notation."""
    return [
        words.computer_played(describe_all(actions, before, lang=lang), "; ".join(actions), lang)
        for actions, before in step.computer
    ]


def _last_played(log: Sequence[str]) -> str:
    """The action an ``undo`` appended to *log* takes back: the last one not undone."""
    played: list[str] = []
    for entry in log:
        if entry == UNDO:
            played.pop()
        else:
            played.append(entry)
    return played[-1]


def _lesson_selects(actions: Sequence[str], game: Game, lang: str) -> list[Select]:
    """The lesson's choices: exactly the actions that try it, in words, split by rank
    into up to three selects as the panel does."""
    options = [Option(describe(a, game, lang=lang)[:100], (DO + a)[:100]) for a in actions]
    chunks = split_options(options, list(actions))[:3]
    return [
        Select(f"do{i}", t(lang, words.CHOOSE), tuple(options[j] for j in chunk))
        for i, chunk in enumerate(chunks)
    ]
