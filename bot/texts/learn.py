"""The tutorial's words (``/torres learn``): each lesson of bot.core.learn in the
rulebooks' own words, and the lines around them.

The lessons quote the English rulebook closely (German and Dutch: their own
rulebooks, in the catalogs ``learn.po``), changed only where this game differs from
the table: two players, a common deck, the computer as the other player.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.texts.i18n import DEFAULT, N_, t
from bot.texts.posts import dotted


@dataclass(frozen=True, slots=True)
class LessonWords:
    """A lesson's msgids: its title, the rule, what to try, what the picture marks."""

    title: str
    rule: str
    attempt: str
    marks: str


LESSON_WORDS: dict[str, LessonWords] = {
    "place": LessonWords(
        N_("Placing your first knight"),
        N_(
            "Each player places one of their knights on an empty castle, so that each "
            "player starts one knight on a different castle. The computer has placed its "
            "knight: now it is your turn."
        ),
        N_("Choose an empty starting castle for your first knight."),
        N_("empty castles for your knight"),
    ),
    "king": LessonWords(
        N_("The king"),
        N_(
            "The last player then places the King on any empty castle, making it the "
            "king's castle for the first year. After the first phase a knight on level 1 "
            "of the king's castle earns 5 bonus points (after phase 2: level 2, 10 points; "
            "after phase 3: level 3, 15 points)."
        ),
        N_("Put the king on an empty castle."),
        N_("empty castles for the king"),
    ),
    "move": LessonWords(
        N_("Action points and moving"),
        N_(
            "On your turn you have 5 action points (AP) to spend in any order. Moving a "
            "knight costs 1 AP per space. A knight moves orthogonally, never diagonally. A "
            "knight may move up only one level per move, but may move down any number of "
            "levels, and only to a space not occupied by the King or another knight. AP you "
            "do not spend are lost when your turn ends."
        ),
        N_("Move one of your knights one space (1 AP)."),
        N_("your knights and where they can go"),
    ),
    "stack": LessonWords(
        N_("Your stacks of blocks"),
        N_(
            "Before each phase you take tower blocks from the common supply: with two "
            "players, 4 stacks of 3. The number of stacks you hold shows how many turns you "
            "have left in the phase, because you may place blocks only from one stack per "
            "turn. Blocks you leave are redistributed onto your other stacks (never more "
            "than three on one); the rest return to the supply."
        ),
        N_("Choose the stack you will build from this turn (0 AP)."),
        N_("where its blocks may go"),
    ),
    "build": LessonWords(
        N_("Building and the height rule"),
        N_(
            "Placing a tower block costs 1 AP. Each block must be added to an existing "
            "castle: either placed on the board next to the castle (level 0), enlarging its "
            "surface area, or placed on top of an existing block, making that part of the "
            "castle taller. A castle may never be taller than its surface area: a castle of "
            "3 spaces is limited to 3 levels. Enlarging a castle may not connect it to "
            "another castle; castles may only touch diagonally."
        ),
        N_("Place a block on one of the marked squares (1 AP)."),
        N_("squares a block may go on"),
    ),
    "knight": LessonWords(
        N_("Adding a knight"),
        N_(
            "For 2 AP you place a new knight on an empty space adjacent to a knight of your "
            "colour already on the board. Adjacency is orthogonal, not diagonal: at most "
            "four spaces next to each knight. The space must be at the same level as that "
            "knight or lower, never higher. You have 6 knights in all."
        ),
        N_("Add a knight on one of the marked squares (2 AP)."),
        N_("squares for a new knight"),
    ),
    "door": LessonWords(
        N_("Through the doors"),
        N_(
            "The tower blocks have doors on all four sides. A knight may enter a castle "
            "through any door and exit from any other door of that castle for only 1 AP. "
            "Moving through a castle this way, a knight cannot go up levels, but may descend "
            "as far as it likes."
        ),
        N_("Send a knight through a castle's doors (1 AP)."),
        N_("knights that can go through, and where they can come out"),
    ),
    "cards": LessonWords(
        N_("Action cards"),
        N_(
            "For 1 AP you draw the top card of the deck, at most 2 cards per turn. A card "
            "may not be played on the turn it is drawn; you may hold it until you play it."
        ),
        N_("Draw a card (1 AP)."),
        N_("your knights"),
    ),
    "play": LessonWords(
        N_("Playing a card"),
        N_(
            "Playing an action card costs 0 AP, at most one card per turn, never one drawn "
            "that same turn. You perform its action, then the card leaves the game."
        ),
        N_("Play one of your cards (0 AP)."),
        N_("where your cards can act"),
    ),
    "score": LessonWords(
        N_("The scoring track and leap-frog"),
        N_(
            "You may spend 1 AP to move your scoring marker forward one space, usually when "
            "there is nothing else you want to do. Only one marker is allowed per space: a "
            "marker that would land on an occupied space moves to the next empty space. So "
            "you gain more if your marker is right behind another."
        ),
        N_("Move your marker forward (1 AP a space)."),
        N_("your knights"),
    ),
    "scoring": LessonWords(
        N_("Scoring"),
        N_(
            "At the end of each phase the positions are scored. For every castle where you "
            "have a knight you score the castle's surface area × the level of your highest "
            "knight there, once per castle; knights on the ground score nothing. Then the "
            "king's bonus: after phase 1, 5 points for a knight on level 1 of the king's "
            "castle. A marker that would land on an occupied space moves on to the next "
            "empty one, so there are no ties."
        ),
        N_("See what the castles brought, then press Got it."),
        N_("your knights' castles and the king's"),
    ),
    "king_move": LessonWords(
        N_("The king's move"),
        N_(
            "After the scoring the player with the lowest score may move the King to any "
            "empty space of any castle, at any level, or leave him where he is. That player "
            "then starts the next phase."
        ),
        N_("You have the fewest points: put the king on a marked square, or leave him."),
        N_("where the king may go"),
    ),
}

COMPUTER_MOVES_KING = N_("The computer has the fewest points, so it moves the king: press Got it.")
COMPUTER_KING_MARKS = N_("the king")

GOT_IT = N_("Got it")
LEAVE = N_("Leave")
CHOOSE = N_("Try it: choose")


def lesson_text(lesson_id: str, number: int, total: int, lang: str = DEFAULT) -> str:
    """A lesson as the tutorial shows it: title, the rule, then what to try."""
    words = LESSON_WORDS[lesson_id]
    title = t(
        lang, "Lesson {n} of {total}: {title}", n=number, total=total, title=t(lang, words.title)
    )
    return f"🎓 **{title}**\n{t(lang, words.rule)}"


def attempt_line(lesson_id: str, computer_acts: bool, lang: str = DEFAULT) -> str:
    text = COMPUTER_MOVES_KING if computer_acts else LESSON_WORDS[lesson_id].attempt
    return "👉 " + t(lang, text)


def marks_note(lesson_id: str, computer_acts: bool, lang: str = DEFAULT) -> str:
    """The picture's legend for the pink frames of a lesson."""
    return t(lang, COMPUTER_KING_MARKS if computer_acts else LESSON_WORDS[lesson_id].marks)


def intro(lang: str = DEFAULT) -> str:
    return t(
        lang,
        "🎓 **Torres tutorial**: a game of your own against the computer ({computer}); "
        "you play {you}. Only you see it.",
        computer=dotted("red", lang),
        you=dotted("blue", lang),
    )


def free_play(lang: str = DEFAULT) -> str:
    return t(
        lang,
        "Play your turn as you like; the next lesson comes when its rule first comes up.",
    )


def computer_played(words: str, actions: str, lang: str = DEFAULT) -> str:
    return t(lang, "The computer played: {words} (`{actions}`).", words=words, actions=actions)


def done(words: str, lang: str = DEFAULT) -> str:
    return t(lang, "Done: {words}", words=words)


def scores_line(you: int, computer: int, lang: str = DEFAULT) -> str:
    return t(lang, "Points: you {you}, the computer {computer}.", you=you, computer=computer)


def finished_text(over: bool, lang: str = DEFAULT) -> str:
    if over:
        head = t(lang, "🎓 **The game is over**, and so is the tutorial.")
    else:
        head = t(lang, "🎓 **Tutorial complete!** You have tried every rule of Torres.")
    return "\n".join(
        (
            head,
            t(
                lang,
                "Start a real game with `/torres new bots:1`; `/torres learn restart:True` "
                "takes the tutorial again.",
            ),
        )
    )


def left_text(lang: str = DEFAULT) -> str:
    return t(lang, "Tutorial saved. `/torres learn` picks it up where you left it.")


def computer_changed(lang: str = DEFAULT) -> str:
    return t(lang, "changed by the computer's turn")


def not_yours(lang: str = DEFAULT) -> str:
    return t(lang, "This tutorial is someone else's; start your own with `/torres learn`.")


def no_tutorial(lang: str = DEFAULT) -> str:
    return t(lang, "This tutorial is no longer there; `/torres learn` starts a new one.")


def computer_name(lang: str = DEFAULT) -> str:
    return t(lang, "Computer")
