"""Command line: ``python -m bot`` runs the bot; ``play`` and ``simulate`` work without Discord.

- ``python -m bot``: start the Discord bot (needs ``DISCORD_TOKEN`` in the environment or ``.env``;
  without it, prints what to set and how to play locally, and exits with status 2).
- ``python -m bot play GAME [--players N] [--ai LEVEL,...] [--seed S] [--lang en|fr] [--pace S | --fast]
  [--db FILE]``: play in the terminal (saved as you go) against AI players of the given levels
  (easy, normal, strong; one per AI seat); ``python -m bot play --resume`` continues the last game
  (in the language it was started in unless ``--lang`` says otherwise; the new-game options
  ``--players``/``--seed``/``--ai``/``--option``/``--deck`` do not apply to it, and it says so).
- ``python -m bot simulate GAME --games N --players P [--seed S] [--option KEY=VALUE] [--ai LEVEL[,LEVEL...]]``:
  win shares by turn position and (Moonshine) Speakeasy with 95% intervals (``docs/balance.md``).
- ``python -m bot rules GAME [--lang en|fr]``: print a rules summary.
- ``python -m bot render GAME [--players N] [--seed S] [--steps K] --out DIR``: write pictures.
- ``python -m bot invite CLIENT_ID``: print the invite link with the needed permissions.
- ``python -m bot migrate-data --from speakeasy.db --to postgresql://... [--include-local]``: move
  a SQLite store into an empty PostgreSQL database (bot stopped; the terminal's local games only
  with ``--include-local``).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
from pathlib import Path
from typing import NoReturn

from pydantic import ValidationError

from bot.arguments import json_or_text, named, player_count, table_options
from bot.games import GAMES

NO_TOKEN = """\
Speakeasy needs a Discord bot token to connect to Discord.

  1. Create an application at https://discord.com/developers/applications,
     open "Bot", press "Reset Token" and copy it.
  2. Put it in a file named .env next to pyproject.toml:   DISCORD_TOKEN=your-token
     (copy .env.example to .env to see every setting).
  3. Run this command again. The README explains how to invite the bot to your server.

No token? Play locally against AI players, right here in the terminal:

  ./scripts/start.sh play gang-of-dice --players 3

Games: {games}
"""


MAX_SEED = 2**62


def _seed(raw: str) -> int:
    """argparse type: a seed from 0 to 2**62."""
    try:
        value = int(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {raw!r}") from None
    if not 0 <= value <= MAX_SEED:
        raise argparse.ArgumentTypeError(f"a seed is from 0 to {MAX_SEED}")
    return value


class _Parser(argparse.ArgumentParser):
    """An argument parser whose mistakes are one line (what was wrong, and where ``--help``
    shows the choices), not argparse's usage block; exit status 2 as argparse's."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} ({self.prog} --help lists what it takes)\n")


def build_parser() -> argparse.ArgumentParser:
    """The command line: ``run`` (default), ``play``, ``simulate``, ``rules``, ``invite``, ``render``,
    ``migrate-data``."""
    from bot.terminal import default_db_path

    # the command the user typed (scripts/start.sh says so), for the messages and --help
    prog = os.environ.get("SPEAKEASY_COMMAND") or "python -m bot"
    parser = _Parser(prog=prog, description="Speakeasy: tabletop games on Discord.")
    sub = parser.add_subparsers(dest="command")
    games = sorted(GAMES)
    play = sub.add_parser("play", help="play a game in the terminal against AI players")
    play.add_argument("game", choices=games, nargs="?", help="the game (optional with --resume)")
    play.add_argument("--players", type=int, default=None, help="number of seats (you + AI players)")
    play.add_argument("--seed", type=_seed, default=None, help="seed for a reproducible game")
    play.add_argument("--lang", choices=["en", "fr"], default=None,
                      help="the language (default: English; a resumed game: the language it was started in)")
    play.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                      help="table option: shop-battle round_cap=N|none, moonshine variant=standard|regular")
    play.add_argument("--deck", metavar="FILE", help="shop-battle: play with this deck file (JSON)")
    play.add_argument("--images", metavar="DIR", help="write the board as a PNG picture after each step")
    play.add_argument("--resume", action="store_true", help="continue the last unfinished terminal game")
    play.add_argument("--table", type=int, default=None, metavar="N",
                      help="with --resume: continue table #N (an older unfinished game) instead")
    play.add_argument("--db", metavar="FILE", help="where terminal games are saved (default: "
                      f"{default_db_path()})")
    play.add_argument("--ai", metavar="LEVEL[,LEVEL...]", default=None,
                      help="the AI players' levels: one for every AI seat, or one per AI seat in order "
                           "(easy, normal or strong; e.g. --ai strong, --ai strong,normal; default: normal)")
    play.add_argument("--pace", type=float, default=None, metavar="SECONDS", help="pause between AI moves (0.6)")
    play.add_argument("--fast", action="store_true", help="no pause between AI moves")
    play.add_argument("--watch", action="store_true",
                      help="every seat an AI player (--ai: one level for all, or one per seat); you watch the public table")
    sim = sub.add_parser(
        "simulate", help="play AI-only games and print a summary",
        description="Play AI-only games straight through the rules and print the win share by turn position "
                    "(position 0 = the player who starts), by Speakeasy (Moonshine), by AI level and by seat, each "
                    "as 'won N (P%) ±CI [LO-HI%]' with a 95% confidence interval, then the game lengths. The "
                    "summary depends only on the arguments; the speed goes to standard error. Figures: "
                    "docs/balance.md.")
    sim.add_argument("game", choices=games)
    sim.add_argument("--games", type=int, default=100, help="games to play (default 100)")
    sim.add_argument("--players", type=int, default=None, help="seats, all AI players (default: 3, or the game's only count)")
    sim.add_argument("--seed", type=_seed, default=1, help="the games' seeds are drawn from it (default 1)")
    sim.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                     help="table option: shop-battle round_cap=N|none, moonshine variant=standard|regular")
    sim.add_argument("--deck", metavar="FILE", help="shop-battle: play with this deck file (JSON)")
    sim.add_argument("--ai", default="normal", metavar="LEVEL[,LEVEL...]",
                     help="AI level of every seat, or one per seat: easy, normal, strong, random (default normal)")
    sim.add_argument("--iterations", type=int, default=None, metavar="N",
                     help="strong AI: search iterations per move (default: the game's budget)")
    rules = sub.add_parser("rules", help="print a game's rules summary")
    rules.add_argument("game", choices=games)
    rules.add_argument("--lang", choices=["en", "fr"], default="en")
    inv = sub.add_parser("invite", help="print the invite link of your application")
    inv.add_argument("client_id", type=int)
    move = sub.add_parser("migrate-data", help="copy a SQLite store into an empty PostgreSQL database (bot stopped)")
    move.add_argument("--from", dest="source", required=True, metavar="FILE", help="the SQLite file (speakeasy.db)")
    move.add_argument("--to", dest="target", required=True, metavar="URL", help="postgresql://user:pass@host:5432/db")
    move.add_argument("--include-local", action="store_true",
                      help="also copy the terminal's local games (guild 0: `play` run with --db on this file)")
    sub.add_parser("run", help="start the Discord bot (the default)")
    # handled by bot/render/cli.py before parsing; listed here so that --help shows it
    sub.add_parser("render", help="draw a game's board and panels as PNG files (render --help)", add_help=False)
    parser.commands = sub.choices  # type: ignore[attr-defined]  # for main's one-line mistakes
    return parser


def _levels(raw: str | None) -> list[str] | None:
    """``--ai strong,normal``: the AI levels as typed, one for every AI seat or one per AI seat in
    seat order (case and spaces ignored; :func:`_new_players` sizes them). Exits with a clear
    message on an unknown or missing level."""
    if raw is None:
        return None
    from bot.ai_pool import LEVELS

    levels = [part.strip().lower() for part in raw.split(",")]
    for level in levels:
        if level not in LEVELS:
            shown = repr(level) if level else "an empty level"
            raise SystemExit(f"--ai: {shown} is not a level; the levels are {', '.join(LEVELS)} "
                             "(one for every AI seat, or one per AI seat separated by commas: --ai strong,normal)")
    return levels


def _count(n: int, noun: str) -> str:
    """``n`` and the English ``noun``, plural but for 1: "1 level", "4 levels"."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _new_players(game: str, given: int | None, levels: list[str] | None,
                 watch: bool = False) -> tuple[int, list[str] | None]:
    """The seats of a new terminal table and each AI seat's level: ``--players``, else, with
    several ``--ai`` levels, one more than them (as many with ``--watch``: every seat is an AI
    player), else the game's default; one ``--ai`` level is every AI seat's. Exits with a clear
    message when they do not fit the game."""
    you = 0 if watch else 1
    beside = "" if watch else " beside you"
    wanted = given
    if levels is not None and len(levels) == 1:  # one level for every AI seat, however many
        players = player_count(game, given)
        return players, levels * (players - you)
    if given is None and levels is not None:
        wanted = len(levels) + you
        g = GAMES[game].game
        if not g.min_players <= wanted <= g.max_players:
            seats = (f"{g.min_players - you}" if g.min_players == g.max_players
                     else f"{g.min_players - you} to {g.max_players - you}")
            many = "AI player" if seats == "1" else "AI players"
            raise SystemExit(f"--ai gives {_count(len(levels), 'level')}, one per AI player, but {named(game)} has "
                             f"{seats} {many}{beside}: e.g. --ai " + ",".join(["normal"] * (g.min_players - you)))
    players = player_count(game, wanted)
    if levels is not None and len(levels) != players - you:
        raise SystemExit(f"--ai gives {_count(len(levels), 'level')} but the table has {_count(players - you, 'AI player')} "
                         f"(--players {players}): give one level for them all, or one per AI seat, e.g. --ai "
                         + ",".join(["normal"] * (players - you)))
    return players, levels


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (``SystemExit`` with a message on bad input)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["render"]:  # pictures: python -m bot render GAME ... --out DIR (bot/render/cli.py)
        from bot.render.cli import main as render_main

        return render_main(argv[1:])
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:  # told by the command's own parser, whose --help lists what it takes
        commands = getattr(parser, "commands", {})
        (commands.get(args.command) or parser).error(f"unrecognized arguments: {' '.join(extra)}")
    from bot.settings import caller_path

    for name in ("db", "images", "deck", "source"):  # paths typed by the user: from where they typed them
        if getattr(args, name, None):
            setattr(args, name, caller_path(getattr(args, name)))
    if args.command == "play":
        from bot.terminal import DEFAULT_PACE, TerminalGame, log_path

        if args.game is None and not args.resume:
            raise SystemExit(f"play needs a game ({', '.join(sorted(GAMES))}) or --resume")
        if args.fast and args.pace is not None:
            raise SystemExit("--fast is --pace 0: give one of --fast and --pace")
        if args.table is not None and not args.resume:
            raise SystemExit("--table goes with --resume: play --resume --table N")
        pace = 0.0 if args.fast else DEFAULT_PACE if args.pace is None else args.pace
        if not 0 <= pace <= 10:
            raise SystemExit("--pace is from 0 to 10 seconds")
        if args.game is not None:
            options = table_options(args.game, args.option, args.deck)
        else:  # play --resume without a game: not checked, only named as not applied (if they differ)
            options = {key: json_or_text(value) for key, _, value in (p.partition("=") for p in args.option)}
            if args.deck is not None:
                options["deck_data"] = args.deck
        levels = _levels(args.ai)
        if args.resume:  # the table keeps its seats, seed, levels and options: the terminal says so
            players = args.players or 0
        else:
            assert args.game is not None
            players, levels = _new_players(args.game, args.players, levels, args.watch)
        db_path = Path(args.db) if args.db else None
        # the service's log lines go to a file beside the tables, never onto the player's screen
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                            handlers=[logging.FileHandler(log_path(db_path), delay=True, encoding="utf-8")])
        game = TerminalGame(args.game, players, args.seed, args.lang, options=options, images=args.images,
                            resume=args.resume, pace=pace, db_path=db_path,
                            ai_levels=levels, watch=args.watch, table_id=args.table)
        try:
            return asyncio.run(game.run())
        except KeyboardInterrupt:  # Ctrl-C while the AI plays: every step is already saved
            print("\n" + game.t("term.bye", command=game.resume_command))
            return 130
    if args.command == "simulate":
        from bot.simulate import simulate

        if not 1 <= args.games <= 1_000_000:
            raise SystemExit("--games must be from 1 to 1000000")
        if args.iterations is not None and not 1 <= args.iterations <= 1_000_000:
            raise SystemExit("--iterations must be from 1 to 1000000")
        from bot.simulate import parse_levels

        players = player_count(args.game, args.players)
        try:
            summary = simulate(GAMES[args.game].game, args.games, players, args.seed,
                               table_options(args.game, args.option, args.deck), parse_levels(args.ai, players),
                               args.iterations)
        except (ValueError, ValidationError) as exc:
            raise SystemExit(str(exc)) from None
        except KeyboardInterrupt:
            print("\nInterrupted.", file=sys.stderr)
            return 130
        print("\n".join(summary.lines()))
        print(f"speed (varies by machine): {summary.speed()}", file=sys.stderr)
        return 0
    if args.command == "rules":
        from bot.terminal import TerminalTranslator, block_text

        print(block_text(GAMES[args.game].presenter.rules(TerminalTranslator(args.lang))))
        return 0
    if args.command == "migrate-data":
        from bot.migrate import migrate_data

        return migrate_data(args.source, args.target, local_games=args.include_local)
    if args.command == "invite":
        from bot.client import invite_url

        print(invite_url(args.client_id))
        return 0
    return run_bot()


def run_bot() -> int:
    """Start the Discord bot; exit code 2 with instructions when no token is set, a setting is
    malformed or the store (``DATABASE_URL`` / ``DATABASE_PATH``) is unusable (checked before
    connecting to Discord)."""
    from bot.settings import SettingsFileError, load_settings
    from storage.factory import public_url, store_problem

    try:
        settings = load_settings()
    except SettingsFileError as exc:
        print(exc, file=sys.stderr)
        return 2
    except ValidationError as exc:
        for err in exc.errors():  # one line a setting, each pointing to the list of settings
            name = ".".join(str(p) for p in err["loc"]).upper()
            msg = str(err["msg"]).removeprefix("Value error, ")  # our validators' own text
            print(f"Invalid setting {name}: {msg} (.env.example lists every setting)." if name
                  else f"Invalid settings: {msg} (.env.example lists every setting).", file=sys.stderr)
        return 2
    if settings.discord_token is None:
        print(NO_TOKEN.format(games=", ".join(sorted(GAMES))), file=sys.stderr)
        return 2
    problem = store_problem(settings.store_url)
    if problem:
        name = "DATABASE_URL" if settings.database_url else "DATABASE_PATH"
        print(f"{name}={public_url(settings.store_url)}: {problem}", file=sys.stderr)
        return 2
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from bot.client import run

    return run(settings, settings.discord_token.get_secret_value())


def _main_piped() -> int:
    """:func:`main`, quiet when the reader of standard output goes away (``simulate ... | head``):
    no ``BrokenPipeError`` traceback, exit status 1 (the recipe of Python's ``signal`` docs)."""
    try:
        code = main()
        sys.stdout.flush()
        return code
    except BrokenPipeError:
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
        return 1


if __name__ == "__main__":
    sys.exit(_main_piped())
