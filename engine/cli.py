"""The command line of docs/notation.md: ``python -m engine new|legal|play|replay``.

Exit status: 0 success, 2 an illegal action (``illegal: <action>: <reason>``) or a
damaged record (``record: line N: <reason>``), 1 malformed input.  Nothing ever
prints a traceback.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from typing import Any

from .errors import IllegalAction, NotationError, notation_error
from .game import Game, new_seed
from .record import RecordError, parse_record, replay

_BOM = "\ufeff"
_MAX_DIGITS = 4300  # int() refuses longer numbers (sys.get_int_max_str_digits)
_WHOLE = re.compile(rf"[ \t]*[-+]?[0-9]{{1,{_MAX_DIGITS}}}[ \t]*")


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(message)

    def exit(self, status: int = 0, message: str | None = None) -> None:  # type: ignore[override]
        if message:
            raise _UsageError(message.strip())
        raise SystemExit(status)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="python -m engine",
        description='The Torres rules engine (docs/notation.md, "Command line").',
        epilog="Exit status: 0 success, 2 an illegal action or a damaged record, "
        "1 malformed input. 'python -m engine COMMAND --help' shows a command's options.",
    )
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND")
    new = sub.add_parser("new", help="print the position at the start of a new game")
    new.add_argument("--players", type=str, default=None, help="2, 3 or 4 (default 4)")
    new.add_argument("--names", type=str, default=None, help="player names, comma-separated")
    new.add_argument("--variant", default="common", help="common, personal or master")
    new.add_argument(
        "--seed",
        type=str,
        default="0",
        help="a whole number (default 0), or 'random' for a fresh 128-bit seed",
    )
    new.add_argument("--viewer", default=None, help="print this player's view")
    helps = {
        "legal": "print every legal action of the player to move, one per line",
        "play": "apply actions to a position; print the resulting position",
    }
    for name in ("legal", "play"):
        cmd = sub.add_parser(name, help=helps[name], description=helps[name].capitalize() + ".")
        cmd.add_argument(
            "--position", default=None, help="position JSON file, '-' for stdin (default: new)"
        )
        if name == "play":
            cmd.add_argument("--viewer", default=None, help="print this player's view")
        cmd.add_argument("actions", nargs="?", default=None, help="actions, e.g. 'move c3 d3; end'")
    rep = sub.add_parser(
        "replay",
        help="replay a game record; print the position (a one-line summary on stderr)",
        description="Replay a game record; print the position as JSON on stdout and a "
        "one-line summary (decision, scores, who is to move) on stderr.",
    )
    rep.add_argument("record", help="the record file, '-' for stdin")
    rep.add_argument("--decision", type=str, default=None, help="stop after decision K (0: start)")
    rep.add_argument("--viewer", default=None, help="print this player's view")
    return p


def _int_arg(text: str, what: str) -> int:
    if _WHOLE.fullmatch(text) is None:
        raise notation_error("cli_not_a_number", option=what, text=_short(text))
    return int(text)


def _seed_arg(text: str) -> int:
    """``--seed``: a whole number, or ``random`` for a fresh seed from ``secrets``."""
    if text.strip().lower() == "random":
        return new_seed()
    return _int_arg(text, "--seed")


def _short(text: str) -> str:
    """What a user typed, as echoed in a one-line message."""
    return text if len(text) <= 40 else text[:37] + "…"


def _json_int(text: str) -> int:
    """A JSON number without a fraction: a clear refusal for one too long to read
    (Python reads at most 4,300 digits, and no position needs a tenth of that)."""
    digits = len(text.lstrip("-"))
    if digits > _MAX_DIGITS:
        raise notation_error("cli_number_too_long", digits=digits, most=_MAX_DIGITS)
    return int(text)


_READ_CODES = {  # what is read -> (cannot read it, not UTF-8)
    "position": ("cli_cannot_read_position", "cli_position_not_utf8"),
    "record": ("cli_cannot_read_record", "cli_record_not_utf8"),
}


def _read(path: str, what: str) -> str:
    cannot_read, not_utf8 = _READ_CODES[what]
    try:
        if path == "-":
            return sys.stdin.read().removeprefix(_BOM)
        with open(path, encoding="utf-8-sig") as f:  # a leading byte order mark is dropped
            return f.read()
    except OSError as e:
        error = str(e.strerror or e)
        raise notation_error(cannot_read, path=path, error=error) from None
    except UnicodeDecodeError:
        raise notation_error(not_utf8, path=path) from None


def _load(path: str | None) -> Game:
    if path is None:
        return Game.new()
    text = _read(path, "position")
    try:
        data = json.loads(text, parse_int=_json_int)
    except json.JSONDecodeError as e:
        raise notation_error("cli_bad_json", error=e.msg, line=e.lineno, column=e.colno) from None
    except RecursionError:
        raise notation_error("cli_json_too_deep") from None
    return Game.from_position(data)


def _dump(obj: Any) -> str:
    return json.dumps(obj, indent=2)


def run(argv: list[str]) -> tuple[int, str, str]:
    """Run one command; returns (exit status, stdout text, stderr text)."""
    try:
        args = _parser().parse_args(argv)
    except _UsageError as e:
        return 1, "", f"error: {e}\n"
    except SystemExit as e:  # --help
        return int(e.code or 0), "", ""
    try:
        if args.command == "new":
            names = None
            players = None
            if args.names is not None:
                names = [x.strip() for x in args.names.split(",")]
                if args.players is not None and _int_arg(args.players, "--players") != len(names):
                    raise notation_error("cli_players_names")
            elif args.players is not None:
                players = _int_arg(args.players, "--players")
            game = Game.new(players, names=names, variant=args.variant, seed=_seed_arg(args.seed))
            return 0, _dump(game.position(viewer=args.viewer)) + "\n", ""
        if args.command == "replay":
            record = parse_record(_read(args.record, "record"))
            upto = None if args.decision is None else _int_arg(args.decision, "--decision")
            game = replay(record, upto)
            out = _dump(game.position(viewer=args.viewer)) + "\n"
            return 0, out, summary(game, len(record.decisions) if upto is None else upto) + "\n"
        game = _load(args.position)
        if args.actions is not None and args.actions.strip():
            game.play(args.actions)
        if args.command == "legal":
            moves = game.legal()
            return 0, "".join(m + "\n" for m in moves), ""
        return 0, _dump(game.position(viewer=args.viewer)) + "\n", ""
    except IllegalAction as e:
        return 2, "", f"illegal: {e.action}: {e.reason}\n"
    except RecordError as e:
        return 2, "", f"record: {e}\n"
    except NotationError as e:
        return 1, "", f"error: {e}\n"


def summary(game: Game, decision: int) -> str:
    """One line for a person: the decision replayed, the scores, who is to move."""
    scores = " · ".join(f"{name} {score}" for name, score in game.scores.items())
    if game.stage == "over":
        winners = game.winners
        who = ("winner " if len(winners) == 1 else "winners ") + ", ".join(winners)
        return f"decision {decision}: {scores}; game over, {who}"
    where = f"phase {game.phase}, round {game.round}, {game.stage}"
    return f"decision {decision}: {scores}; {game.to_move} to move ({where})"


def main(argv: list[str] | None = None) -> int:
    """Entry point; never lets a traceback out."""
    try:
        code, out, err = run(sys.argv[1:] if argv is None else argv)
    except Exception as e:  # noqa: BLE001 - the CLI must never print a traceback
        code, out, err = 1, "", f"error: internal error ({type(e).__name__}: {e}).\n"
    except RecursionError:
        code, out, err = 1, "", "error: the input is nested too deeply.\n"
    try:
        sys.stdout.write(out)
        sys.stdout.flush()
        sys.stderr.write(" ".join(err.split()) + "\n" if err else "")
    except (BrokenPipeError, OSError):
        pass
    return code
