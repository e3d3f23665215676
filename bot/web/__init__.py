"""The web pages and the operators' endpoints, served by the bot process (``aiohttp.web``).

- :mod:`bot.web.links`: the addresses the bot posts in Discord, signed when a server's pages
  are not public (no aiohttp: the cogs import it).
- :mod:`bot.web.access`: what the pages read of a server's settings, seasons and rating
  history (a thin adapter over the store).
- :mod:`bot.web.replay`: a finished table's public steps (views and public events), replayed
  under the table's recorded rules version, and their board pictures, cached.
- :mod:`web.server`: the pages (leaderboards, profiles, finished games with a replay),
  Jinja2 templates with autoescaping, the headers, the rate limit and the plain error pages.
- :mod:`bot.web.metrics`: ``/healthz`` and ``/metrics`` (Prometheus' text format through
  ``prometheus_client``) on their own port.

Nothing happens at import time; :class:`bot.client.SpeakeasyBot` starts and stops them.
"""
