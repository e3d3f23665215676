"""Compatibility with what the previous version (before the architecture change) left on disk.

``tests/data/legacy_v1_states/`` holds engine traces written by that version
(``scripts/make_legacy_states.py``) and ``tests/data/legacy_v1.db`` a whole database with running
tables of every game (``scripts/make_legacy_fixture.py``). Today's code must load every stored
snapshot, accept every stored action code, show the same views (and rebuild each typed view from
its stored JSON) and, for rules version 1, reach the same next state; and a bot started on the old database must resume and finish its tables.
"""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from bot.games import GAMES
from bot.house import House
from bot.migrate import copy_store
from storage.factory import open_store
from tests.recorded_events import as_recorded

DATA = Path(__file__).parent / "data"
TRACES = sorted((DATA / "legacy_v1_states").glob("*.jsonl.gz"))


def _norm(value: Any) -> Any:
    return json.loads(json.dumps(value, sort_keys=True, default=list))


def _dump(game: Any, state: Any) -> Any:
    """Today's dump without the keys that newer rules versions added (absent = version 1)."""
    data = _norm(game.dump_state(state))
    if data.get("rules") == 1:
        del data["rules"]
    return data


def _view(game: Any, state: Any, seat: int | None) -> Any:
    view_json = getattr(game, "view_json", None)
    return _norm(view_json(state, seat) if view_json else game.view(state, seat))


@pytest.mark.parametrize("path", TRACES, ids=[p.name.split(".")[0] for p in TRACES])
def test_old_snapshots_codes_and_views_still_hold(path: Path) -> None:
    lines = [json.loads(line) for line in gzip.open(path, "rt", encoding="utf-8")]
    game = GAMES[lines[0]["key"]].game
    for i, line in enumerate(lines):
        state = game.load_state(line["state"])
        assert _dump(game, state) == line["state"], f"step {i}: snapshot does not round-trip"
        assert sorted(game.to_act(state)) == line["to_act"], f"step {i}"
        for seat, codes in line["legal"].items():
            assert [game.encode(a) for a in game.legal_actions(state, int(seat))] == codes, f"step {i}"
        for seat, view in line["views"].items():
            who = None if seat == "None" else int(seat)
            assert _view(game, state, who) == view, f"step {i}: view of {seat} changed"
            # the stored view JSON rebuilds the typed view (the picture workers' input)
            assert game.view_from_json(view) == game.view(state, who), f"step {i}: view of {seat} does not rebuild"
            assert game.view_from_json(game.view_json(state, who)) == game.view(state, who), f"step {i}: {seat}"
        if line["outcome"] is not None:
            out = game.outcome(state)
            assert {"ranks": list(out.ranks), "scores": list(out.scores)} == line["outcome"]
            continue
        step = game.apply(state, {int(s): game.decode(c) for s, c in line["apply"].items()})
        assert _dump(game, step.state) == lines[i + 1]["state"], f"step {i}: the old log replays differently"
        events = [as_recorded(e) for e in step.events]
        assert _norm(events) == line["events"], f"step {i}: events changed"


class _Clock:
    t = 1_700_100_000.0

    def now(self) -> float:
        return self.t


async def test_a_database_of_the_previous_version_resumes_and_finishes_its_tables(tmp_path: Path, db_url: str) -> None:
    """On SQLite, the old file itself; on PostgreSQL, the old file moved by ``migrate-data``."""
    path = tmp_path / "old.db"
    shutil.copy(DATA / "legacy_v1.db", path)  # never touch tests/data itself
    if db_url.startswith("postgresql"):
        assert await copy_store(str(path), db_url, out=lambda line: None) == 0
        db = await open_store(db_url)
        assert db.path == db_url
    else:
        db = await open_store(path)
    old_ratings = {r.user_id: r for r in await db.leaderboard(1, "gang-of-dice", 1)}
    svc = House(db, clock=_Clock(), turn_timeout=300)
    try:
        running = await svc.tables.resume()
        assert sorted(running) == [1, 2, 3, 4, 5, 6]
        # the old ratings are season 1; the old results' rating history was filled in by replaying
        # them with the same model: it ends on the very ratings the old version stored
        assert [s.season for s in await db.seasons(1, "gang-of-dice")] == [1]
        assert set(old_ratings) >= {160, 161}
        for user_id, rating in old_ratings.items():
            history = await db.rating_history(1, "gang-of-dice", user_id)
            assert history and {p.season for p in history} == {1}
            assert (history[-1].mu, history[-1].sigma) == pytest.approx((rating.mu, rating.sigma))
        moon = await svc.hall.table(5)
        assert moon.pending == {0: "moon"}  # a buffered secret choice survived the upgrade
        for tid in running:
            for _ in range(2000):
                view = await svc.hall.table(tid)
                if view.row.status != "running":
                    break
                seat = next(s for s in view.waiting_for() if not view.seats[s].is_ai)
                code = view.game.encode(view.game.ai_action(view.state, seat))
                await svc.tables.submit(tid, view.seats[seat].user_id, view.version, code)
                await svc.tables.idle()
            assert (await svc.hall.table(tid)).row.status == "finished", f"table {tid} did not finish"
        rows = await db.leaderboard(1, "gang-of-dice", 1)
        assert {r.user_id for r in rows} >= {160, 161}  # the old finished game's ratings are kept
    finally:
        await svc.tables.close()
        await db.close()


def test_moonshine_tables_of_rules_2_keep_the_first_card_set() -> None:
    """Rules 3 to 8 deal new card sets; a rules-2 table keeps the cards it was
    dealt (ids 0..69, Speakeasies 0..4), a rules-3 table the second set (70..139, 5..9), a rules-4
    table the third (140..209, 10..14), a rules-5 table the fourth (210..279, 15..19), a rules-6 table the
    fifth (280..349, 20..24), a rules-7 table the sixth (350..419, 25..29, card set 5), each with the same
    deal from the same seed as the new set (420..489, 30..34)."""
    from engine.moonshine.cards import card_set, client_of, set_index
    from engine.moonshine.phases import deal

    def ids(state):
        return [*state.deck, *(c for s in state.seats for c in s.clients), *(c for s in state.seats for q in s.queue for c in q.cards)]

    assert set_index(7) == 5 and set_index(GAMES["moonshine"].game.rules_version) == 6
    for variant in ("standard", "regular"):
        old, mid, r4, r5, r6, r7, new = (deal(11, 4, variant, 2), deal(11, 4, variant, 3), deal(11, 4, variant, 4),
                                         deal(11, 4, variant, 5), deal(11, 4, variant, 6), deal(11, 4, variant, 7),
                                         GAMES["moonshine"].game.setup(11, 4, {"variant": variant}))
        old_ids, mid_ids, r4_ids, r5_ids, r6_ids, r7_ids, new_ids = (ids(old), ids(mid), ids(r4), ids(r5), ids(r6),
                                                                     ids(r7), ids(new))
        assert all(c < 70 for c in old_ids) and all(70 <= c < 140 for c in mid_ids)
        assert all(140 <= c < 210 for c in r4_ids) and all(210 <= c < 280 for c in r5_ids)
        assert all(280 <= c < 350 for c in r6_ids) and all(350 <= c < 420 for c in r7_ids)
        assert all(420 <= c < 490 for c in new_ids) and r7.rules == 7 and new.rules == 8
        assert ([s.speakeasy for s in old.seats] == [s.speakeasy - 5 for s in mid.seats]
                == [s.speakeasy - 10 for s in r4.seats] == [s.speakeasy - 15 for s in r5.seats]
                == [s.speakeasy - 20 for s in r6.seats] == [s.speakeasy - 25 for s in r7.seats]
                == [s.speakeasy - 30 for s in new.seats])
        assert old.first == mid.first == r4.first == r5.first == r6.first == r7.first == new.first
        assert [c + 70 for c in old_ids] == mid_ids and [c + 140 for c in old_ids] == r4_ids  # same chance, other cards
        assert [c + 210 for c in old_ids] == r5_ids and [c + 280 for c in old_ids] == r6_ids
        assert [c + 350 for c in old_ids] == r7_ids and [c + 420 for c in old_ids] == new_ids
        assert client_of(old_ids[0]) == card_set().clients[old_ids[0]]
