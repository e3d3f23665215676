"""Harness exceptions and the collector that turns bot errors into test failures.

Two sources feed the collector:

* every logging record at ERROR or above from the ``discord`` and ``asyncio``
  loggers (and their children): discord.py logs "Ignoring exception in view ...",
  "Ignoring exception in command tree", "Ignoring exception in on_..." there,
  and asyncio logs unretrieved task exceptions there;
* every exception the simulator (simcord) saw escape bot-owned work: a bot task
  that died, a View/Modal/DynamicItem callback that raised (even when the bot's own
  ``on_error`` swallowed it), an app-command error. ``app_commands.CheckFailure``
  (and ``commands.CheckFailure``) are exempt: a refused check is control flow,
  and an *unhandled* one is still logged by discord.py and so still fails.

Plus the harness's own finding: an interaction the bot never acknowledged
(a real user would see "This interaction failed") is an :class:`UnansweredInteraction`.

The same exception seen through both sources is reported once.
"""

from __future__ import annotations

import logging
import re
import traceback
from dataclasses import dataclass, field
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands


class HarnessError(Exception):
    """Base class of every error the harness raises itself."""


class ImpossibleAction(HarnessError):
    """The test asked a member to do something a real user could not do.

    Examples: clicking a button that does not exist or is disabled, clicking an
    ephemeral message addressed to someone else, a choice value not offered,
    a missing required option. The message says why (it comes from the simulator).
    """


class CommandNotVisible(ImpossibleAction):
    """The member cannot see this slash command here (Discord would hide it).

    Typical cause: ``@app_commands.default_permissions(...)`` and a member who
    lacks those permissions. Use ``world.allow_command(name, member)`` to seed the
    per-user override a guild admin could set, to exercise the bot's own checks.
    """


class SettleTimeout(HarnessError):
    """The bot still had runnable work after the settle timeout (a hang or a slow loop)."""


class UnansweredInteraction(HarnessError):
    """An interaction was dispatched and the bot never acknowledged it."""


class BotErrorsReported(AssertionError):
    """Raised at the end of a ``DiscordWorld`` block when the bot produced errors."""


@dataclass
class BotError:
    """One error the bot produced.

    ``source`` is "log" (a logging record), "simulator" (an exception simcord saw
    escape bot work) or "harness" (e.g. an unanswered interaction). ``exc`` is the
    exception when known; ``message`` the human-readable line (log message, or repr).
    """

    source: str
    message: str
    exc: BaseException | None = None
    logger: str | None = None

    def matches(self, kinds: tuple[type[BaseException], ...], pattern: re.Pattern[str] | None) -> bool:
        """True when the exception (or anything in its cause/original chain) is one of ``kinds``
        (empty = any) and ``pattern`` (if given) is found in the message or any chained exception text."""
        chain = list(_exception_chain(self.exc))
        if kinds and not any(isinstance(e, kinds) for e in chain):
            return False
        if pattern is not None:
            texts = [self.message, *(f"{type(e).__name__}: {e}" for e in chain)]
            if not any(pattern.search(t) for t in texts):
                return False
        return True

    def format(self) -> str:
        head = f"[{self.source}{'/' + self.logger if self.logger else ''}] {self.message}"
        if self.exc is not None:
            tb = "".join(traceback.format_exception(type(self.exc), self.exc, self.exc.__traceback__))
            return f"{head}\n{tb}"
        return head


def _exception_chain(exc: BaseException | None):
    seen: set[int] = set()
    stack = [exc] if exc is not None else []
    while stack:
        e = stack.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        stack.extend([getattr(e, "original", None), e.__cause__, e.__context__])
        if isinstance(e, BaseExceptionGroup):
            stack.extend(e.exceptions)


_EXEMPT = (app_commands.CheckFailure, commands.CheckFailure)


class _LogCapture(logging.Handler):
    def __init__(self, sink: ErrorCollector) -> None:
        super().__init__(level=logging.ERROR)
        self.sink = sink

    def emit(self, record: logging.LogRecord) -> None:  # noqa: D401 - logging API
        exc = record.exc_info[1] if record.exc_info else None
        try:
            message = record.getMessage()
        except Exception:  # pragma: no cover - malformed log call
            message = str(record.msg)
        self.sink.add(BotError("log", message, exc, record.name))


LOGGERS = ("discord", "asyncio", "bot", "cogs", "storage")


@dataclass
class ErrorCollector:
    """Collects :class:`BotError` records; the world fails the test if any remain unconsumed."""

    pending: list[BotError] = field(default_factory=list)
    _seen_exc: dict[int, BaseException] = field(default_factory=dict)  # keeps ids stable
    _handler: _LogCapture | None = None

    def install(self) -> None:
        self._handler = _LogCapture(self)
        for name in LOGGERS:
            logging.getLogger(name).addHandler(self._handler)

    def uninstall(self) -> None:
        if self._handler is not None:
            for name in LOGGERS:
                logging.getLogger(name).removeHandler(self._handler)
            self._handler = None

    def add(self, error: BotError) -> None:
        if error.exc is not None:
            if id(error.exc) in self._seen_exc:
                return
            self._seen_exc[id(error.exc)] = error.exc
        self.pending.append(error)

    def add_simulator(self, exc: BaseException) -> None:
        if isinstance(exc, _EXEMPT) or any(isinstance(e, _EXEMPT) for e in _exception_chain(exc)):
            return
        if isinstance(exc, discord.app_commands.CommandNotFound):
            return
        self.add(BotError("simulator", f"{type(exc).__name__}: {exc}", exc))

    def take(self, kinds: tuple[type[BaseException], ...], pattern: re.Pattern[str] | None) -> list[BotError]:
        """Remove and return the pending errors that match."""
        hit = [e for e in self.pending if e.matches(kinds, pattern)]
        self.pending = [e for e in self.pending if e not in hit]
        return hit


class ExpectedErrors:
    """Context manager returned by ``world.expect_errors(...)``.

    On exit, errors collected since entry that match are consumed (so they do not
    fail the test) and stored in :attr:`errors`. If none matched, AssertionError.
    """

    def __init__(
        self,
        world: Any,
        kinds: tuple[type[BaseException], ...],
        match: str | None,
    ) -> None:
        self._world = world
        self._kinds = kinds
        self._pattern = re.compile(match) if match else None
        self.errors: list[BotError] = []
        self._start = 0

    def __enter__(self) -> ExpectedErrors:
        self._world._harvest_errors()
        self._start = len(self._world._errors.pending)
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self._world._harvest_errors()
        collector: ErrorCollector = self._world._errors
        fresh = collector.pending[self._start :]
        hit = [e for e in fresh if e.matches(self._kinds, self._pattern)]
        collector.pending = [e for e in collector.pending if e not in hit]
        self.errors = hit
        if exc_type is None and not hit:
            names = ", ".join(k.__name__ for k in self._kinds) or "any error"
            extra = f" matching {self._pattern.pattern!r}" if self._pattern else ""
            raise AssertionError(f"expected the bot to produce {names}{extra}, but it did not")
