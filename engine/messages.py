"""The engine's refusals in English: one template per stable code (docs/notation.md).

Every ``NotationError`` and ``IllegalAction`` the engine raises carries a
``code`` from ``TEMPLATES`` and ``params`` (square names, numbers, card ids,
player names, texts the player typed); its English text is the template filled
with them.  A front end in another language translates the templates (they are
its message ids) and fills them the same way.

Two placeholders are not params as they are: ``{levels}`` shows the number in
``params["levels"]`` as words ("two levels"), and ``{card_name}`` the name of
the card ``params["card"]``.  An entry ``(singular, plural, count)`` is a
plural message: the form is chosen by ``params[count]``.
"""

from __future__ import annotations

from collections.abc import Mapping

from .cards import CARDS

Params = Mapping[str, str | int]
Entry = str | tuple[str, str, str]

_P = "Impossible position: "  # what every position_* text starts with

TEMPLATES: dict[str, Entry] = {
    # ------------------------------------------------ reading actions (NotationError)
    "not_a_square": "'{text}' is not a square; squares run from a1 to h8.",
    "actions_not_text": "Actions must be given as text, for example 'move c3 d3; end'.",
    "move_needs_squares": "'{text}' needs at least two squares, for example 'move c3 d3'.",
    "build_needs_square": "'{text}' needs a square, for example 'build e4'.",
    "bad_stack_size": "'{text}': a stack is named by its size in digits 0-9, for example 'stack 2'.",
    "bad_score_steps": "'{text}': score takes a number of steps from 1 to 999 in digits 0-9, "
    "for example 'score 2'.",
    "bad_keep": "'{text}' must be 'keep CARD top' or 'keep CARD bottom'.",
    "play_needs_card": "'{text}' needs a card, for example 'play ap6'.",
    "bad_lift": "'{text}' must be 'play lift A', 'play lift A K' or 'play lift A turn'.",
    "bad_lift_source": "'{text}': the block comes from a stack named by its size in digits 0-9, "
    "or 'turn'.",
    "not_an_action": "'{text}' is not an action; actions start with castle, place, king, knight, "
    "move, stack, build, draw, keep, play, score or end.",
    "malformed": "'{text}' is malformed; write it as '{form}'.",
    "malformed_king": "'{text}' is malformed; write it as 'king SQ' or 'king pass'.",
    "not_a_card": "'{text}' is not a card; the cards are {cards}.",
    "no_action": "No action given; type one, for example 'move c3 d3' or 'end'.",
    "not_a_player": "'{player}' is not a player in this game.",
    "castles_not_a_square": "{value} is not a square; squares run from a1 to h8.",
    "castles_bad_height": "The height of {square} must be a whole number, not {value}.",
    # ------------------------------------------------ a new game (NotationError)
    "players_not_list": "Players must be a list of names.",
    "player_count": "Torres is played by 2, 3 or 4 players.",
    "player_name_empty": "A player name may not be empty.",
    "player_names_same": "Player names must be different from each other.",
    "names_count": "{names} names were given for a {players}-player game; give one name a player.",
    "bad_variant": "'{value}' is not a variant; choose common, personal or master.",
    "bad_seed": "The seed must be a whole number.",
    "bad_master_card": "'{value}' is not a master card; they are {cards}.",
    "master_card_not_master": "A master card is only used in the master version.",
    # ------------------------------------------------ the command line (NotationError)
    "cli_not_a_number": "{option} must be a whole number, not '{text}'.",
    "cli_players_names": "--players and --names disagree about the number of players.",
    "cli_cannot_read_position": "Cannot read the position file {path}: {error}.",
    "cli_cannot_read_record": "Cannot read the record file {path}: {error}.",
    "cli_position_not_utf8": "The position file {path} is not UTF-8 text.",
    "cli_record_not_utf8": "The record file {path} is not UTF-8 text.",
    "cli_bad_json": "The position is not valid JSON ({error} at line {line}, column {column}).",
    "cli_json_too_deep": "The position is not valid JSON (nested too deeply).",
    "cli_number_too_long": "The position holds a number of {digits} digits; "
    "a number in a position has at most {most} digits.",
    # ------------------------------------------------ reading a position (NotationError)
    "position_not_object": _P + "a position must be a JSON object.",
    "position_format": _P + "'format' must be \"{format}\".",
    "position_no_players": _P + "'players' is missing.",
    "position_players_not_list": _P + "players must be a list of names.",
    "position_player_count": _P + "torres is played by 2, 3 or 4 players.",
    "position_player_name_empty": _P + "a player name may not be empty.",
    "position_player_names_same": _P + "player names must be different from each other.",
    "position_variant": _P + "'variant' is {value}; it must be common, personal or master.",
    "position_stage": _P + "'stage' is {value}; it must be one of {stages}.",
    "position_not_whole": _P + "'{key}' must be a whole number, not {value}.",
    "position_range": _P + "'{key}' is {value}, but it must be from {low} to {high}.",
    "position_at_least": _P + "'{key}' is {value}, but it must be {low} or more.",
    "position_key_not_object": _P + "'{key}' must be an object.",
    "position_not_square": _P + "'{key}': {value} is not a square (a1 to h8).",
    "position_not_player": _P + "'{key}': {value} is not one of the players ({players}).",
    "position_height": _P + "the height of {square} must be a whole number of 0 or more, "
    "not {value}.",
    "position_knights_not_list": _P + "the knights of {player} must be a list of squares.",
    "position_knight_not_square": _P + "the knights of {player}: {value} is not a square "
    "(a1 to h8).",
    "position_too_many_knights": _P + "{player} has {count} knights; a player has at most 6.",
    "position_two_knights": _P + "two knights stand on {square} ({player} and {other}).",
    "position_king_and_knight": _P + "the king and {player}'s knight both stand on {square}.",
    "position_king_too_early": _P + "the king is placed after the first knights, "
    "but the stage is {stage}.",
    "position_king_phase_3": _P + "the king moves after the scoring of phases 1 and 2 only, "
    "but 'phase' is 3.",
    "position_score": _P + "the score of {player} must be a whole number of 0 or more, "
    "not {value}.",
    "position_stacks": _P + "the stacks of {player} must be a list of block counts.",
    "position_hand_not_list": _P + "the hand of {player} must be a list of card ids.",
    "position_hand_not_card": _P + "the hand of {player}: {value} is not a card ({cards}).",
    "position_drawn_not_list": _P + "the cards drawn this turn must be a list of card ids.",
    "position_drawn_not_card": _P + "the cards drawn this turn: {value} is not a card ({cards}).",
    "position_revealed_not_list": _P + "the revealed cards must be a list of card ids.",
    "position_revealed_not_card": _P + "the revealed cards: {value} is not a card ({cards}).",
    "position_common_deck_not_list": _P + "the common deck must be a list of card ids.",
    "position_common_deck_not_card": _P + "the common deck: {value} is not a card ({cards}).",
    "position_deck_not_list": _P + "the deck of {player} must be a list of card ids.",
    "position_deck_not_card": _P + "the deck of {player}: {value} is not a card ({cards}).",
    "position_master_card": _P + "{value} is not a master card ({cards}).",
    "position_turn": _P + "'turn' must be an object or null.",
    "position_turn_stack": _P + "the turn's stack must be a number of blocks or null, not {value}.",
    "position_played": _P + "'played' in 'turn' must be true or false.",
    "position_revealed_count": _P + "at most three cards are revealed by a draw.",
    "position_keep_master": _P + "the stage is draw-keep, but there is no drawing in the "
    "master version.",
    "position_keep_nothing": _P + "the stage is draw-keep, but no drawn cards await 'keep'.",
    "position_keep_stage": _P + "cards await 'keep', but the stage is not draw-keep.",
    "position_master_decks": _P + "the master version has no decks, so 'decks' must be empty.",
    "position_common_decks": _P + "with a common deck, 'decks' has only the key \"common\", "
    "not {value}.",
    # ------------------------------------------------ the stage (IllegalAction)
    "game_over": "The game is over.",
    "stage_castles": "It is the castle placement: place a starting block with 'castle SQ'.",
    "stage_place": "It is the setup: put your first knight on a starting castle with 'place SQ'.",
    "stage_place_king": "The king must be placed first: put it on an empty castle with 'king SQ'.",
    "stage_king": "First decide about the king: move it with 'king SQ' or leave it with "
    "'king pass'.",
    "stage_keep": "First choose the card to keep: 'keep CARD top' or 'keep CARD bottom'.",
    "nothing_to_keep": "There are no drawn cards waiting to be kept.",
    "king_after_scoring": "The king moves only after a phase's scoring.",
    "setup_over": "'{verb}' is an action of the setup, and the setup is over.",
    # ------------------------------------------------ setup (IllegalAction)
    "castle_taken": "{square} already holds a starting block.",
    "castle_too_close": "{square} is too close to the block on {other}; starting blocks must be "
    "at least three steps apart (two empty squares between them orthogonally).",
    "place_not_castle": "{square} is not a starting castle; place your knight on one.",
    "place_castle_taken": "The castle on {square} already holds a knight.",
    "king_must_be_placed": "The king must be placed now: put it on an empty castle with 'king SQ'.",
    "king_not_castle": "{square} is not part of a castle; the king stands on a castle.",
    "king_castle_taken": "The castle on {square} holds a knight; the king starts on an empty "
    "castle.",
    # ------------------------------------------------ pieces and action points
    "no_own_knight": "You have no knight on {square}.",
    "square_holds_king": "{square} holds the king, not one of your knights.",
    "knight_not_yours": "The knight on {square} is {player}'s, not yours.",
    "occupied_by_king": "{square} is not empty: the king stands there.",
    "occupied_by_own": "{square} is not empty: your knight stands there.",
    "occupied_by_knight": "{square} is not empty: {player}'s knight stands there.",
    "ap_move": "A move costs 1 action point and you have no action points left.",
    "ap_build": "Placing a block costs 1 action point and you have no action points left.",
    "ap_knight": "Adding a knight costs 2 action points and you have no action points left.",
    "ap_knight_short": "Adding a knight costs 2 action points and you have only {ap} action "
    "point left.",
    "ap_draw": "Drawing a card costs 1 action point and you have no action points left.",
    "ap_score": "Moving your scoring marker costs 1 action point and you have no action "
    "points left.",
    # ------------------------------------------------ moving a knight
    "move_same_square": "A move must go to another square.",
    "step_too_high": "{dst} is {levels} above your knight on {src}; a step climbs at most "
    "one level.",
    "door_ends_higher": "{dst} is not next to {src}, and a door passage never ends higher than "
    "it starts ({dst} is level {dst_level}, your knight level {level}).",
    "no_wall": "{dst} is not next to {src}, and no castle wall next to {src} rises above your "
    "knight's level {level}, so there is no door to go through.",
    "no_door": "{dst} is not next to {src}, and no door of a castle your knight can enter there "
    "leads out onto {dst} (it must be next to a higher square of that castle).",
    # ------------------------------------------------ blocks and stacks
    "no_stack": "You have no stack to build from.",
    "stacks_empty": "All your stacks are empty, so you have no block to place.",
    "turn_stack_empty": "This turn's stack has no blocks left.",
    "stack_chosen": (
        "You already use a stack this turn ({left} blocks left in it).",
        "You already use a stack this turn ({left} blocks left in it).",
        "left",
    ),
    "no_such_stack": "You have no stack of {size} blocks (your stacks: {stacks}).",
    "no_such_stack_none": "You have no stack of {size} blocks (your stacks: none).",
    "block_too_tall": "A block on {square} would make it level {level} on a castle of area "
    "{area}; a castle may not be taller than its area.",
    "block_touches_no_castle": "{square} touches no castle; a block on the bare board must "
    "extend exactly one castle.",
    "block_joins_2": "A block on {square} would join the castles on {s1} and {s2}; "
    "castles may touch only diagonally.",
    "block_joins_3": "A block on {square} would join the castles on {s1} and {s2} and {s3}; "
    "castles may touch only diagonally.",
    "block_joins_4": "A block on {square} would join the castles on {s1} and {s2} and {s3} and "
    "{s4}; castles may touch only diagonally.",
    "block_castle_taller": "A block on {square} would leave its castle taller ({height}) than "
    "its area ({area}).",
    # ------------------------------------------------ new knights, cards, scoring
    "all_knights_placed": "All 6 of your knights are already on the board.",
    "add_not_next": "{square} is not orthogonally next to one of your knights.",
    "relocate_not_next": "{square} is not orthogonally next to another of your knights.",
    "add_too_high": "{square} is level {level}, higher than your knights next to it; "
    "a new knight goes on the same level or lower.",
    "relocate_too_high": "{square} is level {level}, higher than your other knights next to it; "
    "a relocated knight goes on the same level or lower.",
    "no_draw_master": "There is no drawing in the master version.",
    "drawn_two": "You have already drawn two cards this turn.",
    "deck_empty": "The deck is empty.",
    "own_deck_empty": "Your deck is empty.",
    "not_drawn": "{card} is not among the cards you drew ({cards}).",
    "card_played": "You have already played a card this turn.",
    "card_not_in_hand": "You have no {card} card ({card_name}) in your hand.",
    "card_drawn_this_turn": "You drew your {card} card this turn; a card cannot be played on "
    "the turn it is drawn.",
    "supply_empty": "The common supply has no blocks left.",
    # ------------------------------------------------ the action cards
    "jump_not_next": "{dst} is not orthogonally next to {src}.",
    "jump_not_two_up": "{dst} is level {dst_level} and your knight on {src} is level {level}; "
    "a jump goes exactly two levels up (to level {target}).",
    "diagonal_not_next": "{dst} is not diagonally next to {src}.",
    "diagonal_too_high": "{dst} is {levels} above your knight on {src}; a diagonal move climbs "
    "at most one level.",
    "vault_not_straight": "{dst} is not two squares from {src} in a straight orthogonal line.",
    "vault_over_king": "A knight may not jump over the king on {over}.",
    "vault_over_nothing": "There is no knight on {over} to jump over.",
    "vault_too_high": "{dst} is {levels} above your knight on {src}; a vault lands at most one "
    "level higher.",
    "doorclimb_same_square": "A door climb must end on another square.",
    "doorclimb_no_wall": "No castle wall next to {src} rises above your knight's level {level}, "
    "so there is no door to go through.",
    "doorclimb_no_door": "No door of a castle your knight can enter from {src} leads onto {dst} "
    "(it must be next to a higher square of that castle).",
    "lift_no_block": "None of your stacks holds a block to put under your knight.",
    "lift_no_turn_stack": "You have not chosen this turn's stack yet; name a stack by its size, "
    "for example 'play lift {square} {size}'.",
    "lift_zero_stack": "A stack of 0 blocks has no block to give.",
    "lift_too_tall": "A block under your knight on {square} would make it level {level} on a "
    "castle of area {area}; a castle may not be taller than its area.",
    "moveblock_no_block": "{square} has no block to move.",
    "moveblock_under_king": "The king stands on {square}; only a block with nothing on it can "
    "be moved.",
    "moveblock_under_own": "Your knight stands on {square}; only a block with nothing on it can "
    "be moved.",
    "moveblock_under_knight": "{player}'s knight stands on {square}; only a block with nothing "
    "on it can be moved.",
    "moveblock_same_square": "The block must go to another square.",
    "moveblock_splits": "Taking the block from {square} would split its castle in two.",
    "moveblock_joins": "A block on {square} would join two castles; castles may touch only "
    "diagonally.",
    "moveblock_too_few_castles": "Moving this block would leave only {castles} castles; "
    "there must be at least 6.",
    "moveblock_too_tall": "Afterwards the castle with {square} would be {height} high on an area "
    "of {area}; a castle may not be taller than its area.",
    "moveblock_not_there": "The block on {src} cannot be moved to {dst}.",
}

_LEVEL_WORDS = {1: "one level", 2: "two levels", 3: "three levels"}


def level_words(d: int) -> str:
    """``{levels}`` in English: "two levels", "5 levels"."""
    return _LEVEL_WORDS.get(d, f"{d} levels")


def template(code: str, params: Params) -> str:
    """The English template of ``code`` (for a plural message, the form ``params`` need)."""
    entry = TEMPLATES[code]
    if isinstance(entry, str):
        return entry
    singular, plural, count = entry
    return singular if params[count] == 1 else plural


def english(code: str, params: Params) -> str:
    """The English text of a refusal: its template filled with ``params``."""
    text = template(code, params)
    values: dict[str, object] = dict(params)
    if "{levels}" in text:
        values["levels"] = level_words(int(params["levels"]))
    if "{card_name}" in text:
        values["card_name"] = CARDS[str(params["card"])]
    return text.format(**values)
