"""Count the losing moves an AI level plays over many games (the checkers: ``tests/blunders/``).

    .venv/bin/python -m bench.blunders GAME --level normal --games 1000 [--players N] [--seed S]
                                       [--iterations K] [--jobs J] [--played-first] [--quiet]

Plays ``--games`` games with every seat at ``--level`` (``engine.policies.choose``; the strong
level with ``--iterations`` per move, default its own budget), game ``g`` from seed
``S * 100000 + g`` (2 players unless ``--players``; Three-Player Moon 3), and runs the game's
checker at every decision with more than one legal move. Prints each losing move played (seed,
state version, seat, the move and every losing move of that decision) and a summary: decisions
checked, decisions that had a losing move, decisions the checker could not judge within its
work limit, losing moves played, and the checker's CPU time; the last line is one JSON object
(``game``, ``level``, ``players``, ``games``, ``decisions``, ``with_losing``, ``undecided``,
``blunders``, ``check_seconds``, ``iterations``, ``seed``, ``played_first``).

``--played-first`` (a checker that takes the chosen move: Three-Player Moon's) judges the move
played first and stops there when it is not losing: the losing moves played and the decisions
checked are exact, ``with_losing`` is then a lower bound (only the decisions whose played move
was judged with the others count) and ``undecided`` counts only the decisions whose played
move could not be judged. Far cheaper: most played moves keep the bid in one of the first
worlds tried.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bot.games import GAMES
from engine.policies import LEVELS
from tests.blunders import GameCheck, checker_for, play_and_check


def _job(args: tuple[Any, ...]) -> GameCheck:
    key, players, seed, level, iterations, played_first = args
    return play_and_check(key, players, seed, [level] * players, iterations=iterations, played_first=played_first)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the count from the command line; returns the JSON summary (also printed last)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("--level", default="normal", choices=[*LEVELS, "random"])
    parser.add_argument("--players", type=int, default=None, help="seats (default 2; Moon 3)")
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=None, help="strong search iterations per move")
    parser.add_argument("--jobs", type=int, default=1, help="parallel worker processes")
    parser.add_argument("--played-first", action="store_true",
                        help="judge the move played first, stop when it is not losing (with_losing: a lower bound)")
    parser.add_argument("--quiet", action="store_true", help="only the losing moves and the summary")
    args = parser.parse_args(argv)
    game = GAMES[args.game].game
    try:
        checker_for(args.game)
    except LookupError as exc:
        parser.error(str(exc))
    players = args.players or max(2, game.min_players)
    if not game.min_players <= players <= game.max_players:
        parser.error(f"{args.game} takes {game.min_players}-{game.max_players} players")
    if args.games < 1 or args.jobs < 1:
        parser.error("--games and --jobs must be at least 1")
    jobs = [(args.game, players, args.seed * 100000 + g, args.level, args.iterations, args.played_first)
            for g in range(args.games)]
    start = time.perf_counter()
    total = GameCheck()
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    results = pool.map(_job, jobs) if pool is not None else map(_job, jobs)
    for g, one in enumerate(results):
        total.decisions += one.decisions
        total.with_losing += one.with_losing
        total.undecided += one.undecided
        total.check_seconds += one.check_seconds
        total.blunders += one.blunders
        for b in one.blunders:
            print(f"losing move played: seed {b.seed} version {b.version} seat {b.seat} plays {b.action}"
                  f" (losing: {' '.join(b.losing)})", flush=True)
        if not args.quiet:
            print(f"game {g + 1:5d}/{args.games}: {one.decisions} decisions, {one.with_losing} with a losing move,"
                  f" {one.undecided} undecided, {len(one.blunders)} losing played, checker {one.check_seconds:.1f} s"
                  f"  (running: {total.decisions} decisions, {total.with_losing} with, {total.undecided} undecided,"
                  f" {len(total.blunders)} played, {total.check_seconds:.0f} s)", file=sys.stderr, flush=True)
    if pool is not None:
        pool.shutdown()
    summary = {
        "game": args.game, "level": args.level, "players": players, "games": args.games,
        "decisions": total.decisions, "with_losing": total.with_losing, "undecided": total.undecided,
        "blunders": len(total.blunders), "check_seconds": round(total.check_seconds, 1),
        "iterations": args.iterations, "seed": args.seed, "played_first": args.played_first,
    }
    print(f"{args.game}: {args.level} at {players} seats, {args.games} games, {time.perf_counter() - start:.0f} s")
    print(f"decisions checked {total.decisions}, with a losing move {total.with_losing}, undecided"
          f" {total.undecided}, losing moves played {len(total.blunders)} (checker CPU {total.check_seconds:.0f} s)")
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit(130) from None
