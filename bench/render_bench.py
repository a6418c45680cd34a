"""How long a board picture takes, and how big it is.

    .venv/bin/python bench/render_bench.py [--runs 30]

Renders the stored late-game 4-player position (tests/renderer/positions/late.json,
phase 3, round 3) and prints the median time of ``render_board`` end to end, its
parts (reading the position through the engine, drawing, PNG encoding), the PNG
size, and the floor: what Pillow alone needs to encode a PNG of the same size
(of the drawn picture, and of a blank canvas).
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from PIL import Image  # noqa: E402

import renderer  # noqa: E402
from renderer._draw import paint  # noqa: E402
from renderer._model import build_view  # noqa: E402

WALL = False
POSITION = ROOT / "tests" / "renderer" / "positions" / "late.json"


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--wall", action="store_true", help="measure wall time, not CPU time")
    args = parser.parse_args()
    global WALL
    WALL = args.wall

    data = json.loads(POSITION.read_text())
    pos, highlight = data["position"], data["highlight"]
    viewer = pos["to_move"]
    renderer.render_board(pos, viewer=viewer, highlight=highlight)  # warm up

    png = renderer.render_board(pos, viewer=viewer, highlight=highlight)
    total = median_ms(lambda: renderer.render_board(pos, viewer, highlight), args.runs)
    view = build_view(pos, viewer, highlight)
    read = median_ms(lambda: build_view(pos, viewer, highlight), args.runs)
    draw = median_ms(lambda: paint(view), args.runs)
    image = paint(view).image
    encode = median_ms(lambda: renderer.encode_png(image), args.runs)

    def plain_png(img: Image.Image) -> bytes:
        buf = io.BytesIO()
        img.save(buf, format="PNG")
        return buf.getvalue()

    rgb = image.convert("RGB")
    floor = median_ms(lambda: plain_png(rgb), args.runs)
    blank = Image.new("RGB", image.size, (250, 248, 243))
    floor_blank = median_ms(lambda: plain_png(blank), args.runs)

    w, h = image.size
    print(
        f"position: {POSITION.relative_to(ROOT)} ({len(pos['players'])} players, "
        f"phase {pos['phase']} round {pos['round']}), {w}x{h} px, "
        f"median {'wall' if WALL else 'CPU'} time of {args.runs} runs"
    )
    print(f"render_board total : {total:7.1f} ms")
    print(f"  read (engine)    : {read:7.1f} ms")
    print(f"  draw             : {draw:7.1f} ms")
    print(f"  encode PNG       : {encode:7.1f} ms (quantise to a palette + deflate)")
    print(f"PNG size           : {len(png) / 1024:7.1f} KB (256-colour palette PNG)")
    print(
        f"floor: Pillow PNG encode of the same RGB picture : {floor:7.1f} ms "
        f"({len(plain_png(rgb)) / 1024:.1f} KB)"
    )
    print(f"floor: Pillow PNG encode of a blank {w}x{h} canvas: {floor_blank:7.1f} ms")


if __name__ == "__main__":
    main()
