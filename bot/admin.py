"""Discord-free texts of the real-server features: the finished table's game log, the
lines of ``/table list``, the autocomplete labels of ``/table abandon``, and ``/help``.

Everything here reads a :class:`bot.table.TableSnapshot` and public events only (``audience is
None``): nothing hidden (a hand, a secret choice, the seed) can reach these texts.
"""

from __future__ import annotations

from collections.abc import Iterable

from bot import compose
from bot.i18n import Translator
from bot.table import TableSnapshot
from bot.ui import Block, Field
from engine.core import Event, Outcome

__all__ = ["game_log", "game_log_filename", "help_block", "table_choice_label", "table_line"]


def game_log_filename(table_id: int) -> str:
    """The file name of a table's game log: ``speakeasy-table-<id>.txt``."""
    return f"speakeasy-table-{table_id}.txt"


def game_log(table: TableSnapshot, events: Iterable[Event], outcome: Outcome | None, t: Translator) -> str:
    """The public log of a finished table as plain text, in ``t``'s language: a header (game,
    table, players in seat order), every public event in order, then the final ranks and scores.

    Only events with ``audience is None`` are written (private events are dropped), so the file
    holds nothing a spectator could not have read on the board as the game went."""
    title = compose.game_title(table.row.game, t)
    ctx = compose.context(table, t, None)
    lines = [t("log.header", game=title, id=table.id), ""]
    lines.append(t("log.players"))
    lines += [f"  {i + 1}. {ctx.name(i)}" for i in range(len(table.seats))]
    lines += ["", t("log.events")]
    public = [e for e in events if e.audience is None]
    lines += [f"  {n}. {line}" for n, line in enumerate(compose.public_log(public, table, t), start=1)]
    if outcome is not None:
        lines += ["", t("log.results")]
        order = sorted(range(len(outcome.ranks)), key=lambda s: (outcome.ranks[s], s))
        lines += [t("log.result_line", rank=outcome.ranks[s], name=ctx.name(s), score=outcome.scores[s]) for s in order]
    return "\n".join(lines) + "\n"


def _seats(table: TableSnapshot) -> str:
    return ", ".join(f"🤖 {compose.escape_name(s.name)}" if s.is_ai else f"<@{s.user_id}>" for s in table.seats) or "—"


def table_line(table: TableSnapshot, t: Translator, link: str | None) -> str:
    """One line of ``/table list``: id, game, status (with a link to the lobby or the table),
    seats, and the age as a Discord relative timestamp (``<t:…:R>``, shown in each reader's
    language by Discord itself)."""
    status = t("admin.status.lobby" if table.row.status == "lobby" else "admin.status.running")
    where = f"[{status}]({link})" if link else status
    return t("admin.line", id=table.id, game=compose.game_title(table.row.game, t), status=where,
             seats=_seats(table), age=f"<t:{int(table.row.created_at)}:R>")


def table_choice_label(table: TableSnapshot, t: Translator) -> str:
    """The autocomplete label of a table (at most 100 characters): id, game, status, host."""
    host = next((s.name for s in table.seats if s.user_id == table.row.host_user_id), "?")
    status = t("admin.status.lobby" if table.row.status == "lobby" else "admin.status.running")
    return f"#{table.id} {compose.game_title(table.row.game, t)} · {status} · {host}"[:100]


#: The commands ``/help`` lists, in order: ``(command, subcommand or None)``; each is shown
#: only when the deployment registers it (``/deck`` comes with Shop Battle's cog).
HELP_COMMANDS: tuple[tuple[str, str | None], ...] = (
    ("play", None), ("rules", None), ("leaderboard", None), ("stats", None), ("table", "list"),
    ("table", "mine"), ("table", "abandon"), ("deck", None), ("settings", None), ("season", "start"), ("help", None))


def help_block(t: Translator, games: list[str], commands: set[str]) -> Block:
    """``/help``: what Speakeasy does, the games offered here (``games``: registry keys of the
    games the server offers), how to start a table, the commands registered (``commands``:
    their canonical root names), with their names in ``t``'s language, and what each pace does
    (:mod:`bot.paces`)."""
    game_lines = "\n".join(f"• **{compose.game_title(g, t)}**" for g in games) or "—"
    lines = []
    for cmd, sub in HELP_COMMANDS:
        if cmd not in commands:
            continue
        name = t(f"cmd.{cmd}.name") + (" " + t(f"cmd.{cmd}.{sub}.name") if sub else "")
        lines.append(f"`/{name}` — {t(f'help.cmd.{cmd}' + (f'.{sub}' if sub else ''))}")
    fields = (
        Field(t("help.games"), game_lines[:1024]),
        Field(t("help.start"), t("help.start_text", play=t("cmd.play.name"))),
        Field(t("help.commands"), "\n".join(lines)[:1024] or "—"),
        Field(t("help.paces"), t("help.paces_text")[:1024]),
    )
    return Block(title=t("help.title"), description=t("help.intro"), fields=fields, color=0x5865F2)
