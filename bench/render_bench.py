"""How long a board picture takes, how big it is, and how many a second fit.

    .venv/bin/python bench/render_bench.py [--runs 30] [--wall] [--seconds 3] [--languages-only]

Renders the stored late-game 4-player position (tests/renderer/positions/late.json,
phase 3, round 3) and prints:

- the median CPU time of ``render_board`` end to end, and of its parts (reading
  the position through the engine, drawing straight in the PNG's palette, PNG
  encoding), of the alt text (``describe_view``) and of the picture as the bot
  makes it (PNG and alt text from one reading, ``bot.client.app._png_and_alt``);
- the first render in a fresh process (empty font and text caches);
- the PNG size;
- floors: what Pillow alone needs to write a PNG of the same size (of the drawn
  picture as RGB with default settings, of a blank RGB canvas), and the
  renderer's encoder on a blank palette image;
- the patch caches' fill (text and map cell patches, bounded);
- throughput: renders per second (wall clock) over all stored positions and
  viewers with 1 and with 2 worker threads, as the bot runs them;
- languages: English, German and Dutch side by side, the median render time and
  PNG size of the late-game position and of all stored positions and viewers
  (issue 11: German and Dutch pictures render within the time of English ones).

Figures before the speed-up (commit 58922d9, same machine): total 50.0 ms,
draw 23.8 ms, encode 25.9 ms, 61.8 KB. The landscape layout (issue 8,
1500x1000, no 3D view) against the portrait one, run alternately: total 13.4
against 14.0 ms, 70.9 against 78.1 KB.

Drawing straight in the palette with cached text and cell patches, layout
worked out once, and ISA-L's deflate (branch render-fast against main 4feee5f,
run back to back, --runs 30, the machine shared with other jobs): render_board
14.6 -> 5.9 ms (draw 5.8 RGB + 2.3 quantise -> 2.7 in the palette; encode 8.3
-> 1.1), PNG + alt text as the bot makes it 5.3 ms, 70.9 -> 76.3 KB (all 27
stored pictures: 1691 -> 1725 KB), throughput 60 -> 167 renders/s on 1 thread.
CPU time here swings by up to 1.6x with the other jobs on the machine (main's
late picture: 14.6 ms in "total", 22.6 in the languages table of the same run):
compare figures of one run, or runs made back to back.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

import renderer  # noqa: E402
from bot.client.app import _png_and_alt  # noqa: E402
from renderer import _patches, _png  # noqa: E402
from renderer._describe import describe_view  # noqa: E402
from renderer._draw import paint  # noqa: E402
from renderer._model import build_view  # noqa: E402
from renderer._palette import palette_image  # noqa: E402
from renderer.i18n import LANGUAGES  # noqa: E402

WALL = False
POSITIONS = ROOT / "tests" / "renderer" / "positions"
POSITION = POSITIONS / "late.json"


def median_ms(fn, runs: int) -> float:
    """Median CPU time of ``fn`` in ms.

    CPU time rather than wall time: the machine may be shared with other jobs,
    which stretch wall time but not the work done. ``--wall`` measures wall time.
    """
    clock = time.perf_counter if WALL else time.process_time
    times = []
    for _ in range(runs):
        t = clock()
        fn()
        times.append(clock() - t)
    return statistics.median(times) * 1000


def throughput(jobs: list[tuple], threads: int, seconds: float) -> float:
    """Renders per second (wall clock) with ``threads`` workers rendering ``jobs`` round robin."""
    done = 0
    start = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        while time.perf_counter() - start < seconds:
            batch = [pool.submit(renderer.render_board, *job) for job in jobs]
            for future in batch:
                future.result()
            done += len(batch)
    return done / (time.perf_counter() - start)


def languages(pos, viewer, highlight, jobs: list[tuple], runs: int) -> None:
    """English, German and Dutch side by side: the late-game picture, and the sum
    over every stored position and viewer (warm caches, as a running bot has them).
    The languages take turns run by run, so a busy machine slows each alike."""
    for lang in LANGUAGES:  # warm the caches of every language first
        for job in jobs:
            renderer.render_board(*job, language=lang)
    clock = time.perf_counter if WALL else time.process_time
    late: dict[str, list[float]] = {lang: [] for lang in LANGUAGES}
    every: dict[str, list[float]] = {lang: [] for lang in LANGUAGES}
    for _ in range(runs):
        for lang in LANGUAGES:
            t = clock()
            renderer.render_board(pos, viewer, highlight, language=lang)
            late[lang].append(clock() - t)
        for lang in LANGUAGES:
            t = clock()
            for job in jobs:
                renderer.render_board(*job, language=lang)
            every[lang].append(clock() - t)
    unit = "wall" if WALL else "CPU"
    print(f"languages (median {unit} time of {runs} runs, languages taking turns):")
    print(
        f"  {'':4} {'late ms':>8} {'vs en':>6} {'late KB':>8} "
        f"{'all ' + str(len(jobs)) + ' ms':>10} {'vs en':>6} {'all KB':>8}"
    )
    base_late = statistics.median(late["en"])
    base_every = statistics.median(every["en"])
    for lang in LANGUAGES:
        one = statistics.median(late[lang])
        many = statistics.median(every[lang])
        size = len(renderer.render_board(pos, viewer, highlight, language=lang)) / 1024
        sizes = sum(len(renderer.render_board(*job, language=lang)) for job in jobs) / 1024
        print(
            f"  {lang:4} {one * 1000:8.1f} {one / base_late:6.2f} {size:8.1f} "
            f"{many * 1000:10.1f} {many / base_every:6.2f} {sizes:8.0f}"
        )


def png_bytes(img: Image.Image, **params) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG", **params)
    return buf.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--wall", action="store_true", help="measure wall time, not CPU time")
    parser.add_argument("--seconds", type=float, default=3.0, help="per throughput figure")
    parser.add_argument(
        "--languages-only",
        action="store_true",
        help="only the English / German / Dutch comparison",
    )
    args = parser.parse_args()
    global WALL
    WALL = args.wall

    data = json.loads(POSITION.read_text())
    pos, highlight = data["position"], data["highlight"]
    viewer = pos["to_move"]
    jobs = []
    for path in sorted(POSITIONS.glob("*.json")):
        d = json.loads(path.read_text())
        for who in [None, *d["position"]["players"]]:
            jobs.append((d["position"], who, d["highlight"]))
    if args.languages_only:
        languages(pos, viewer, highlight, jobs, args.runs)
        return
    t = time.process_time()
    png = renderer.render_board(pos, viewer=viewer, highlight=highlight)
    cold = (time.process_time() - t) * 1000

    total = median_ms(lambda: renderer.render_board(pos, viewer, highlight), args.runs)
    view = build_view(pos, viewer, highlight)
    read = median_ms(lambda: build_view(pos, viewer, highlight), args.runs)
    draw = median_ms(lambda: paint(view, paletted=True), args.runs)
    image = paint(view, paletted=True).image
    encode = median_ms(lambda: renderer.encode_png(image), args.runs)
    alt = median_ms(lambda: describe_view(view), args.runs)
    bot_args = (pos, viewer, sorted(highlight), None, None, "en")
    both = median_ms(lambda: _png_and_alt(*bot_args), args.runs)
    rgb_draw = median_ms(lambda: paint(view), args.runs)
    rgb_image = paint(view).image
    quantise = median_ms(
        lambda: rgb_image.quantize(palette=palette_image(), dither=Image.Dither.NONE), args.runs
    )

    rgb = rgb_image.convert("RGB")
    floor = median_ms(lambda: png_bytes(rgb), args.runs)
    blank = Image.new("RGB", image.size, (250, 248, 243))
    floor_blank = median_ms(lambda: png_bytes(blank), args.runs)
    blank_p = blank.quantize(palette=palette_image(), dither=Image.Dither.NONE)
    floor_blank_p = median_ms(lambda: renderer.encode_png(blank_p), args.runs)

    for job in jobs:
        renderer.render_board(*job)  # warm the caches, as a running bot has them
    one = throughput(jobs, 1, args.seconds)
    two = throughput(jobs, 2, args.seconds)

    w, h = image.size
    unit = "wall" if WALL else "CPU"
    print(
        f"position: {POSITION.relative_to(ROOT)} ({len(pos['players'])} players, "
        f"phase {pos['phase']} round {pos['round']}), {w}x{h} px, "
        f"median {unit} time of {args.runs} runs"
    )
    deflate = "ISA-L" if _png.isal_zlib is not None else "Pillow zlib 3"
    print(f"render_board total : {total:7.1f} ms")
    print(f"  read (engine)    : {read:7.1f} ms")
    print(f"  draw             : {draw:7.1f} ms (in the PNG's palette, text and cells from caches)")
    print(f"  encode PNG       : {encode:7.1f} ms ({deflate} deflate)")
    print(f"alt text           : {alt:7.1f} ms (describe_view, same reading)")
    print(f"PNG + alt text     : {both:7.1f} ms (as the bot makes a picture: one reading)")
    print(
        f"render() in RGB    : {rgb_draw:7.1f} ms (+ {quantise:.1f} ms to quantise it: "
        "the old way, still render()'s)"
    )
    print(f"first render       : {cold:7.1f} ms CPU (fresh process: fonts and text not cached)")
    print(f"PNG size           : {len(png) / 1024:7.1f} KB (fixed 256-colour palette)")
    print(
        f"floor: Pillow PNG encode of the same RGB picture  : {floor:7.1f} ms "
        f"({len(png_bytes(rgb)) / 1024:.1f} KB, default settings)"
    )
    print(f"floor: Pillow PNG encode of a blank {w}x{h} RGB  : {floor_blank:7.1f} ms")
    print(f"floor: renderer's encoder, blank palette image   : {floor_blank_p:7.1f} ms")
    print(
        f"throughput (wall, {len(jobs)} stored positions x viewers): "
        f"{one:.0f} renders/s with 1 thread, {two:.0f} renders/s with 2 threads"
    )
    patches, cells = _patches._PATCHES, _patches._CELLS
    print(
        f"patch caches       : text {patches.bytes / 2**20:.1f} of "
        f"{patches.max_bytes / 2**20:.0f} MB ({len(patches)}), cells "
        f"{cells.bytes / 2**20:.1f} of {cells.max_bytes / 2**20:.0f} MB ({len(cells)})"
    )
    languages(pos, viewer, highlight, jobs, args.runs)


if __name__ == "__main__":
    main()
