"""The tutorial's lesson script (``/torres learn``), as data: which lesson is due.

A tutorial is a real two-player game: the computer sits first (``red``), the
learner second (``blue``), so that the learner is the one who places the king in
the setup. Each lesson teaches one rule the first time it comes up in that game;
while a lesson is open (shown, not yet tried) the learner is offered only the
actions that try it, so every lesson is tried before the next one comes. Lessons
with nothing to do (the phase's scoring, the king's move when the computer makes
it) are tried by confirming them.

Everything here is pure: it reads an :class:`engine.Game` and the lists of lessons
shown and tried, and decides. The words are in ``bot.texts.learn``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine import Game
from engine.board import castles

COMPUTER = "red"
LEARNER = "blue"
PLAYERS = (COMPUTER, LEARNER)
ROUNDS = 4  # a two-player phase (docs/rules.md §3)


def _adjacent(a: str, b: str) -> bool:
    return abs(ord(a[0]) - ord(b[0])) + abs(int(a[1]) - int(b[1])) == 1


def is_door(action: str) -> bool:
    """A one-passage ``move A B`` whose squares are not neighbours: through a castle's doors."""
    words = action.split()
    return words[0] == "move" and len(words) == 3 and not _adjacent(words[1], words[2])


def learner_turn(game: Game) -> int:
    """The learner's turn of the game being played (1 = their first), 0 in the setup."""
    if game.stage in ("castles", "place") or (game.stage == "king" and _setup_king(game)):
        return 0
    return (game.phase - 1) * ROUNDS + game.round


def _setup_king(game: Game) -> bool:
    return game.position()["king"] is None and game.phase == 1 and game.round == 1


def _after_scoring(game: Game) -> bool:
    """The king stage after a phase's scoring (whoever moves the king)."""
    return game.stage == "king" and not _setup_king(game)


@dataclass(frozen=True, slots=True)
class Lesson:
    """One rule to teach.

    ``tries`` says whether a legal action of the learner tries the lesson; a lesson
    without it (``tries is None``) is tried by confirming it. ``when`` says whether
    the game has come to the lesson (besides the learner being to move, and the
    learner's turn being at least ``first_turn``).
    """

    id: str
    when: Callable[[Game], bool]
    tries: Callable[[str], bool] | None
    first_turn: int = 0
    learner_moves: bool = True  # due only when the learner is to move


def _play(game: Game) -> bool:
    return game.stage == "play"


def _fresh_stack(game: Game) -> bool:
    return game.stage == "play" and (game.position()["turn"] or {}).get("stack") is None


def _kind(*kinds: str) -> Callable[[str], bool]:
    return lambda action: action.split()[0] in kinds


SCRIPT: tuple[Lesson, ...] = (
    Lesson("place", lambda g: g.stage == "place", _kind("place")),
    Lesson("king", lambda g: g.stage == "king" and _setup_king(g), _kind("king")),
    Lesson("move", _play, _kind("move"), first_turn=1),
    Lesson("stack", _fresh_stack, _kind("stack"), first_turn=1),
    Lesson("build", _play, _kind("build"), first_turn=1),
    Lesson("knight", _play, _kind("knight"), first_turn=2),
    Lesson("door", _play, is_door, first_turn=2),
    Lesson("cards", _play, _kind("draw"), first_turn=3),
    Lesson("play", _play, _kind("play"), first_turn=4),
    Lesson("score", _play, _kind("score"), first_turn=4),
    Lesson("scoring", _after_scoring, None, learner_moves=False),
    Lesson("king_move", _after_scoring, _kind("king"), learner_moves=False),
)
LESSONS = {lesson.id: lesson for lesson in SCRIPT}


def trying(lesson: Lesson, game: Game) -> list[str]:
    """The legal actions that try *lesson* now (none for a lesson tried by confirming,
    or for the king's move when the computer makes it)."""
    if lesson.tries is None or game.to_move != LEARNER:
        return []
    return [a for a in game.legal() if lesson.tries(a)]


def open_lesson(shown: Sequence[str], tried: Sequence[str]) -> Lesson | None:
    """The lesson shown and not yet tried, if any (at most one: the next waits for it)."""
    for lesson_id in shown:
        if lesson_id not in tried:
            return LESSONS[lesson_id]
    return None


def due(game: Game, shown: Sequence[str], tried: Sequence[str]) -> Lesson | None:
    """The lesson to show now: the first of the script not shown yet that the game has
    come to, when no other lesson is open. None: nothing new to show."""
    if open_lesson(shown, tried) is not None or game.stage == "over":
        return None
    for lesson in SCRIPT:
        if lesson.id in shown:
            continue
        if lesson.id == "king_move" and "scoring" not in tried:
            continue
        if lesson.learner_moves and game.to_move != LEARNER:
            continue
        if learner_turn(game) < lesson.first_turn or not lesson.when(game):
            continue
        if lesson.learner_moves and not trying(lesson, game):
            continue  # comes up later, when it can be tried
        return lesson
    return None


def confirmed_by_button(lesson: Lesson, game: Game) -> bool:
    """Whether *lesson* is tried by confirming it: nothing to do (the scoring), or the
    computer does it (the king's move when the computer has the fewest points)."""
    return lesson.tries is None or (lesson.id == "king_move" and game.to_move != LEARNER)


def offered(game: Game, shown: Sequence[str], tried: Sequence[str]) -> list[str] | None:
    """The actions the learner may choose now: those that try the open lesson, or None
    (every legal action) when no lesson is open. An empty list: only the lesson's button."""
    lesson = open_lesson(shown, tried)
    if lesson is None:
        return None
    if confirmed_by_button(lesson, game):
        return []
    return trying(lesson, game)


def tried_by(action: str, game: Game, shown: Sequence[str], tried: Sequence[str]) -> str | None:
    """The open lesson that the learner's *action* (legal in *game*) tries, if any."""
    lesson = open_lesson(shown, tried)
    if lesson is None or lesson.tries is None or game.to_move != LEARNER:
        return None
    return lesson.id if lesson.tries(action) else None


def finished(game: Game, tried: Sequence[str]) -> bool:
    """Whether every lesson is tried (or the game is over). The tutorial then ends when
    the learner's decision does, not in the middle of a turn."""
    return game.stage == "over" or all(lesson.id in tried for lesson in SCRIPT)


def _targets(actions: Sequence[str]) -> list[str]:
    out: list[str] = []
    for action in actions:
        for word in action.split()[1:]:
            if len(word) == 2 and word[0] in "abcdefgh" and word[1] in "12345678":
                out.append(word)
    return out


def highlight(lesson: Lesson, game: Game) -> list[str]:
    """The squares the lesson's picture marks: where it can be tried (the knights and
    where they can go, where a block can be placed…), the castles that scored."""
    position = game.position()
    if lesson.id == "scoring":
        mine = set(position["knights"].get(LEARNER, []))
        heights = position["heights"]
        return sorted(
            sq
            for castle in castles(heights)
            if any(k in castle and heights.get(k, 0) >= 1 for k in mine)
            or position["king"] in castle
            for sq in castle
        )
    if lesson.id == "king_move" and game.to_move != LEARNER:
        return [position["king"]] if position["king"] else []
    if lesson.id == "stack":  # where the chosen stack's blocks may go
        return sorted(set(_targets([a for a in game.legal() if a.startswith("build ")])))
    if lesson.id in ("cards", "score"):  # nothing on the board: the learner's knights
        return sorted(position["knights"].get(LEARNER, []))
    return sorted(set(_targets(trying(lesson, game))))
