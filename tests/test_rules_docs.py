"""The rules pages (``docs/rules/``) against the engine: the index table names every game with
its engine's current rules version and player counts, and each page says the version it
describes."""

from __future__ import annotations

import re
from pathlib import Path

from engine.registry import GAMES

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
        game = GAMES[key]
        assert version == str(game.rules_version), f"{key}: table says {version}, engine {game.rules_version}"
        assert engine == f"`engine/{key.replace('-', '_')}`"
        counts = (f"({game.min_players} players)" if game.min_players == game.max_players
                  else f"({game.min_players}–{game.max_players} players)")
        assert counts in game_cell, (key, game_cell)
        assert page == f"[{key}.md]({key}.md)"


def test_each_page_states_the_rules_version_it_describes():
    for key, game in GAMES.items():
        intro = (RULES / f"{key}.md").read_text(encoding="utf-8")[:800]
        stated = re.search(r"\(rules version (\d+)\)", intro)
        if game.rules_version == 1:
            assert stated is None and "only one rules version" in intro, key
        else:
            assert stated is not None and int(stated.group(1)) == game.rules_version, key
