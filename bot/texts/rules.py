"""``/torres rules [topic]``: the rules in brief, in the project's own words (from docs/rules.md).

Each topic is one message id (its English text); the German and Dutch texts
live in ``bot/locales/<lang>/LC_MESSAGES/rules.po``, written with the words of
the German and Dutch rulebooks (Ritter, Burg, Baustein, Ebene…; ridder, burcht,
bouwsteen, niveau…). The topic keys are the command's option values and stay
English in every language, as do the notation examples and card ids.
"""

from __future__ import annotations

from bot.texts.i18n import N_, t, tp

TOPICS: dict[str, str] = {
    "overview": N_(
        """**Torres in brief**
You build castles together and climb them with your knights. Three phases; after each one, \
every castle pays its area × the level of your highest knight on it (knights on the ground \
earn nothing). Highest score after phase 3 wins.
• Board: 8×8, squares a1–h8. A *castle* is a group of orthogonally connected squares with \
blocks; its height may never exceed its area, and two castles may never be joined.
• Each turn: 5 action points (AP) for moving, adding knights, building, drawing cards, scoring.
• Play with `/torres play actions:…` (autocomplete offers the legal actions) and the buttons \
on the turn message.
More with `/torres rules topic:` {topics}."""
    ),
    "setup": N_(
        """**Setup**
• Eight castles of one block start on d1, c3, f3, h4, a5, c6, f6, e8 (the master version lets \
players place them instead).
• In seat order each player puts one knight on a starting castle without a knight \
(`place SQ`).
• Whoever placed the last knight puts the king on an empty castle (`king SQ`).
• Everyone gets stacks of blocks for the phase: one stack per turn (2 players: four stacks \
of 3 in every phase)."""
    ),
    "turn": N_(
        """**A turn: 5 action points**
• `knight SQ` (2 AP): a new knight next to one of yours, on a square no higher than that knight \
(6 knights at most).
• `move A B` (1 AP): one step to a free neighbour at most one level up; or a passage through \
a castle's doors.
• `build SQ` (1 AP): a block from this turn's stack (choose it with `stack K`, free).
• `draw` (1 AP, at most twice): take an action card. `play CARD …` (free, one per turn, not a \
card drawn this turn).
• `score` (1 AP each): move your scoring marker one step.
• `end` finishes the turn; unspent AP are lost and the turn's stack is used up."""
    ),
    "moving": N_(
        """**Moving knights**
• A step goes to an orthogonally adjacent free square, at most one level higher (any \
number lower).
• Doors: standing at level L next to a castle square higher than L, a knight may enter that \
castle and leave it anywhere through another door — onto a free square no higher than L that \
lies beside a higher square of the castle. It costs 1 AP and never ends higher than it started.
• Knights and the king block squares; blocks can never be put under them (only the `lift` card \
puts one under your own knight)."""
    ),
    "building": N_(
        """**Building**
• Blocks come from the stack you use this turn; each costs 1 AP.
• A block goes on top of a castle square, or on a bare square touching exactly one castle \
(which then grows by one). Never start a new castle, never join two.
• A castle may never be taller than its area.
• Blocks left in the turn's stack move to your lowest other stacks (up to 3 each); the rest \
go back to the supply."""
    ),
    "cards": N_(
        """**Action cards** (free to play, one per turn, never the turn you drew it)
`jump` exactly two levels up to a free neighbour · `lift` a block under your knight · \
`extra` block from the supply (`lift` and `extra` don't count toward the three blocks a turn) · \
`doorclimb`: a door passage \
without the level limit · `diagonal` step · `ap6` / `ap7`: one or two more AP · `moveblock`: \
move a top block · `relocate` a knight beside another of yours · `vault` over an adjacent \
knight of any colour.
Personal decks: you look at three and keep one (`keep CARD top` or `keep CARD bottom`); the \
other two go back together, in the order drawn.
Common deck by default. `/torres hand` shows your cards privately."""
    ),
    "scoring": N_(
        """**Scoring** (after the last turn of each phase)
• Each castle: its area × the level of your highest knight on it (knights on level 0 score \
nothing there).
• The king's castle: a knight on exactly level 1 / 2 / 3 (after phase 1 / 2 / 3) earns \
5 / 10 / 15 more.
• Master version: the master card may pay as well.
• On the track no two markers share a space above 0: a marker that would land on another \
jumps to the next free space."""
    ),
    "king": N_(
        """**The king**
After phases 1 and 2 the player with the fewest points (on a tie, the first in turn order) may \
move the king to any free castle square (`king SQ`) or leave it (`king pass`), and starts the \
next phase (in the master version the leader on points starts it)."""
    ),
    "master": N_(
        """**Master version**
• Players place the eight starting blocks themselves, each at least 3 squares (Manhattan) from \
the others (`castle SQ`).
• Everyone holds their ten cards from the start; there is no drawing.
• One master card pays extra for a knight formation (`/torres hand` shows which). After \
phase 3: `levels` all on different levels (40) · `same-level` all on one level (50) · `row`: one rank or one \
file, no diagonals (50) · `square`: four on the corners of any square, tilted too (50) · \
`neighbors`: one orthogonally connected group (40). After every phase: `border`, `diagonal` \
(per knight on the edge / a main diagonal) and `castles` (exactly 4 / 5 / 6 castles).
• From round 2 on, each round starts with the leader on points (while all scores are 0, the \
previous round's starter)."""
    ),
    "notation": N_(
        """**Typing actions**
Separate actions with `;`. Examples: `move c3 d3; build e4 e5; end` · `knight d4` · \
`stack 3` · `score 2` · `play jump c3 c4` · `play lift c3 turn`.
`move A B C` moves step by step; `build A B` builds on both. A command is all or nothing: \
if any action is illegal, nothing happens and you're told why. A `draw` is the exception: \
it is made first (it can't be taken back), then the rest is checked against the card you drew."""
    ),
    "undo": N_(
        """**Undo**
`/torres undo` (or the Undo button) takes back your last action of this turn, one at a \
time — but never past a card draw, and never into an earlier turn."""
    ),
}

DEFAULT_TOPIC = "overview"


def topic_text(lang: str, topic: str | None) -> str:
    """The text for *topic* in *lang*; the overview (which lists the topics) when it is unknown.

    *lang* is one of ``bot.texts.i18n.LANGUAGES`` (``language(interaction.locale)``);
    anything else reads English.
    """
    key = (topic or DEFAULT_TOPIC).strip().lower()
    if key in TOPICS and key != DEFAULT_TOPIC:
        return t(lang, TOPICS[key])
    # The overview lists the topics as Discord shows the option's choices to this
    # user (their names are translated in commands.po, their values stay English).
    names = [tp(lang, "command", k) for k in TOPICS if k != DEFAULT_TOPIC]
    overview = t(lang, TOPICS[DEFAULT_TOPIC], topics=", ".join(f"*{n}*" for n in names))
    if key == DEFAULT_TOPIC:
        return overview
    unknown = t(lang, "No rules topic called '{topic}'.", topic=str(topic)[:50])
    return unknown + "\n\n" + overview


def rules_text(topic: str | None) -> str:
    """The English text for *topic* (``topic_text`` in English)."""
    return topic_text("en", topic)
