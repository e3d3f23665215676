"""The rules pages (``docs/rules/``) against the engine: the index table names every game with
its engine's current rules version and player counts, and each page says the version it
describes."""

from __future__ import annotations

import re
from pathlib import Path

from bot.games import GAMES

RULES = Path(__file__).resolve().parents[1] / "docs" / "rules"


def _table() -> dict[str, list[str]]:
    """The index table's rows by registry key: the cells of each row."""
    rows = {}
    for line in (RULES / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[2].startswith("`") and cells[2] != "`registry key`":
            rows[cells[2].strip("`")] = cells
    return rows


def test_the_index_table_gives_every_game_its_engine_rules_version():
    rows = _table()
    assert sorted(rows) == sorted(GAMES)
    for key, (page, game_cell, _key, engine, version) in rows.items():
        game = GAMES[key].game
        assert version == str(game.rules_version), f"{key}: table says {version}, engine {game.rules_version}"
        assert engine == f"`engine/{key.replace('-', '_')}`"
        counts = (f"({game.min_players} players)" if game.min_players == game.max_players
                  else f"({game.min_players}–{game.max_players} players)")
        assert counts in game_cell, (key, game_cell)
        assert page == f"[{key}.md]({key}.md)"


def test_each_page_states_the_rules_version_it_describes():
    for key, game in ((k, spec.game) for k, spec in GAMES.items()):
        intro = (RULES / f"{key}.md").read_text(encoding="utf-8")[:800]
        stated = re.search(r"\(rules version (\d+)\)", intro)
        if game.rules_version == 1:
            assert stated is None and "only one rules version" in intro, key
        else:
            assert stated is not None and int(stated.group(1)) == game.rules_version, key


def test_shop_battle_setup_says_who_gets_the_default_decks_leftovers_as_the_engine_deals_them():
    """Setup, 2.: at 5 and 6 players the leftovers go to the last choosers of the first lap; the
    page's figures for the default deck are those of the engine's deal."""
    from engine.shop_battle import LATE_CHOOSERS_FROM, ShopBattle, late_choosers, shuffled_deal
    from engine.shop_battle.deck import default_deck

    text = (RULES / "shop-battle.md").read_text(encoding="utf-8")
    setup = " ".join(text.split("## Setup", 1)[1].split("## ", 1)[0].split())
    cards = len(default_deck().cards)
    assert f"default deck of {cards} cards" in setup
    words = {1: "the last chooser", 2: "the last two choosers", 3: "the last three choosers",
             4: "the last four choosers"}
    for players in range(LATE_CHOOSERS_FROM, ShopBattle.max_players + 1):
        left = cards % players
        whom = "everybody but the first chooser" if left == players - 1 else words[left]
        assert f"{left} cards at {players} players, for {whom}" in setup, (players, setup)
        for seed in range(5):  # the engine: exactly those seats hold one card more
            piles, pot, chooser = shuffled_deal(seed, cards, players, ShopBattle.rules_version)
            longer = {s for s, pile in enumerate(piles) if len(pile) > cards // players}
            assert not pot and longer == set(late_choosers(chooser, players, left))
