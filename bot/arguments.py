"""Command-line arguments that ``play``, ``simulate`` and ``render`` share (``bot/__main__.py``,
``bot/render/cli.py``): the seat count and the table options, checked against the game and
refused in the same words whichever command reads them (:class:`BadArgument`: one line), and
the check of a folder they write to (:func:`folder_problem`).
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
import types
from pathlib import Path
from typing import Literal, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

from bot.games import GAMES


def named(game: str) -> str:
    """A game as the command line names it: its English title and the key typed, "Gang of Dice
    (gang-of-dice)"."""
    from bot.compose import game_title
    from bot.i18n import Translator

    return f"{game_title(game, Translator('en'))} ({game})"


class BadArgument(SystemExit):
    """A command-line argument the game refuses; ``str()`` is the one line that says why (an
    uncaught one exits with that line and status 1, as ``SystemExit("...")`` does)."""


def player_count(game: str, wanted: int | None) -> int:
    """``--players`` (``None``: 3, or the game's only count, or the nearest it allows).
    Raises :class:`BadArgument` when the game is not played by that many."""
    g = GAMES[game].game
    n = wanted if wanted is not None else min(max(g.min_players, 3), g.max_players)
    if not g.min_players <= n <= g.max_players:
        if g.min_players == g.max_players:
            raise BadArgument(f"{named(game)} is played by exactly {g.min_players} players (got --players {n}).")
        raise BadArgument(f"{named(game)} is played by {g.min_players} to {g.max_players} players (got --players {n}).")
    return n


def json_or_text(value: str) -> object:
    """An ``--option`` value: JSON when it parses (``30``, ``null``), else the text."""
    try:
        return json.loads(value)
    except json.JSONDecodeError:
        return value


def option_values(model: type[BaseModel], name: str) -> str | None:
    """The values option ``name`` of ``model`` takes, in words ("from 10 to 200, or none",
    "standard or regular"), read from its type and bounds; ``None`` when they cannot be said
    shortly."""
    field = model.model_fields[name]
    annotation = field.annotation
    optional = False
    if get_origin(annotation) in (Union, types.UnionType):
        parts = [a for a in get_args(annotation) if a is not type(None)]
        optional = len(parts) < len(get_args(annotation))
        if len(parts) != 1:
            return None
        annotation = parts[0]
    if get_origin(annotation) is Literal:
        values = " or ".join(str(v) for v in get_args(annotation))
    elif annotation is bool:
        values = "true or false"
    elif annotation is int:
        low = next((m.ge for m in field.metadata if getattr(m, "ge", None) is not None), None)
        high = next((m.le for m in field.metadata if getattr(m, "le", None) is not None), None)
        if low is None or high is None:
            return None
        values = f"a whole number from {low} to {high}"
    else:
        return None
    return values + (", or none" if optional else "")


def table_options(game: str, pairs: list[str], deck: str | None = None) -> dict[str, object]:
    """Table options from ``--option KEY=VALUE`` (values read as JSON when they parse) and
    ``--deck FILE`` (a Shop Battle deck file), validated by the game. Raises
    :class:`BadArgument` on an unknown option, an option given twice with two values, a value
    the option does not take (saying which it takes) or a refused deck."""
    g = GAMES[game].game
    fields = sorted(name for name in g.options_model.model_fields if name not in ("deck", "deck_data"))
    out: dict[str, object] = {}
    typed: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise BadArgument(f"--option takes KEY=VALUE, got {pair!r}")
        if key not in fields:
            if not fields:
                raise BadArgument(f"{named(game)} takes no options (--option {key} was given).")
            raise BadArgument(f"{named(game)} has no option {key!r}. Options: {', '.join(fields)}.")
        if key in typed and typed[key] != value:
            raise BadArgument(f"--option {key} is given twice ({typed[key]}, {value}): give it once")
        out[key] = json_or_text(value)
        typed[key] = value
    if deck is not None:
        if "deck_data" not in g.options_model.model_fields:
            raise BadArgument(f"{named(game)} does not use decks.")
        from engine.shop_battle import DeckError, parse_deck

        try:
            with open(deck, "rb") as file:
                parsed = parse_deck(file.read())
        except OSError as exc:
            raise BadArgument(f"cannot read {deck}: {exc.strerror}") from None
        except DeckError as exc:
            raise BadArgument("this deck is refused:\n" + "\n".join(f"  {i}" for i in exc.issues)) from None
        out.update(deck="file", deck_data=parsed.model_dump(mode="json"))
    try:
        g.parse_options(out)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = err["loc"]
        where = ".".join(str(p) for p in loc) or "option"
        allowed = option_values(g.options_model, str(loc[0])) if len(loc) == 1 and loc[0] in typed else None
        if allowed is None:
            raise BadArgument(f"bad --option {where}: {err['msg']}") from None
        raise BadArgument(f"bad --option {where}={typed[str(loc[0])]}: {where} takes {allowed}.") from None
    return out


def os_reason(err: OSError) -> str:
    """The system's words for ``err``, without the path it names ("No space left on device")."""
    return err.strerror or str(err)


def folder_problem(folder: Path) -> str | None:
    """Why files cannot be written into ``folder`` (``play --images DIR``, ``render --out DIR``,
    the folder of ``play --db FILE``), in the system's words, or ``None`` when they can: the folder is created when missing, then a probe
    file is written in it and removed. Never raises."""
    if folder.exists() and not folder.is_dir():
        return os.strerror(errno.ENOTDIR)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".speakeasy-probe-", suffix=".png", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as err:
        return os_reason(err)
    return None


__all__ = ["BadArgument", "folder_problem", "json_or_text", "option_values", "os_reason", "player_count",
           "table_options"]
