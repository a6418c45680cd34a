"""The command line of docs/notation.md: ``python -m engine new|legal|play|replay``.

Exit status: 0 success, 2 an illegal action (``illegal: <action>: <reason>``) or a
damaged record (``record: line N: <reason>``), 1 malformed input.  Nothing ever
prints a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from .errors import IllegalAction, NotationError, notation_error
from .game import Game
from .record import RecordError, parse_record, replay


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
    p = _Parser(prog="python -m engine", description="The Torres rules engine.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    new = sub.add_parser("new", help="print the position at the start of a new game")
    new.add_argument("--players", type=str, default=None)
    new.add_argument("--names", type=str, default=None)
    new.add_argument("--variant", default="common")
    new.add_argument("--seed", type=str, default="0")
    new.add_argument("--viewer", default=None)
    for name in ("legal", "play"):
        cmd = sub.add_parser(name)
        cmd.add_argument("--position", default=None)
        if name == "play":
            cmd.add_argument("--viewer", default=None)
        cmd.add_argument("actions", nargs="?", default=None)
    rep = sub.add_parser("replay", help="replay a game record; print the position")
    rep.add_argument("record")
    rep.add_argument("--decision", type=str, default=None)
    rep.add_argument("--viewer", default=None)
    return p


def _int_arg(text: str, what: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise notation_error("cli_not_a_number", option=what, text=text) from None


_READ_CODES = {  # what is read -> (cannot read it, not UTF-8)
    "position": ("cli_cannot_read_position", "cli_position_not_utf8"),
    "record": ("cli_cannot_read_record", "cli_record_not_utf8"),
}


def _read(path: str, what: str) -> str:
    cannot_read, not_utf8 = _READ_CODES[what]
    try:
        if path == "-":
            return sys.stdin.read()
        with open(path, encoding="utf-8") as f:
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
        data = json.loads(text)
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
            game = Game.new(
                players, names=names, variant=args.variant, seed=_int_arg(args.seed, "--seed")
            )
            return 0, _dump(game.position(viewer=args.viewer)) + "\n", ""
        if args.command == "replay":
            record = parse_record(_read(args.record, "record"))
            upto = None if args.decision is None else _int_arg(args.decision, "--decision")
            game = replay(record, upto)
            return 0, _dump(game.position(viewer=args.viewer)) + "\n", ""
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
