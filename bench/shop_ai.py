"""Shop Battle's AI, its CPU per move and its decisions (not a test).

    .venv/bin/python -m bench.shop_ai [--games N] [--seed S] [--strong-games K] [--iterations I]
                                      [--profile] [--quiet]

Plays ``--games`` games with every seat at the normal level, game ``g`` at ``2 + g % 5``
players (2 to 6) from seed ``S * 100000 + g``, then ``--strong-games`` heads-up games of one
strong seat (``--iterations`` per move, reproducible) against a normal one, the strong seat
alternating. Every decision is timed in CPU time (``time.process_time``); a forced move (one
legal action) is not counted. Printed: per level, the CPU ms per move (median, p95, max) over
every counted move and over the announcements alone (and the mean); and a SHA-256 of every game's moves in
order (seed, players, seat, action code), one for the normal games and one for the strong
ones, so that a change of the AI's speed can be shown to leave its decisions as they were. The
last line is one JSON object (``games``, ``seed``, ``strong_games``, ``iterations``,
``normal_ms_median``, ``normal_ms_p95``, ``normal_ms_mean``, ``normal_choose_ms_median``, ``normal_choose_ms_p95``,
``strong_ms_median``, ``strong_ms_p95``, ``normal_digest``, ``strong_digest``, ``moves``).

``--profile`` runs the normal games under ``cProfile`` and prints the 25 most expensive
functions by cumulative time (the times are then inflated).
"""

from __future__ import annotations

import argparse
import cProfile
import hashlib
import json
import pstats
import statistics
import sys
import time
from typing import Any

from bench.arena import _median, _p95
from bot.games import GAMES
from engine.policies import choose

__all__ = ["play"]

KEY = "shop-battle"


def play(seed: int, players: int, levels: list[str], iterations: int | None,
         digest: Any, times: dict[str, list[float]]) -> int:
    """One game from ``seed``, seat ``s`` at ``levels[s]``: each move's code goes into
    ``digest`` (``hashlib``), each counted move's CPU ms into ``times[level]`` and
    ``times[level + ":choose"]``. Returns the number of moves."""
    game = GAMES[KEY].game
    state = game.setup(seed, players, {})
    moves = 0
    while to_act := game.to_act(state):
        acts = {}
        for s in sorted(to_act):
            level = levels[s]
            forced = len(game.legal_actions(state, s)) == 1
            choosing = state.phase == "choose"
            t0 = time.process_time()
            act = choose(game, state, s, level, salt=seed * 7 + s, iterations=iterations)
            ms = (time.process_time() - t0) * 1000
            if not forced:
                times.setdefault(level, []).append(ms)
                if choosing:
                    times.setdefault(level + ":choose", []).append(ms)
            acts[s] = act
            digest.update(f"{seed}:{players}:{s}:{game.encode(act)};".encode())
            moves += 1
        state = game.apply(state, acts).state
    return moves


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the benchmark from the command line; returns the JSON summary (also printed last)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="normal-level games (2-6 players in turn)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--strong-games", type=int, default=2, help="strong-vs-normal heads-up games")
    parser.add_argument("--iterations", type=int, default=200, help="strong search iterations per move")
    parser.add_argument("--profile", action="store_true", help="profile the normal games (cProfile)")
    parser.add_argument("--quiet", action="store_true", help="only the summary lines")
    args = parser.parse_args(argv)
    times: dict[str, list[float]] = {}
    normal, strong = hashlib.sha256(), hashlib.sha256()
    moves = 0
    start = time.perf_counter()
    profiler = cProfile.Profile() if args.profile else None
    if profiler is not None:
        profiler.enable()
    for g in range(args.games):
        players = 2 + g % 5
        moves += play(args.seed * 100000 + g, players, ["normal"] * players, None, normal, times)
        if not args.quiet and (g + 1) % 20 == 0:
            print(f"normal game {g + 1}/{args.games}", file=sys.stderr, flush=True)
    if profiler is not None:
        profiler.disable()
    for g in range(args.strong_games):
        levels = ["strong", "normal"] if g % 2 == 0 else ["normal", "strong"]
        moves += play(args.seed * 100000 + g, 2, levels, args.iterations, strong, times)
    summary: dict[str, Any] = {
        "games": args.games, "seed": args.seed, "strong_games": args.strong_games, "iterations": args.iterations,
        "normal_ms_median": _median(times.get("normal", []), 2), "normal_ms_p95": _p95(times.get("normal", []), 2),
        "normal_ms_mean": round(statistics.fmean(times.get("normal", [0.0])), 2),
        "normal_choose_ms_median": _median(times.get("normal:choose", []), 2),
        "normal_choose_ms_p95": _p95(times.get("normal:choose", []), 2),
        "strong_ms_median": _median(times.get("strong", []), 2), "strong_ms_p95": _p95(times.get("strong", []), 2),
        "normal_digest": normal.hexdigest(), "strong_digest": strong.hexdigest(), "moves": moves,
    }
    print(f"shop-battle AI: {args.games} normal games (2-6 players), {args.strong_games} strong-vs-normal games"
          f" at {args.iterations} iterations, {time.perf_counter() - start:.0f} s")
    for name in ("normal", "normal:choose", "strong", "strong:choose"):
        xs = times.get(name, [])
        if xs:
            print(f"{name:14} CPU ms per move: median {_median(xs, 2):7.2f}  mean {statistics.fmean(xs):7.2f}"
                  f"  p95 {_p95(xs, 2):7.2f}  max {max(xs):7.1f}  ({len(xs)} moves)")
    print(f"normal decisions sha256 {summary['normal_digest']}")
    print(f"strong decisions sha256 {summary['strong_digest']}")
    if profiler is not None:
        pstats.Stats(profiler).sort_stats("cumulative").print_stats(25)
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit(130) from None
