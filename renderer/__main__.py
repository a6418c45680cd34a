"""``python -m renderer --position FILE --out FILE.png [--viewer NAME] [--highlight SQ,SQ]
[--highlight-note TEXT] [--language en|de|nl] [--describe]``.

``--describe`` also prints the position in words (the picture's alt text).
``--language`` is the language of the picture's words and of that text (the
note is drawn as given).

Errors (unreadable file, bad JSON, impossible position, unknown viewer) print
one line on stderr and exit with status 1; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import NoReturn

from . import describe, render_board
from .i18n import DEFAULT, LANGUAGES


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:  # one line, status 1 like the engine CLI
        self.exit(1, f"error: {message}\n")


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(prog="python -m renderer", description="Draw a Torres position as a PNG.")
    parser.add_argument("--position", required=True, help="position JSON file, or - for stdin")
    parser.add_argument("--out", required=True, help="PNG file to write")
    parser.add_argument("--viewer", help="player whose own hand is shown by name")
    parser.add_argument("--highlight", default="", help="squares to highlight, e.g. e4,e5")
    parser.add_argument(
        "--highlight-note", help='what the highlight means, e.g. "changed this turn"'
    )
    parser.add_argument(
        "--language", choices=LANGUAGES, default=DEFAULT, help="language of the picture's words"
    )
    parser.add_argument(
        "--describe", action="store_true", help="also print the alt text of the picture"
    )
    args = parser.parse_args(argv)
    try:
        if args.position == "-":
            text = sys.stdin.read()
        else:
            text = Path(args.position).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        return _fail(f"cannot read {args.position}: {getattr(e, 'strerror', None) or e}")
    try:
        position = json.loads(text)
    except json.JSONDecodeError as e:
        return _fail(f"{args.position} is not valid JSON: {e.msg} at line {e.lineno}")
    except (ValueError, RecursionError) as e:
        return _fail(f"{args.position} is not valid JSON ({type(e).__name__})")
    highlight = [s for s in args.highlight.replace(" ", ",").split(",") if s]
    try:
        png = render_board(
            position,
            viewer=args.viewer,
            highlight=highlight,
            highlight_note=args.highlight_note,
            language=args.language,
        )
        words = (
            describe(
                position,
                viewer=args.viewer,
                highlight=highlight,
                highlight_note=args.highlight_note,
                language=args.language,
            )
            if args.describe
            else None
        )
    except ValueError as e:  # the engine's NotationError included
        return _fail(_one_line(e))
    except Exception as e:  # a picture bug must still not show a traceback
        return _fail(f"cannot draw this position ({type(e).__name__}: {_one_line(e)})")
    try:
        Path(args.out).write_bytes(png)
    except OSError as e:
        return _fail(f"cannot write {args.out}: {e.strerror or e}")
    if words is not None:
        print(words)
    return 0


def _one_line(e: BaseException) -> str:
    text = str(e).strip() or type(e).__name__
    return " ".join(text.split())


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
