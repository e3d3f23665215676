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


def test_shop_battle_setup_says_how_many_of_the_default_decks_cards_are_set_aside_as_the_engine_deals_them():
    """Setup, 2.: the leftovers are set aside, out of the game (S3); the page's counts for the
    default deck are those of the engine's deal, and every pile is even."""
    from engine.shop_battle import ShopBattle
    from engine.shop_battle.deck import default_deck

    text = (RULES / "shop-battle.md").read_text(encoding="utf-8")
    setup = " ".join(text.split("## Setup", 1)[1].split("## ", 1)[0].split())
    cards = len(default_deck().cards)
    assert f"default deck of {cards} cards" in setup and "set aside face down, out of the game" in setup
    game = ShopBattle()
    stated = re.search(r"that is (.*?)\.", setup)  # "1 card at 2 players, 2 at 3, ..."
    assert stated is not None
    pairs = [(int(n), int(p)) for n, p in re.findall(r"(\d+)(?: cards?)? at (\d)", stated.group(1))]
    assert pairs == [(cards % p, p) for p in range(game.min_players, game.max_players + 1)], stated.group(1)
    for players in range(game.min_players, game.max_players + 1):
        for seed in range(5):  # the engine: even piles, the leftovers out of the game
            state = game.setup(seed, players)
            assert len(state.aside) == cards % players
            assert {len(p) + len(state.plays[s]) for s, p in enumerate(state.piles)} == {cards // players}
