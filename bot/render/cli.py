"""``python -m bot render GAME [--players N] [--seed S] [--steps K] [--lang en|fr] [--option K=V] --out DIR``:
play K AI steps of a new game and write its pictures, so anyone can look at a position:

- ``DIR/<game>-board.png``: the public board (from the public view);
- ``DIR/<game>-panel-<seat>.png``: every seat's panel (from that seat's view, legal choices marked);
- ``DIR/<game>-legend.png``: the legend, for a game that shows it on demand (Moonshine).

Prints one line per file written; exit status 0, or 2 with a message on bad arguments (an
``--out`` that is a file or a folder that cannot be created or written to is refused before any
step is played, as ``play --images`` refuses its folder).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from bot.arguments import BadArgument, folder_problem, os_reason, player_count, table_options
from bot.games import GAMES
from bot.render import legend, render_board, render_legend, render_panel
from bot.settings import caller_path

#: Seat names used by the tool (accents on purpose: they must render).
NAMES = ("Alice", "Bérénice", "Chloé", "Dédé", "Élodie", "François")


def build_parser() -> argparse.ArgumentParser:
    """The ``render`` command line."""
    parser = argparse.ArgumentParser(prog="python -m bot render",
                                     description="Write the board and every panel of a position as PNG files.")
    parser.add_argument("game", choices=sorted(GAMES))
    parser.add_argument("--players", type=int, default=None)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--steps", type=int, default=10, help="AI steps to play before drawing (stops at the end)")
    parser.add_argument("--lang", choices=["en", "fr"], default="en")
    parser.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                        help="table option, e.g. moonshine variant=regular (values read as JSON when they parse)")
    parser.add_argument("--out", required=True, type=lambda v: Path(caller_path(v)),
                        help="folder for the PNG files (created if needed)")
    return parser


def cannot_write(folder: Path, reason: str) -> str:
    """The one line for an ``--out`` folder that cannot take the pictures (``reason``: the
    system's words, as :func:`bot.arguments.folder_problem` gives them)."""
    return (f"Cannot write pictures to {folder}: {reason}. Give --out a folder you can write to "
            "(it is created if missing).")


def main(argv: list[str] | None = None) -> int:
    """Run the tool; returns the exit status."""
    args = build_parser().parse_args(argv)
    game = GAMES[args.game].game
    if args.steps < 0 or not 0 <= args.seed <= 2**62:
        print("--steps must be 0 or more and --seed from 0 to 2**62.", file=sys.stderr)
        return 2
    try:  # the words of play and simulate (bot/arguments.py)
        players = player_count(args.game, args.players)
        options = table_options(args.game, args.option)
        state = game.setup(args.seed, players, options)
    except BadArgument as exc:
        print(exc, file=sys.stderr)
        return 2
    except ValueError as exc:
        print(f"bad --option: {exc}", file=sys.stderr)
        return 2
    problem = folder_problem(args.out)  # a file, a folder that cannot be made or written: one line
    if problem is not None:
        print(cannot_write(args.out, problem), file=sys.stderr)
        return 2
    played = 0
    while played < args.steps and (to_act := game.to_act(state)):
        state = game.apply(state, {s: game.ai_action(state, s) for s in sorted(to_act)}).state
        played += 1
    names = NAMES[:players]
    try:
        path = args.out / f"{args.game}-board.png"
        path.write_bytes(render_board(args.game, game.view_json(state, None), names, args.lang, cache=None))
        print(path)
        for seat in range(players):
            legal = game.legal_codes(state, seat)
            png = render_panel(args.game, game.view_json(state, seat), legal, names, args.lang, cache=None)
            path = args.out / f"{args.game}-panel-{seat}.png"
            path.write_bytes(png)
            print(path)
        if legend(args.game):  # shown on demand rather than in every picture
            path = args.out / f"{args.game}-legend.png"
            path.write_bytes(render_legend(args.game, args.lang, cache=None))
            print(path)
    except OSError as err:  # the folder went away or filled up meanwhile: the same one line
        print(cannot_write(args.out, os_reason(err)), file=sys.stderr)
        return 2
    print(f"{played} step(s) played; game {'over' if not game.to_act(state) else 'running'}.", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
