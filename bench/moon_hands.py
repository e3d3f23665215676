"""Hand outcomes of Three-Player Moon between normal AIs (not a test): the data of the strong
AI's win-chance estimate (``engine/three_player_moon/outlook.py``).

    .venv/bin/python -m bench.moon_hands --games 3000 --seed 1 > engine/three_player_moon/data/hand_outcomes.json

Plays ``--games`` games of three normal AIs (``game.ai_action``) from seeds ``seed * 100000 +
g`` and counts every hand's result relative to its first bidder (RULINGS T2, T6): the points of
the first, second and third bidder, and which of them made a moon (``-1``: nobody). A thrown-in
hand (three passes) counts as ``[0, 0, 0]``. Prints the JSON data file (``outcomes``: one row per
distinct result, most frequent first).
"""

from __future__ import annotations

import argparse
import json
from collections import Counter

from bot.games import GAMES


def count_hands(games: int, seed: int) -> Counter[tuple[int, int, int, int]]:
    """``(points of bidders 1, 2, 3 in bidding order, moon maker or -1) -> hands`` over ``games``
    normal-AI games."""
    game = GAMES["three-player-moon"].game
    out: Counter[tuple[int, int, int, int]] = Counter()
    for g in range(games):
        state = game.setup(seed * 100000 + g, 3, {})
        while game.to_act(state):
            first, hand_no = state.first_bidder, state.hand_no
            state = game.apply(state, {state.turn: game.ai_action(state, state.turn)}).state
            if state.hand_no == hand_no and state.phase != "over":
                continue
            last = state.last_hand
            if last is None or last.hand_no != hand_no:
                out[(0, 0, 0, -1)] += 1  # thrown in
                continue
            rel = tuple(last.points[(first + k) % 3] for k in range(3))
            moon = (last.bidder - first) % 3 if last.bid == 21 and last.made else -1
            out[(rel[0], rel[1], rel[2], moon)] += 1
    return out


def main(argv: list[str] | None = None) -> None:
    """Print the data file for ``--games`` games from ``--seed``."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    counts = count_hands(args.games, args.seed)
    rows = [{"points": [a, b, c], "moon": m, "hands": n}
            for (a, b, c, m), n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    data = {"source": f"python -m bench.moon_hands --games {args.games} --seed {args.seed}",
            "games": args.games, "outcomes": rows}
    text = json.dumps(data, indent=0)
    print(text.replace("\n", "").replace("{", "\n{").replace("\n{\"source", "{\"source") + "\n", end="")


if __name__ == "__main__":
    main()
