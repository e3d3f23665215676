"""CPU per picture drawn, per game (a benchmark, not a test).

    .venv/bin/python -m bench.pictures [--games 3] [--players N] [--only GAME] [--lang en] [--cold]

For each game with pictures it plays ``--games`` games with the baseline AI (seeds 1, 2, ...;
``--players`` seats, default: 4, or the game's only count), and after every step draws what a
picture worker draws for it: the public board and the panel of every seat that must act next,
in order, through :func:`bot.render.render_board` / :func:`bot.render.render_panel` without the
result cache (``cache=None``: every picture is drawn; what the renderers reuse from one picture
to the next stays, as it does in a worker process that draws a table's pictures one after the
other). Each picture is timed in this process's CPU time (``time.process_time``), so that other
work on a shared machine does not count. The first picture of each kind is drawn once untimed
(fonts loaded). With ``--cold``, the kept bands (:data:`bot.render.draw.BANDS`) are forgotten
before every picture: a worker drawing the pictures of many tables interleaved, each table's
first picture after the others' (as in ``bench.scale``), reuses few of them.

Prints per game: board and panel median / p95 CPU ms, the largest PNG in KB and the tallest
picture in px; then the median over every picture of every game (each game's pictures in the
proportion its games draw them); the last line is one JSON object with the same figures.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import time
from typing import Any

from PIL import Image

from bench.stats import quantile
from bot.games import GAMES
from bot.render import draw, draws, render_board, render_panel

NAMES = ("Alice", "Bérénice", "Chloé", "Dédé", "Élodie", "François")


def measure(key: str, games: int, players: int | None, lang: str, cold: bool = False) -> dict[str, Any]:
    """CPU ms of every board and panel drawn over ``games`` AI games of ``key``, with the
    largest PNG (bytes) and the tallest picture (px); ``cold``: no band kept from one picture
    to the next."""
    game = GAMES[key].game
    n = players or min(max(game.min_players, 4), game.max_players)
    names = NAMES[:n]
    boards: list[float] = []
    panels: list[float] = []
    biggest = tallest = 0
    clock = time.process_time
    for g in range(games):
        state = game.setup(1 + g, n, {})
        if g == 0:  # fonts and first-use caches, untimed
            render_board(key, game.view_json(state, None), names, lang, cache=None)
        while True:
            if cold:
                draw.BANDS.clear()
            t0 = clock()
            png = render_board(key, game.view_json(state, None), names, lang, cache=None)
            boards.append((clock() - t0) * 1000)
            biggest = max(biggest, len(png))
            tallest = max(tallest, Image.open(io.BytesIO(png)).height)
            acting = sorted(game.to_act(state))
            for seat in acting:
                legal = game.legal_codes(state, seat)
                if cold:
                    draw.BANDS.clear()
                t0 = clock()
                png = render_panel(key, game.view_json(state, seat), legal, names, lang, cache=None)
                panels.append((clock() - t0) * 1000)
                biggest = max(biggest, len(png))
            if not acting:
                break
            state = game.apply(state, {s: game.ai_action(state, s) for s in acting}).state
    return {"game": key, "players": n, "boards": len(boards), "panels": len(panels), "times": boards + panels,
            "board_median_ms": quantile(boards, 0.5), "board_p95_ms": quantile(boards, 0.95),
            "panel_median_ms": quantile(panels, 0.5), "panel_p95_ms": quantile(panels, 0.95),
            "median_ms": statistics.median(boards + panels), "largest_kb": biggest / 1000,
            "tallest_px": tallest}


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; returns 0."""
    parser = argparse.ArgumentParser(prog="python -m bench.pictures", description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=3)
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--only", choices=sorted(k for k in GAMES if draws(k)), default=None)
    parser.add_argument("--lang", choices=["en", "fr"], default="en")
    parser.add_argument("--cold", action="store_true", help="forget the kept bands before every picture")
    args = parser.parse_args(argv)
    rows = []
    for key in sorted(GAMES):
        if not draws(key) or (args.only and key != args.only):
            continue
        r = measure(key, args.games, args.players, args.lang, args.cold)
        rows.append(r)
        print(f"{key:18} {r['players']}p  board {r['board_median_ms']:5.1f} / {r['board_p95_ms']:5.1f} ms  "
              f"panel {r['panel_median_ms']:5.1f} / {r['panel_p95_ms']:5.1f} ms  (median / p95 CPU, "
              f"{r['boards']} boards, {r['panels']} panels)  largest {r['largest_kb']:.1f} KB  "
              f"tallest {r['tallest_px']} px")
    every = [ms for r in rows for ms in r.pop("times")]
    print(f"every picture of every game: median {quantile(every, 0.5):.2f} ms CPU over {len(every)} pictures")
    print(json.dumps({"pictures": rows, "median_ms": quantile(every, 0.5)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
