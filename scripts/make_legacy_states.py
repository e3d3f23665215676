"""Write ``tests/data/legacy_v1_states/*.jsonl.gz``: engine traces from the version before the
architecture change (run with that code: `git log tests/data/legacy_v1_states`), one AI playout per game and variant.

Each line is one step: the stored state (``dump_state``), who acts, every legal action code of
each acting seat, the public view and each seat's view (JSON), and the codes applied. Today's
engines must load each state, offer the same codes, show the same views and reach the same next
state (``tests/test_compat.py``): stored snapshots, action logs and action codes stay valid.
Not part of the product.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from bot.games import GAMES

OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "legacy_v1_states"
PLANS = [
    ("gang-of-dice", 3, {}, 11),
    ("gang-of-dice", 4, {}, 12),
    ("three-player-moon", 3, {}, 21),
    ("shop-battle", 4, {}, 31),
    ("shop-battle", 2, {"round_cap": None}, 32),
    ("moonshine", 4, {}, 41),
    ("moonshine", 3, {"variant": "regular"}, 42),
]


def view_json(game, state, seat):
    v = game.view(state, seat)
    return json.loads(json.dumps(v))


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for key, players, options, seed in PLANS:
        game = GAMES[key].game
        state = game.setup(seed, players, options)
        name = f"{key}-{players}p-{seed}.jsonl.gz"
        with gzip.open(OUT / name, "wt", encoding="utf-8") as f:
            step_no = 0
            while True:
                to_act = sorted(game.to_act(state))
                line = {
                    "key": key, "players": players, "options": options, "seed": seed, "step": step_no,
                    "state": game.dump_state(state), "to_act": to_act,
                    "legal": {str(s): [game.encode(a) for a in game.legal_actions(state, s)] for s in to_act},
                    "views": {str(s): view_json(game, state, s) for s in [None, *range(players)]},
                    "outcome": None,
                }
                if not to_act:
                    out = game.outcome(state)
                    line["outcome"] = {"ranks": list(out.ranks), "scores": list(out.scores)}
                    f.write(json.dumps(line, sort_keys=True) + "\n")
                    break
                actions = {s: game.ai_action(state, s) for s in to_act}
                line["apply"] = {str(s): game.encode(a) for s, a in actions.items()}
                step = game.apply(state, actions)
                line["events"] = [[e.key, dict(e.params), sorted(e.audience) if e.audience is not None else None]
                                  for e in step.events]
                f.write(json.dumps(line, sort_keys=True, default=list) + "\n")
                state = step.state
                step_no += 1
        print(name, step_no)


if __name__ == "__main__":
    main()
