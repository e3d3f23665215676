"""Arena benchmark (not a test): AI level ``a`` against level ``b`` (``engine.policies``).

    .venv/bin/python -m bench.arena GAME --a strong --b normal [--players N] --games N --seed S
                                   [--iterations K | --think-seconds T] [--turn-seconds T] [--jobs J]

Each game seats one ``a`` and ``players - 1`` ``b`` (heads-up = 2 players; Three-Player Moon
is always 1 ``a`` against 2 ``b``). Seats rotate: game ``g`` deals seed ``S * 100000 + g // N``
and puts ``a`` in seat ``g % N``, so every deal is played from every seat and each policy holds
every position equally (use a multiple of ``N`` games). ``a`` scores ``1/k`` for a first place
shared by ``k`` seats (ties split), 0 otherwise; the fair share is ``1/N``.

Printed: the score of ``a`` with a 95% Wilson score interval (the formula in :func:`wilson`),
and per policy the CPU time per move (``time.process_time`` of the worker, so that other work
on the machine does not inflate it; median and p95, forced moves with one legal action
excluded), and per policy the wall time and the CPU time per turn (median and p95). A *turn* is
a seat's consecutive decisions with nobody else acting between them (Gang of Dice's commit,
marks, rerolls and stop; a Moon bidder's discard and trumps after the widow); each seat of a
simultaneous step has a turn of one decision. The last line is one JSON object with the keys
``game``, ``a``, ``b``, ``players``, ``games``, ``score_a``, ``ci_low``, ``ci_high``,
``fair_share``, ``ms_p95_a``, ``ms_p95_b`` (plus ``ms_median_a``, ``ms_median_b``,
``turn_wall_ms_median_a``/``_p95_a`` and ``turn_cpu_ms_median_a``/``_p95_a`` (and ``_b``),
``iterations``, ``think_seconds``, ``turn_seconds``, ``seed``).

``--iterations`` budgets the strong search by iterations (reproducible: the same seed gives the
same games); ``--think-seconds`` by wall-clock time per move (not reproducible);
``--turn-seconds`` as the bot does (``bot.driver``): the turn's wall-clock time shared by its
decisions (``engine.policies.decision_seconds``), each also stopped at the iteration budget
(``--iterations``, else the game's default; not reproducible). ``--jobs`` plays games in
parallel processes (results do not depend on it, but the times do).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bench.stats import quantile
from bot.games import GAMES
from bot.simulate import wilson
from engine.policies import LEVELS, choose, decision_seconds, iterations_for
from engine.search import outcome_rewards

__all__ = ["Times", "play_game", "wilson"]


class Times:
    """Times of one policy in a game: CPU ms per move (forced moves excluded), and wall and CPU
    ms per turn."""

    def __init__(self) -> None:
        self.move_cpu: list[float] = []
        self.turn_wall: list[float] = []
        self.turn_cpu: list[float] = []


def play_game(key: str, players: int, seed: int, seat_a: int, a: str, b: str, iterations: int | None,
              think: float | None, turn_seconds: float | None = None) -> tuple[float, Times, Times]:
    """One game with level ``a`` in ``seat_a`` and ``b`` elsewhere: ``(score of a, times of a,
    times of b)``."""
    game = GAMES[key].game
    state = game.setup(seed, players, {})
    times = (Times(), Times())
    turn: list[float] | None = None  # [seat, wall ms, CPU ms, deadline] of the single-seat turn going on

    def close(turn: list[float] | None) -> None:
        if turn is not None:
            t = times[0 if turn[0] == seat_a else 1]
            t.turn_wall.append(turn[1])
            t.turn_cpu.append(turn[2])

    while to_act := game.to_act(state):
        acts = {}
        single = len(to_act) == 1
        if not (single and turn is not None and turn[0] in to_act):
            close(turn)
            turn = None
        for s in sorted(to_act):
            level = a if s == seat_a else b
            w0, t0 = time.perf_counter(), time.process_time()
            if turn is None or not single:
                mine = [float(s), 0.0, 0.0, w0 + (turn_seconds or 0.0)]
                turn = mine if single else None
            else:
                mine = turn
            stop = None
            budget = iterations
            if think is not None:
                deadline = w0 + think
                stop = lambda deadline=deadline: time.perf_counter() >= deadline  # noqa: E731
                budget = None
            elif turn_seconds is not None:
                deadline = w0 + decision_seconds(mine[3] - w0) if single else mine[3]
                stop = lambda deadline=deadline: time.perf_counter() >= deadline  # noqa: E731
                budget = iterations if iterations is not None else iterations_for(game)
            forced = len(game.legal_actions(state, s)) == 1
            acts[s] = choose(game, state, s, level, salt=seed * 7 + s, iterations=budget, should_stop=stop)
            cpu = (time.process_time() - t0) * 1000
            mine[1] += (time.perf_counter() - w0) * 1000
            mine[2] += cpu
            if not forced:
                times[0 if s == seat_a else 1].move_cpu.append(cpu)
            if not single:
                close(mine)
        state = game.apply(state, acts).state
    close(turn)
    outcome = game.outcome(state)
    assert outcome is not None
    return outcome_rewards(outcome)[seat_a], times[0], times[1]


def _median(xs: list[float], digits: int = 1) -> float:
    """The median of ``xs`` rounded to ``digits`` (0.0 when empty)."""
    return round(statistics.median(xs), digits) if xs else 0.0


def _job(args: tuple[Any, ...]) -> tuple[float, Times, Times]:
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
    parser.add_argument("--turn-seconds", type=float, default=None,
                        help="strong search time per turn, shared by its decisions (as the bot)")
    parser.add_argument("--jobs", type=int, default=1, help="parallel worker processes")
    parser.add_argument("--quiet", action="store_true", help="only the summary lines")
    args = parser.parse_args(argv)
    game = GAMES[args.game].game
    players = args.players or max(2, game.min_players)
    if not game.min_players <= players <= game.max_players:
        parser.error(f"{args.game} takes {game.min_players}-{game.max_players} players")
    if args.think_seconds is not None and args.turn_seconds is not None:
        parser.error("--think-seconds and --turn-seconds exclude each other")
    if args.games < 1 or args.jobs < 1:
        parser.error("--games and --jobs must be at least 1")
    jobs = [(args.game, players, args.seed * 100000 + g // players, g % players, args.a, args.b,
             args.iterations, args.think_seconds, args.turn_seconds) for g in range(args.games)]
    scores: list[float] = []
    ta, tb = Times(), Times()
    start = time.perf_counter()
    results: Iterator[tuple[float, Times, Times]]
    if args.jobs == 1:
        results = map(_job, jobs)
    else:
        pool = ProcessPoolExecutor(args.jobs)
        results = pool.map(_job, jobs)
    for g, (score, xa, xb) in enumerate(results):
        scores.append(score)
        for mine, more in ((ta, xa), (tb, xb)):
            mine.move_cpu += more.move_cpu
            mine.turn_wall += more.turn_wall
            mine.turn_cpu += more.turn_cpu
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
        "fair_share": round(fair, 4), "ms_p95_a": round(quantile(ta.move_cpu, 0.95), 1), "ms_p95_b": round(quantile(tb.move_cpu, 0.95), 1),
        "ms_median_a": _median(ta.move_cpu), "ms_median_b": _median(tb.move_cpu),
        "iterations": args.iterations, "think_seconds": args.think_seconds, "turn_seconds": args.turn_seconds,
        "seed": args.seed,
    }
    for side, t in (("a", ta), ("b", tb)):
        summary[f"turn_wall_ms_median_{side}"] = _median(t.turn_wall)
        summary[f"turn_wall_ms_p95_{side}"] = round(quantile(t.turn_wall, 0.95), 1)
        summary[f"turn_cpu_ms_median_{side}"] = _median(t.turn_cpu)
        summary[f"turn_cpu_ms_p95_{side}"] = round(quantile(t.turn_cpu, 0.95), 1)
        summary[f"turns_{side}"], summary[f"moves_{side}"] = len(t.turn_wall), len(t.move_cpu)
    print(f"{args.game}: {args.a} vs {args.b} at {players} seats, {n} games, {time.perf_counter() - start:.0f} s")
    print(f"score of {args.a}: {score_a:.3f}  95% CI [{lo:.3f}, {hi:.3f}]  fair share {fair:.3f}")
    for name, t in ((args.a, ta), (args.b, tb)):
        print(f"{name:7} CPU ms per move: median {_median(t.move_cpu):7.1f}  p95 {quantile(t.move_cpu, 0.95):7.1f}"
              f"  ({len(t.move_cpu)} moves)")
        print(f"{name:7} per turn: wall ms median {_median(t.turn_wall):7.1f}  p95 {quantile(t.turn_wall, 0.95):7.1f};"
              f" CPU ms median {_median(t.turn_cpu):7.1f}  p95 {quantile(t.turn_cpu, 0.95):7.1f}  ({len(t.turn_wall)} turns)")
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit(130) from None
