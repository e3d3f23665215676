"""``/healthz`` and ``/metrics`` for operators, on ``METRICS_PORT`` (the counters themselves:
:mod:`bot.web.metrics`)."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable

from aiohttp import web
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from bot.web.metrics import Metrics
from web.listener import Listener

__all__ = ["MetricsServer"]

log = logging.getLogger(__name__)


class MetricsServer(Listener):
    """``/healthz`` and ``/metrics`` on ``host:port``. ``health()`` returns the named checks
    (``{"store": True, "shards": False}``): 200 when all pass, else 503; a check that raises or
    takes more than ``timeout`` seconds fails."""

    def __init__(self, metrics: Metrics, health: Callable[[], Awaitable[dict[str, bool]]], host: str = "127.0.0.1",
                 port: int = 0, timeout: float = 3.0) -> None:
        self.metrics, self.health, self.timeout = metrics, health, timeout
        super().__init__(web.Application(), host, port)
        self.app.router.add_get("/healthz", self._healthz)
        self.app.router.add_get("/metrics", self._metrics)

    async def _healthz(self, request: web.Request) -> web.Response:
        try:
            checks = await asyncio.wait_for(self.health(), self.timeout)
        except Exception:
            log.warning("the health check failed", exc_info=True)
            checks = {"checks": False}
        ok = all(checks.values())
        return web.Response(text=json.dumps({"ok": ok, **checks}), status=200 if ok else 503,
                            content_type="application/json")

    async def _metrics(self, request: web.Request) -> web.Response:
        return web.Response(body=self.metrics.text(), headers={"Content-Type": CONTENT_TYPE_LATEST})
