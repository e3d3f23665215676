"""The web front-end (aiohttp.web), an adapter beside ``cogs/``: the pages (:mod:`web.server`)
and the operators' endpoints (:mod:`web.metrics`), over the Discord-free ``bot.web`` helpers."""
