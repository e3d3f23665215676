"""A fifth game, test-only: High Card (``high-card``), built by following ``docs/ARCHITECTURE.md``,
"How to add a game", step by step, to prove that the page is complete.

Same shape as a real game, in one directory instead of one place per layer:

- ``high_card/``: the engine package (``engine/<module>/`` for a real game);
- ``presenter.py``: the presenter (``bot/presenters/<module>.py``);
- ``i18n/en/high_card.json``, ``i18n/fr/high_card.json``: the catalogs (``bot/i18n/<lang>/``);
- ``spec.py``: its :class:`bot.games.GameSpec` (a real game's is in ``bot/games.py``);
- ``rules.md``: the rules page (``docs/rules/<key>.md``).

No product code knows this game: a test registers it in one line, ``with register(HIGH_CARD):``
(:func:`bot.games.register`), and it is gone again when the block ends.
"""
