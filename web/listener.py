"""An aiohttp application listening on one address, started and stopped with the bot."""

from __future__ import annotations

from aiohttp import web

__all__ = ["Listener"]


class Listener:
    """``app`` served on ``host:port`` (:meth:`start`, :meth:`stop`); ``port`` 0 takes any free
    port, read back into :attr:`port` once started."""

    def __init__(self, app: web.Application, host: str, port: int) -> None:
        self.app, self.host, self.port = app, host, port
        self._runner: web.AppRunner | None = None

    async def start(self) -> None:
        """Listen."""
        self._runner = web.AppRunner(self.app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        server = getattr(site, "_server", None)
        if server is not None and server.sockets:
            self.port = server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Stop listening and finish the requests being answered."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
