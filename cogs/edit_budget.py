"""A channel's board edit budget and Discord's 429s on channel routes.

:class:`EditBudget` keeps each channel (a table's thread, or the channel of tables without one)
to at most ``BOARD_EDITS_PER_5S`` board edits or posts in any 5 seconds, spread out, one edit of
a channel at a time, in the order asked. :class:`RateLimitWatch` turns discord.py's warning of a
429 on a channel route into one warning per route and channel and a pause of that channel's
edits (:mod:`cogs.boards` installs it and pauses every board poster's budget).

Pure bookkeeping on the bot's clock: no Discord import.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable

__all__ = ["EditBudget", "RateLimitWatch"]

log = logging.getLogger(__name__)


class EditBudget:
    """At most ``limit`` board edits of one channel in any ``window`` seconds (``limit`` 0: no
    limit), spread out (two edits at least ``window / limit`` seconds apart, so that the steps
    between two edits stay few enough for the board's recent events), and none while the
    channel is paused after a 429. Times are UNIX seconds of the
    bot's clock (:class:`bot.timers.Clock`: the simulated one in tests). Channels without a
    recent edit are forgotten (a few floats per busy channel).

    The edits of one channel are sent one after another (:meth:`turn`): an edit is counted
    when it is sent, after its picture is drawn, so two tables of one channel checking the
    budget meanwhile would both find it free."""

    #: Seconds between two looks at a channel whose turn is another table's (:meth:`turn`).
    TURN_POLL_S = 0.05
    #: Seconds added to the window when ``limit`` edits are in it: an edit is counted a moment
    #: before its request leaves (its message is built in between), so edits spread exactly
    #: ``window / limit`` apart would put ``limit + 1`` requests in a window by a millisecond.
    SLACK_S = 0.05

    def __init__(self, limit: int, window: float = 5.0) -> None:
        self.limit = limit
        self.window = window
        self._sent: dict[int, deque[float]] = {}
        self._paused: dict[int, float] = {}
        #: channel -> the edits waiting for their turn, in the order they asked; the first one
        #: is being drawn or sent, or waits for the budget
        self._queues: dict[int, deque[object]] = {}

    @contextlib.asynccontextmanager
    async def turn(self, channel: int, now: Callable[[], float]) -> AsyncIterator[None]:
        """``async with budget.turn(channel, clock):`` around one edit (or post) of ``channel``:
        waits for the edits of that channel asked before it (in the order asked, so that a
        table whose board is always dirty again does not keep the channel; looking again every
        :attr:`TURN_POLL_S`) and until :meth:`delay` allows one (``now``: the bot's clock); the
        edit counts itself (:meth:`spend`) when sent."""
        ticket = object()
        queue = self._queues.setdefault(channel, deque())
        queue.append(ticket)
        try:
            while True:
                if queue[0] is not ticket:
                    await asyncio.sleep(self.TURN_POLL_S)
                elif (wait := self.delay(channel, now())) > 0:
                    await asyncio.sleep(wait)
                else:
                    break
            yield
        finally:
            queue.remove(ticket)
            if not queue and self._queues.get(channel) is queue:
                del self._queues[channel]

    def delay(self, channel: int, now: float) -> float:
        """Seconds before the next edit of ``channel`` may be sent (0.0: now)."""
        wait = 0.0
        sent = self._sent.get(channel)
        if sent is not None:
            while sent and sent[0] <= now - self.window:
                sent.popleft()
            if not sent:
                del self._sent[channel]
            elif self.limit:  # spread out: one edit every window / limit seconds at most
                wait = sent[-1] + self.window / self.limit - now
                if len(sent) >= self.limit:
                    wait = max(wait, sent[-self.limit] + self.window + self.SLACK_S - now)
        until = self._paused.get(channel)
        if until is not None:
            if until <= now:
                del self._paused[channel]
            else:
                wait = max(wait, until - now)
        return max(0.0, wait)

    def spend(self, channel: int, now: float) -> None:
        """Count an edit of ``channel`` sent at ``now``."""
        if not self.limit:
            return
        sent = self._sent.setdefault(channel, deque())
        sent.append(now)
        while len(sent) > self.limit:
            sent.popleft()

    def back_off(self, channel: int, seconds: float, now: float) -> None:
        """Send no edit of ``channel`` for ``seconds`` (Discord answered 429)."""
        self._paused[channel] = max(self._paused.get(channel, 0.0), now + max(0.0, seconds))


#: A channel route in discord.py's rate-limit warning: ``/channels/<id>/...``.
_CHANNEL_ROUTE = re.compile(r"/channels/(\d+)(/[^?]*)?")


class RateLimitWatch(logging.Filter):
    """A filter on discord.py's ``discord.http`` logger: its warning "We are being rate
    limited. <method> <url> responded with 429. Retrying in <s> seconds." (one per 429, and
    discord.py waits and retries) becomes one warning of ours per route and channel, naming the
    bucket (discord.py's route key: the method and the route's template), and
    ``on_limit(channel, seconds)`` for every 429 of a channel route. Other records pass
    unchanged. The routes and channels already told are the latest :attr:`TOLD` (older ones
    may be told again)."""

    #: Routes and channels remembered as told.
    TOLD = 4096

    def __init__(self, on_limit: Callable[[int, float], None]) -> None:
        super().__init__("discord.http")
        self.on_limit = on_limit
        self._told: OrderedDict[tuple[str, int], None] = OrderedDict()

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith("We are being rate limited.") or not isinstance(record.args, tuple):
            return True
        try:
            method, url, seconds = str(record.args[0]), str(record.args[1]), float(str(record.args[2]))
        except (IndexError, TypeError, ValueError):
            return True
        match = _CHANNEL_ROUTE.search(url)
        if match is None:
            return True  # not a channel route: discord.py's own line stays
        channel = int(match[1])
        self.on_limit(channel, seconds)
        bucket = f"{method} /channels/{{channel}}" + re.sub(r"/\d+", "/{id}", match[2] or "")
        if (bucket, channel) in self._told:
            self._told.move_to_end((bucket, channel))
        else:
            self._told[(bucket, channel)] = None
            if len(self._told) > self.TOLD:
                self._told.popitem(last=False)
            log.warning("Discord rate limit (429) on bucket %s, channel %s: its board edits pause %.2f s "
                        "(told once per bucket and channel)", bucket, channel, seconds)
        return False
