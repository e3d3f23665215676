"""Moon bids of Three-Player Moon's AI levels and how often they are made (not a test).

    .venv/bin/python -m bench.moon_bids --levels strong,strong,strong --games N [--seed S]
                                       [--iterations K] [--jobs J]

Plays ``--games`` games with the levels of ``--levels`` (one per seat; game ``g`` deals seed
``S * 100000 + g // 3`` and turns the levels ``g % 3`` seats round, so every deal is played
from every seat, as ``bench.arena`` does; when the three levels are the same, every game is a
deal of its own, ``S * 100000 + g``: played from another seat it would be the same game) and counts, per level: the hands its seats were dealt
(each seat of each hand, thrown-in hands included), the moon bids they made (T2) and how many
of those took all seven tricks (T6), the other bids they won the bidding with (4 to 7) and how
many of those were made, and the games they won (a first place shared by ``k``
seats counts ``1/k``). Prints one line per level: moon bids per 100 hands a seat was dealt, the
share made with a 95% Wilson interval, and the level's share of the games (with ``--calibrate``,
also the moon bids and the share made by the bidder's chance against good defenders,
``engine.three_player_moon.outlook.moon_chance`` on 96 deals); the last line is one JSON object (``levels``, ``games``, ``hands`` (table hands), and per level ``seat_hands``,
``moon_bids``, ``moons_made``, ``bids``, ``bids_made``, ``wins``).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from bot.games import GAMES
from bot.simulate import wilson
from engine.policies import LEVELS, choose
from engine.search import outcome_rewards
from engine.three_player_moon.actions import Bid
from engine.three_player_moon.outlook import moon_chance
from engine.three_player_moon.tiles import MOON

__all__ = ["CALIBRATION_SAMPLES", "play_game"]

#: Deals of the moon chance recorded with each moon bid (``--calibrate``).
CALIBRATION_SAMPLES = 96


def play_game(seed: int, levels: list[str], iterations: int | None, calibrate: bool = False) -> dict[str, Any]:
    """One game with ``levels[s]`` at seat ``s``: per level ``seat_hands``, ``moon_bids``,
    ``moons_made``, ``bids`` and ``bids_made`` (the other winning bids) and ``wins``, and the table ``hands``; with ``calibrate``, per level the
    ``calibration`` list of ``(chance against good defenders of the bidder's 7 tiles, made)``
    of its moon bids (``engine.three_player_moon.outlook.moon_chance``, 96 deals)."""
    game = GAMES["three-player-moon"].game
    state = game.setup(seed, 3, {})
    seat_hands: Counter[str] = Counter()
    bids: Counter[str] = Counter()
    made: Counter[str] = Counter()
    other: Counter[str] = Counter()
    other_made: Counter[str] = Counter()
    hands = 0
    counted = -1
    chance: float | None = None
    calibration: dict[str, list[tuple[float, bool]]] = {}
    while game.to_act(state):
        if state.hand_no != counted:
            counted = state.hand_no
            hands += 1
            for lv in levels:
                seat_hands[lv] += 1
        seat = state.turn
        act = choose(game, state, seat, levels[seat], salt=seed * 7 + seat, iterations=iterations)
        if calibrate and isinstance(act, Bid) and act.bid == MOON:
            chance = moon_chance(state.hands[seat], CALIBRATION_SAMPLES, random.Random(f"calibrate:{seed}:{counted}"))
        state = game.apply(state, {seat: act}).state
        last = state.last_hand
        if last is not None and last.bid != MOON and last.hand_no == counted and (
                state.hand_no != counted or state.phase == "over"):
            other[levels[last.bidder]] += 1
            other_made[levels[last.bidder]] += last.made
        if last is not None and last.bid == MOON and last.hand_no == counted and (
                state.hand_no != counted or state.phase == "over"):
            bids[levels[last.bidder]] += 1
            made[levels[last.bidder]] += last.made
            if chance is not None:
                calibration.setdefault(levels[last.bidder], []).append((chance, last.made))
            chance = None
    outcome = game.outcome(state)
    assert outcome is not None
    wins: dict[str, float] = {}
    for s, r in enumerate(outcome_rewards(outcome)):
        wins[levels[s]] = wins.get(levels[s], 0.0) + r
    return {"hands": hands, "seat_hands": dict(seat_hands), "moon_bids": dict(bids), "moons_made": dict(made),
            "bids": dict(other), "bids_made": dict(other_made), "wins": dict(wins), "calibration": calibration}


def _job(args: tuple[Any, ...]) -> dict[str, Any]:
    return play_game(*args)


def main(argv: list[str] | None = None) -> dict[str, Any]:
    """Run the count from the command line; returns the JSON summary (also printed last)."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--levels", default="strong,strong,strong", help="three levels, one per seat")
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=None, help="strong search playouts per move")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--calibrate", action="store_true",
                        help="also tabulate the moon bids by the bidder's chance against good defenders")
    args = parser.parse_args(argv)
    levels = [x.strip() for x in args.levels.split(",")]
    if len(levels) != 3 or any(lv not in LEVELS for lv in levels):
        parser.error(f"--levels takes three of {', '.join(LEVELS)}")
    # the distinct seatings of the levels: one when every seat has the same level (a deal played
    # again from another seat would be the same game), else three
    turns = len({tuple(levels[k:] + levels[:k]) for k in range(3)})
    jobs = []
    for g in range(args.games):
        k = g % turns
        jobs.append((args.seed * 100000 + g // turns, levels[-k:] + levels[:-k] if k else list(levels), args.iterations,
                     args.calibrate))
    start = time.perf_counter()
    pool = ProcessPoolExecutor(args.jobs) if args.jobs > 1 else None
    results = list(pool.map(_job, jobs) if pool is not None else map(_job, jobs))
    if pool is not None:
        pool.shutdown()
    total: dict[str, Counter[str]] = {k: Counter() for k in ("seat_hands", "moon_bids", "moons_made", "bids",
                                                               "bids_made", "wins")}
    hands = 0
    for r in results:
        hands += r["hands"]
        for key, counter in total.items():
            counter.update(r[key])
    print(f"three-player-moon: levels {','.join(levels)}, {args.games} games, {hands} hands,"
          f" {time.perf_counter() - start:.0f} s")
    per_level: dict[str, dict[str, float]] = {}
    for lv in dict.fromkeys(levels):
        sh, nb, nm = total["seat_hands"][lv], total["moon_bids"][lv], total["moons_made"][lv]
        seats = levels.count(lv)
        share = total["wins"][lv] / (args.games * seats)
        lo, hi = wilson(nm / nb, nb) if nb else (0.0, 1.0)
        print(f"{lv:7} moon bids {nb} in {sh} seat-hands ({100 * nb / max(1, sh):.1f} per 100), made {nm}"
              f" ({(nm / nb if nb else 0):.2f}, 95% CI [{lo:.2f}, {hi:.2f}]); games won per seat {share:.3f}")
        ob, om = total["bids"][lv], total["bids_made"][lv]
        lo, hi = wilson(om / ob, ob) if ob else (0.0, 1.0)
        print(f"{lv:7} other bids (4-7) {ob}, made {om} ({(om / ob if ob else 0):.2f}, 95% CI [{lo:.2f}, {hi:.2f}])")
        per_level[lv] = {"seat_hands": sh, "moon_bids": nb, "moons_made": nm, "bids": ob, "bids_made": om,
                         "wins": round(total["wins"][lv], 2)}
    calibration: dict[str, list[tuple[float, bool]]] = {}
    for r in results:
        for lv, rows in r["calibration"].items():
            calibration.setdefault(lv, []).extend(rows)
    for lv, rows in calibration.items():
        for lo_p, hi_p in ((0.0, 0.25), (0.25, 0.4), (0.4, 0.55), (0.55, 0.7), (0.7, 1.01)):
            sel = [m for p, m in rows if lo_p <= p < hi_p]
            if sel:
                print(f"{lv:7} moon bids with a chance in [{lo_p:.2f}, {min(hi_p, 1.0):.2f}): {len(sel)},"
                      f" made {sum(sel)} ({sum(sel) / len(sel):.2f})")
    summary = {"levels": levels, "games": args.games, "hands": hands, "iterations": args.iterations,
               "seed": args.seed, "per_level": per_level}
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
