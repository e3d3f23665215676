"""Command line: ``python -m bot`` runs the bot; ``play`` and ``simulate`` work without Discord.

- ``python -m bot``: start the Discord bot (needs ``DISCORD_TOKEN`` in the environment or ``.env``;
  without it, prints what to set and how to play locally, and exits with status 2).
- ``python -m bot play GAME [--players N] [--seed S] [--lang en|fr]``: play in the terminal.
- ``python -m bot simulate GAME --games N --players P [--seed S] [--option KEY=VALUE]``.
- ``python -m bot invite CLIENT_ID``: print the invite link with the needed permissions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys

from pydantic import ValidationError

from engine.registry import GAMES

NO_TOKEN = """\
Speakeasy needs a Discord bot token to connect to Discord.

  1. Create an application at https://discord.com/developers/applications,
     open "Bot", press "Reset Token" and copy it.
  2. Put it in a file named .env next to pyproject.toml:   DISCORD_TOKEN=your-token
     (copy .env.example to .env to see every setting).
  3. Run this command again. The README explains how to invite the bot to your server.

No token? Play locally against AI players, right here in the terminal:

  python -m bot play gang-of-dice --players 3

Games: {games}
"""


def _parse_options(pairs: list[str]) -> dict[str, object]:
    out: dict[str, object] = {}
    for pair in pairs:
        if "=" not in pair:
            raise SystemExit(f"--option takes KEY=VALUE, got {pair!r}")
        key, value = pair.split("=", 1)
        try:
            out[key] = json.loads(value)
        except json.JSONDecodeError:
            out[key] = value
    return out


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m bot", description="Speakeasy: tabletop games on Discord.")
    sub = parser.add_subparsers(dest="command")
    games = sorted(GAMES)
    play = sub.add_parser("play", help="play a game in the terminal against AI players")
    play.add_argument("game", choices=games)
    play.add_argument("--players", type=int, default=None, help="number of seats (you + AI players)")
    play.add_argument("--seed", type=int, default=None, help="seed for a reproducible game")
    play.add_argument("--lang", choices=["en", "fr"], default="en")
    play.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="table option")
    sim = sub.add_parser("simulate", help="play AI-only games and print a summary")
    sim.add_argument("game", choices=games)
    sim.add_argument("--games", type=int, default=100)
    sim.add_argument("--players", type=int, default=None)
    sim.add_argument("--seed", type=int, default=1)
    sim.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="table option")
    inv = sub.add_parser("invite", help="print the invite link of your application")
    inv.add_argument("client_id", type=int)
    sub.add_parser("run", help="start the Discord bot (the default)")
    return parser


def _players(game: str, wanted: int | None) -> int:
    g = GAMES[game]
    n = wanted if wanted is not None else min(max(g.min_players, 3), g.max_players)
    if not g.min_players <= n <= g.max_players:
        raise SystemExit(f"{game} is played by {g.min_players} to {g.max_players} players (got --players {n}).")
    return n


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "play":
        from bot.terminal import TerminalGame

        options = _parse_options(args.option)
        try:
            GAMES[args.game].parse_options(options)
        except ValidationError as exc:
            raise SystemExit(f"bad --option: {exc.errors()[0]['msg']}")
        game = TerminalGame(args.game, _players(args.game, args.players), args.seed, args.lang, options=options)
        return asyncio.run(game.run())
    if args.command == "simulate":
        from bot.simulate import simulate

        try:
            summary = simulate(GAMES[args.game], args.games, _players(args.game, args.players), args.seed,
                               _parse_options(args.option))
        except (ValueError, ValidationError) as exc:
            raise SystemExit(str(exc))
        print("\n".join(summary.lines()))
        print(f"speed (varies by machine): {summary.speed()}", file=sys.stderr)
        return 0
    if args.command == "invite":
        from bot.client import invite_url

        print(invite_url(args.client_id))
        return 0
    return run_bot()


def run_bot() -> int:
    """Start the Discord bot; exit code 2 with instructions when no token is set."""
    from bot.settings import load_settings

    try:
        settings = load_settings()
    except ValidationError as exc:
        err = exc.errors()[0]
        print(f"Invalid setting {'.'.join(str(p) for p in err['loc']).upper()}: {err['msg']}. See .env.example.",
              file=sys.stderr)
        return 2
    if settings.discord_token is None:
        print(NO_TOKEN.format(games=", ".join(sorted(GAMES))), file=sys.stderr)
        return 2
    logging.basicConfig(level=settings.log_level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    from bot.client import SpeakeasyBot
    import discord

    bot = SpeakeasyBot(settings)
    try:
        bot.run(settings.discord_token.get_secret_value(), log_handler=None)
    except discord.LoginFailure:
        print("Discord refused the token (DISCORD_TOKEN). Copy it again from the Developer Portal.", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
