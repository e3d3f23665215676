"""Arena benchmark (not a test): AI level ``a`` against level ``b`` (``engine.policies``).

    .venv/bin/python -m bench.arena GAME --a strong --b normal [--players N] --games N --seed S
                                   [--iterations K | --think-seconds T] [--jobs J]

Each game seats one ``a`` and ``players - 1`` ``b`` (heads-up = 2 players; Three-Player Moon
is always 1 ``a`` against 2 ``b``). Seats rotate: game ``g`` deals seed ``S * 100000 + g // N``
and puts ``a`` in seat ``g % N``, so every deal is played from every seat and each policy holds
every position equally (use a multiple of ``N`` games). ``a`` scores ``1/k`` for a first place
shared by ``k`` seats (ties split), 0 otherwise; the fair share is ``1/N``.

Printed: the score of ``a`` with a 95% Wilson score interval (the formula in :func:`wilson`),
and per policy the CPU time per move (``time.process_time`` of the worker, so that other work
on the machine does not inflate it; median and p95, forced moves with one legal action
excluded). The last line is one JSON object with the keys ``game``, ``a``, ``b``, ``players``,
``games``, ``score_a``, ``ci_low``, ``ci_high``, ``fair_share``, ``ms_p95_a``, ``ms_p95_b``
(plus ``ms_median_a``, ``ms_median_b``, ``iterations``, ``think_seconds``, ``seed``).

``--iterations`` budgets the strong search by iterations (reproducible: the same seed gives the
same games); ``--think-seconds`` by wall-clock time per move (not reproducible). ``--jobs`` plays
games in parallel processes (results do not depend on it).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bot.games import GAMES
from bot.simulate import wilson
from engine.policies import LEVELS, choose
from engine.search import outcome_rewards

__all__ = ["play_game", "wilson"]


def play_game(key: str, players: int, seed: int, seat_a: int, a: str, b: str,
              iterations: int | None, think: float | None) -> tuple[float, list[float], list[float]]:
    """One game with level ``a`` in ``seat_a`` and ``b`` elsewhere: ``(score of a, CPU ms per
    move of a, CPU ms per move of b)`` (moves with one legal action are not timed)."""
    game = GAMES[key].game
    state = game.setup(seed, players, {})
    times: tuple[list[float], list[float]] = ([], [])
    while to_act := game.to_act(state):
        acts = {}
        for s in sorted(to_act):
            level = a if s == seat_a else b
            stop = None
            if think is not None:
                deadline = time.perf_counter() + think
                stop = lambda deadline=deadline: time.perf_counter() >= deadline  # noqa: E731
            forced = len(game.legal_actions(state, s)) == 1
            t0 = time.process_time()
            acts[s] = choose(game, state, s, level, salt=seed * 7 + s,
                             iterations=iterations if stop is None else None, should_stop=stop)
            if not forced:
                times[0 if s == seat_a else 1].append((time.process_time() - t0) * 1000)
        state = game.apply(state, acts).state
    outcome = game.outcome(state)
    assert outcome is not None
    return outcome_rewards(outcome)[seat_a], times[0], times[1]


def _p95(xs: list[float]) -> float:
    if not xs:
        return 0.0
    xs = sorted(xs)
    return xs[min(len(xs) - 1, math.ceil(0.95 * len(xs)) - 1)]


def _job(args: tuple[Any, ...]) -> tuple[float, list[float], list[float]]:
    return play_game(*args)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the arena from the command line; returns the JSON summary (also printed last)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=sorted(GAMES))
    levels = [*LEVELS, "random"]
    parser.add_argument("--a", default="strong", choices=levels)
    parser.add_argument("--b", default="normal", choices=levels)
    parser.add_argument("--players", type=int, default=None, help="seats (default 2; Moon 3)")
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    budget = parser.add_mutually_exclusive_group()
    budget.add_argument("--iterations", type=int, default=None, help="strong search iterations per move")
    budget.add_argument("--think-seconds", type=float, default=None, help="strong search time per move")
    parser.add_argument("--jobs", type=int, default=1, help="parallel worker processes")
    parser.add_argument("--quiet", action="store_true", help="only the summary lines")
    args = parser.parse_args(argv)
    game = GAMES[args.game].game
    players = args.players or max(2, game.min_players)
    if not game.min_players <= players <= game.max_players:
        parser.error(f"{args.game} takes {game.min_players}-{game.max_players} players")
    if args.games < 1 or args.jobs < 1:
        parser.error("--games and --jobs must be at least 1")
    jobs = [(args.game, players, args.seed * 100000 + g // players, g % players, args.a, args.b,
             args.iterations, args.think_seconds) for g in range(args.games)]
    scores: list[float] = []
    ta: list[float] = []
    tb: list[float] = []
    start = time.perf_counter()
    if args.jobs == 1:
        results = map(_job, jobs)
    else:
        pool = ProcessPoolExecutor(args.jobs)
        results = pool.map(_job, jobs)
    for g, (score, xa, xb) in enumerate(results):
        scores.append(score)
        ta += xa
        tb += xb
        if not args.quiet:
            print(f"game {g + 1:4d}/{args.games}: seat {g % players} {args.a} scores {score:.2f}"
                  f"  (running {sum(scores) / len(scores):.3f})", file=sys.stderr, flush=True)
    if args.jobs > 1:
        pool.shutdown()
    n = len(scores)
    score_a = sum(scores) / n
    lo, hi = wilson(score_a, n)
    fair = 1 / players
    summary = {
        "game": args.game, "a": args.a, "b": args.b, "players": players, "games": n,
        "score_a": round(score_a, 4), "ci_low": round(lo, 4), "ci_high": round(hi, 4),
        "fair_share": round(fair, 4), "ms_p95_a": round(_p95(ta), 1), "ms_p95_b": round(_p95(tb), 1),
        "ms_median_a": round(statistics.median(ta), 1) if ta else 0.0,
        "ms_median_b": round(statistics.median(tb), 1) if tb else 0.0,
        "iterations": args.iterations, "think_seconds": args.think_seconds, "seed": args.seed,
    }
    print(f"{args.game}: {args.a} vs {args.b} at {players} seats, {n} games, {time.perf_counter() - start:.0f} s")
    print(f"score of {args.a}: {score_a:.3f}  95% CI [{lo:.3f}, {hi:.3f}]  fair share {fair:.3f}")
    for name, xs in ((args.a, ta), (args.b, tb)):
        med = statistics.median(xs) if xs else 0.0
        print(f"{name:7} CPU ms per move: median {med:7.1f}  p95 {_p95(xs):7.1f}  ({len(xs)} moves)")
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit(130) from None
