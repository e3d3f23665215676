"""A fifth game, test-only: High Card (``high-card``), built by following ``docs/ARCHITECTURE.md``,
"How to add a game", step by step, to prove that the page is complete.

Same shape as a real game, in one directory instead of one place per layer:

- ``high_card/``: the engine package (``engine/<module>/`` for a real game);
- ``presenter.py``: the presenter (``bot/presenters/<module>.py``);
- ``i18n/en/high_card.json``, ``i18n/fr/high_card.json``: the catalogs (``bot/i18n/<lang>/``);
- ``cog.py``: the :class:`cogs.base.GameCog` subclass (``cogs/<module>.py``);
- ``rules.md``: the rules page (``docs/rules/<key>.md``);
- ``install.py``: what the registry entries do for a real game (``engine/registry.py``,
  ``bot/presenters/__init__.py``; catalogs and the cog module are found by their paths).

No product code knows this game: :func:`tests.fifth_game.install.install` registers it for one
test with pytest's ``monkeypatch`` and everything is undone when the test ends.
"""
