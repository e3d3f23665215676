"""For operators: ``/healthz`` and ``/metrics`` (Prometheus' text format, ``prometheus_client``)
on their own port (``METRICS_PORT``, bound to ``METRICS_HOST``, 127.0.0.1 by default).

:class:`Metrics` holds the process's metrics in its own registry (documented one by one in
``docs/operations.md``): tables live, steps and clicks with their latency, Discord REST errors
and 429s, the AI and picture queues, the web pages served. :meth:`Metrics.instrument` times a
:class:`bot.tables.Tables`' clicks (``submit``) and choices (``choose``, a step when applied) by
wrapping those two methods of that one object; the client counts Discord's answers
(:meth:`Metrics.rest_error`, :meth:`Metrics.rate_limited`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from bot.service import ServiceError

log = logging.getLogger(__name__)

__all__ = ["Metrics", "RateLimitLog", "guarded"]

#: Latency buckets of clicks and steps, in seconds (a click answers in milliseconds).
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)


class Metrics:
    """The process's metrics (``speakeasy_*``), in a registry of their own."""

    def __init__(self) -> None:
        self.registry = r = CollectorRegistry()
        self.tables_live = Gauge("speakeasy_tables_live", "Running tables this process holds", registry=r)
        self.steps = Counter("speakeasy_steps", "Steps applied, by who made them", ["source"], registry=r)
        self.step_seconds = Histogram("speakeasy_step_seconds", "Time to apply and store a step",
                                      buckets=BUCKETS, registry=r)
        self.clicks = Counter("speakeasy_clicks", "Members' action clicks, by what they did", ["result"], registry=r)
        self.click_seconds = Histogram("speakeasy_click_seconds", "Time to handle an action click",
                                       buckets=BUCKETS, registry=r)
        self.rest_errors = Counter("speakeasy_discord_rest_errors", "Discord REST calls that failed, by status",
                                   ["status"], registry=r)
        self.rate_limits = Counter("speakeasy_discord_rate_limited", "Discord REST answers 429 (rate limited)",
                                   registry=r)
        self.ai_queue = Gauge("speakeasy_ai_queue_depth", "Strong AI moves queued or being thought", registry=r)
        self.picture_queue = Gauge("speakeasy_picture_queue_depth", "Pictures being drawn or waiting", registry=r)
        self.web_requests = Counter("speakeasy_web_requests", "Web page requests, by page and status",
                                    ["page", "status"], registry=r)

    def watch(self, tables_live: Callable[[], int], ai_queue: Callable[[], int],
              picture_queue: Callable[[], int]) -> None:
        """Read the three gauges from these functions at each scrape."""
        self.tables_live.set_function(tables_live)
        self.ai_queue.set_function(ai_queue)
        self.picture_queue.set_function(picture_queue)

    def web_request(self, page: str, status: int) -> None:
        """Count a page served (the web server's ``observe``)."""
        self.web_requests.labels(page, str(status)).inc()

    def rest_error(self, status: int) -> None:
        """Count a failed Discord REST call (``status``: its HTTP status, 0 without one)."""
        self.rest_errors.labels(str(status)).inc()
        if status == 429:
            self.rate_limits.inc()

    def rate_limited(self) -> None:
        """Count a 429 that discord.py waited out and retried."""
        self.rate_limits.inc()

    def instrument(self, tables: Any) -> None:
        """Time ``tables.submit`` (clicks: applied, buffered or refused) and ``tables.choose``
        (a step when applied, by source) on that object."""
        submit, choose = tables.submit, tables.choose

        @wraps(submit)
        async def timed_submit(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            result = "refused"
            try:
                done = await submit(*args, **kwargs)
                result = done.status
                return done
            finally:
                self.clicks.labels(result).inc()
                self.click_seconds.observe(time.perf_counter() - started)

        @wraps(choose)
        async def timed_choose(live: Any, seat: int, code: str, source: str) -> Any:
            started = time.perf_counter()
            out = await choose(live, seat, code, source)
            if out[0] == "applied":
                self.steps.labels(source).inc()
                self.step_seconds.observe(time.perf_counter() - started)
            return out

        tables.submit, tables.choose = timed_submit, timed_choose

    def text(self) -> bytes:
        """The metrics in Prometheus' text format."""
        return generate_latest(self.registry)


class RateLimitLog(logging.Handler):
    """Counts discord.py's log lines about a 429 it waits out (logger ``discord.http``)."""

    def __init__(self, metrics: Metrics) -> None:
        super().__init__(logging.WARNING)
        self.metrics = metrics

    def emit(self, record: logging.LogRecord) -> None:
        if "rate limit" in str(record.msg).lower():
            self.metrics.rate_limited()


def guarded(metrics: Metrics, fn: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    """``fn`` (an HTTP call) counting its failures by status (``exc.status``, 0 without one);
    a :class:`bot.service.ServiceError` is not a REST failure."""

    @wraps(fn)
    async def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return await fn(*args, **kwargs)
        except ServiceError:
            raise
        except Exception as exc:
            metrics.rest_error(int(getattr(exc, "status", 0) or 0))
            raise

    return call
