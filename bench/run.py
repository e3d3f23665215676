"""Benchmarks (not tests): engine random playouts per second per game, full games per second
through the table services with SQLite in a temporary folder, and board pictures (median and p95
render time, median and largest PNG size; budget 30 ms and 300 KB, see bot/render), and Discord
calls per applied step over a full game through the offline harness (bench/discord_calls.py;
needs the test extras; budget 3 REST calls per step).

    .venv/bin/python -m bench.run [--seconds 3] [--games 5] [--only GAME]

Prints one line per figure. Numbers vary by machine; the README and closing notes quote them.
The engine figure (random legal playouts through the engine contract, see
:func:`random_playouts`) is per CPU-second of this process.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import tempfile
import time
from pathlib import Path

from bench.stats import quantile
from bot.games import GAMES
from bot.house import House
from storage.sqlite import SqliteStore

#: The engine figures (random-playout steps per CPU-second) the speed floor is measured against:
#: each game's "x reference" must stay at least 4 (docs/performance.md, "Speed floor").
REFERENCE_STEPS = {"gang-of-dice": 37_800, "three-player-moon": 36_400, "shop-battle": 17_200, "moonshine": 11_000}


def random_playouts(key: str, seconds: float, seed: int = 1) -> tuple[int, int, float]:
    """Random legal playouts of ``key`` for about ``seconds`` of this process's CPU time
    (``time.process_time``, so that other work on a shared machine does not count):
    ``(games, steps, elapsed)``.

    Each step goes through the engine contract: ``to_act``, ``legal_actions`` of every acting
    seat, one uniformly random legal action each (``legal[int(random() * len(legal))]``, the
    same distribution as ``random.choice`` up to 2**-53), then ``apply``. The loop is kept lean
    (bound methods, the one-seat case without ``sorted`` and a dict comprehension) so that the
    figure measures the engine rather than the harness (measured on the shared 2-core machine:
    the random pick about 0.2 microseconds against 0.4 for ``rng.choice``, and the dict
    comprehension over ``sorted(to_act)`` about 0.6 more; the old loop was about 1.1
    microseconds a step, 7-18% of an engine step)."""
    game = GAMES[key].game
    to_act, legal_actions, apply = game.to_act, game.legal_actions, game.apply
    rng = random.Random(seed)
    pick = rng.random
    players = min(max(game.min_players, 3), game.max_players)
    games = steps = 0
    clock = time.process_time
    start = clock()
    while clock() - start < seconds:
        state = game.setup(rng.getrandbits(62), players, {})
        while acting := to_act(state):
            if len(acting) == 1:
                (seat,) = acting
                legal = legal_actions(state, seat)
                state = apply(state, {seat: legal[int(pick() * len(legal))]}).state
            else:
                choices = {}
                for s in sorted(acting):
                    legal = legal_actions(state, s)
                    choices[s] = legal[int(pick() * len(legal))]
                state = apply(state, choices).state
            steps += 1
        games += 1
    return games, steps, clock() - start


async def service_games(key: str, games: int) -> tuple[int, int, float]:
    """``games`` full tables of ``key`` through the table services (AI players; the host seat plays
    the AI's move through ``submit``): ``(games, steps, elapsed)``."""
    game = GAMES[key].game
    players = min(max(game.min_players, 3), game.max_players)
    steps = 0
    with tempfile.TemporaryDirectory() as tmp:
        db = await SqliteStore.open(Path(tmp) / "bench.db")
        svc = House(db, ai_delay=0, seed_source=iter(range(1, 10**9)).__next__)
        start = time.perf_counter()
        for _ in range(games):
            t = await svc.lobbies.open(guild_id=1, channel_id=1, game=key, host_user_id=1, host_name="host")
            for _ in range(players - 1):
                await svc.lobbies.add_ai(t.id, 1)
            await svc.lobbies.start(t.id, 1)
            while True:
                await svc.tables.idle()
                view = await svc.hall.table(t.id)
                if view.row.status != "running":
                    break
                if 0 in view.to_act() and 0 not in view.pending:
                    code = game.encode(game.ai_action(view.state, 0))
                    await svc.tables.submit(t.id, 1, view.version, code)
            steps += (await svc.hall.table(t.id)).version
        elapsed = time.perf_counter() - start
        await svc.tables.close()
        await db.close()
    return games, steps, elapsed


def render_boards(key: str, boards: int = 40, seed: int = 3) -> tuple[float, float, int, int]:
    """Render the public board of ``boards`` states spread along an AI playout of ``key``
    (no cache): ``(median ms, p95 ms, median bytes, max bytes)``. Times are CPU time of this
    process (``time.process_time``), so that other work on the machine does not inflate them."""
    from bot.render import render_board

    game = GAMES[key].game
    players = min(max(game.min_players, 3), game.max_players)
    state = game.setup(seed, players, {})
    trace = [state]
    while to_act := game.to_act(state):
        state = game.apply(state, {s: game.ai_action(state, s) for s in sorted(to_act)}).state
        trace.append(state)
    picked = [trace[i * (len(trace) - 1) // max(1, boards - 1)] for i in range(boards)]
    names = tuple(f"Player {i + 1}" for i in range(players))
    render_board(key, game.view_json(picked[0], None), names, "en", cache=None)  # warm fonts
    times, sizes = [], []
    for st in picked:
        view = game.view_json(st, None)
        start = time.process_time()
        png = render_board(key, view, names, "en", cache=None)
        times.append((time.process_time() - start) * 1000)
        sizes.append(len(png))
    return quantile(times, 0.5), quantile(times, 0.95), int(quantile(sizes, 0.5)), max(sizes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=3.0, help="time per engine benchmark")
    parser.add_argument("--games", type=int, default=5, help="games per service benchmark")
    parser.add_argument("--only", choices=sorted(GAMES))
    args = parser.parse_args()
    if args.seconds <= 0 or args.games < 1:
        parser.error("--seconds must be positive and --games at least 1")
    keys = [args.only] if args.only else sorted(GAMES)
    for key in keys:
        g, s, e = random_playouts(key, args.seconds)
        ref = REFERENCE_STEPS.get(key)
        times = f"  {s / e / ref:5.1f} x reference" if ref else ""
        print(f"engine  {key:18} {g / e:10.1f} random playouts/s  {s / e:10.0f} steps/s{times}")
    for key in keys:
        g, s, e = asyncio.run(service_games(key, args.games))
        print(f"service {key:18} {g / e:10.2f} games/s (SQLite)   {s / e:10.0f} steps/s")
    for key in keys:
        med, p95, size, biggest = render_boards(key)
        print(f"render  {key:18} board median {med:5.1f} ms  p95 {p95:5.1f} ms  "
              f"PNG median {size / 1000:5.1f} KB  max {biggest / 1000:5.1f} KB")
    try:
        import tests.harness  # noqa: F401  (the test extras)
        from bench import discord_calls
    except ImportError:
        print("discord (skipped: install the test extras for the offline Discord harness)")
        return
    for key in keys:
        print(discord_calls.line(asyncio.run(discord_calls.count_game(key))))


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        raise SystemExit(130) from None
