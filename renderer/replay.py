"""Replays: a whole game between computer players, pictured turn by turn.

``python -m renderer.replay --ai 4 --out demo/ [--seed S] [--level heuristic]
[--seconds 0.2] [--variant common] [--format gif] [--language de]`` plays a game with no Discord,
writes ``decision-NNN.png`` after every decision (setup placements, king moves and
turns, the squares each one changed highlighted) and ``replay.gif`` (or ``.webp``)
with the whole game. ``animate(positions)`` makes the same animation for the bot
to post when a game ends.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from PIL import Image

from engine import Game, changed_squares
from engine.ai import LEVELS, choose_actions

from . import render, render_board
from .i18n import DEFAULT, LANGUAGES, t

__all__ = ["Step", "animate", "main", "play_ai_game"]

_FORMATS = ("gif", "webp")


@dataclass
class Step:
    """One decision of a played game: who decided what, and the position after it."""

    player: str | None
    actions: list[str]
    position: dict[str, Any]
    highlight: list[str]
    seconds: float


def play_ai_game(
    players: int = 4,
    *,
    variant: str = "common",
    seed: int = 0,
    level: str = "heuristic",
    seconds: float = 0.2,
    on_step: Callable[[Step], None] | None = None,
) -> tuple[Game, list[Step]]:
    """Play a whole game between computer players; the first step is the start."""
    game = Game.new(players=players, variant=variant, seed=seed)
    first = game.position()
    steps = [Step(None, [], first, [], 0.0)]
    if on_step:
        on_step(steps[0])
    n = 0
    while game.stage != "over":
        player = game.to_move
        before = game.position()
        t0 = time.perf_counter()
        actions = choose_actions(game, seconds, level=level, seed=seed * 100_003 + n)
        took = time.perf_counter() - t0
        game.play("; ".join(actions))
        n += 1
        after = game.position()
        step = Step(player, actions, after, changed_squares(before, after), took)
        steps.append(step)
        if on_step:
            on_step(step)
    return game, steps


def animate(
    positions: Sequence[dict[str, Any]],
    highlights: Sequence[Iterable[str] | None] | None = None,
    *,
    width: int = 600,
    frame_ms: int = 700,
    last_ms: int = 4000,
    format: str = "gif",
    language: str = "en",
) -> bytes:
    """An animated picture of *positions* (one frame each), as GIF or WebP bytes.

    Frames are drawn for a spectator (``viewer=None``: the renderer names nobody's
    cards) and scaled to *width* pixels; the last frame stays up for *last_ms*.
    Their words are in *language* ("en", "de" or "nl").

    :raises ValueError: no positions, a bad format, size or language, or a
        position the renderer rejects.
    """
    if format not in _FORMATS:
        raise ValueError(f"Unknown animation format {format!r}; use gif or webp.")
    if not positions:
        raise ValueError("An animation needs at least one position.")
    if width < 50:
        raise ValueError("The animation must be at least 50 pixels wide.")
    if highlights is not None and len(highlights) != len(positions):
        raise ValueError("Give one highlight list per position (or none at all).")
    frames = []
    for i, pos in enumerate(positions):
        hl = list(highlights[i] or []) if highlights is not None else None
        # The picture itself, not its PNG: no encoding and decoding per frame.
        frame = render(pos, viewer=None, highlight=hl, language=language).image.convert("RGB")
        if frame.width != width:
            # BOX looks like LANCZOS when shrinking by less than half, at a third
            # of the cost; a game has dozens of frames.
            height = max(1, round(frame.height * width / frame.width))
            frame = frame.resize((width, height), Image.Resampling.BOX)
        frames.append(frame)
    durations = [frame_ms] * (len(frames) - 1) + [last_ms]
    buf = io.BytesIO()
    if format == "gif":
        palette = _shared_palette(frames)
        paletted = [f.quantize(palette=palette, dither=Image.Dither.NONE) for f in frames]
        paletted[0].save(
            buf,
            format="GIF",
            save_all=True,
            append_images=paletted[1:],
            duration=durations,
            loop=0,
            optimize=True,
            disposal=1,
        )
    else:
        frames[0].save(
            buf,
            format="WEBP",
            save_all=True,
            append_images=frames[1:],
            duration=durations,
            loop=0,
            quality=75,
            method=4,
        )
    return buf.getvalue()


def _shared_palette(frames: list[Image.Image]) -> Image.Image:
    """One 256-colour palette for every frame, from a sample of them (first to last)."""
    picks = sorted({0, len(frames) // 3, 2 * len(frames) // 3, len(frames) - 1})
    w, h = frames[0].size
    sheet = Image.new("RGB", (w, h * len(picks)))
    for k, i in enumerate(picks):
        sheet.paste(frames[i].resize((w, h)), (0, k * h))
    return sheet.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(1, f"error: {message}\n")


def main(argv: list[str] | None = None) -> int:
    parser = _Parser(
        prog="python -m renderer.replay",
        description="Play a game between computer players and picture every decision.",
    )
    parser.add_argument("--ai", type=int, default=4, help="number of computer players, 2-4")
    parser.add_argument("--out", required=True, help="folder for the pictures")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--level", choices=LEVELS, default="heuristic")
    parser.add_argument("--seconds", type=float, default=0.2, help="budget per decision")
    parser.add_argument("--variant", choices=("common", "personal", "master"), default="common")
    parser.add_argument("--format", choices=_FORMATS, default="gif", help="animation format")
    parser.add_argument("--width", type=int, default=600, help="animation width in pixels")
    parser.add_argument(
        "--language", choices=LANGUAGES, default=DEFAULT, help="language of the pictures' words"
    )
    args = parser.parse_args(argv)
    if not 2 <= args.ai <= 4:
        return _fail("--ai must be 2, 3 or 4 (Torres is for 2 to 4 players)")
    if args.seconds <= 0:
        return _fail("--seconds must be positive")
    if args.width < 50:
        return _fail("--width must be at least 50")
    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return _fail(f"cannot create {out}: {e.strerror or e}")
    count = 0

    def write(step: Step) -> None:
        nonlocal count
        lang = args.language
        note = (
            t(lang, "changed by {player}'s last decision", player=step.player)
            if step.player
            else None
        )
        png = render_board(
            step.position,
            viewer=None,
            highlight=step.highlight,
            highlight_note=note,
            language=lang,
        )
        (out / f"decision-{count:03d}.png").write_bytes(png)
        if step.player is not None:
            print(f"{count:3d} {step.player:>7}: {'; '.join(step.actions)}")
        count += 1

    try:
        game, steps = play_ai_game(
            args.ai,
            variant=args.variant,
            seed=args.seed,
            level=args.level,
            seconds=args.seconds,
            on_step=write,
        )
        data = animate(
            [s.position for s in steps],
            [s.highlight for s in steps],
            width=args.width,
            format=args.format,
            language=args.language,
        )
        target = out / f"replay.{args.format}"
        target.write_bytes(data)
    except OSError as e:
        return _fail(f"cannot write into {out}: {e.strerror or e}")
    scores = ", ".join(f"{p} {s}" for p, s in game.scores.items())
    print(f"final scores: {scores}; winner: {', '.join(game.winners)}")
    print(f"wrote {count} pictures and {target} ({len(data) // 1024} KiB) into {out}/")
    return 0


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
