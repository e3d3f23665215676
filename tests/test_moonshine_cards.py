"""The Moonshine card set (RULINGS M1): loaded and validated as data, and worth playing."""

from __future__ import annotations

import json
from collections import Counter

import pytest
from pydantic import ValidationError

from engine.moonshine.cards import COLOURS, DATA_PATH, CardSet, card_set, load_card_set, set_problems


def test_the_shipped_set_loads_and_passes_every_check():
    cards = load_card_set()
    assert len(cards.clients) == 70 and len(cards.speakeasies) == 5
    assert Counter(c.colour for c in cards.clients) == {c: 14 for c in COLOURS}
    assert Counter(c.colour for c in cards.clients if c.starting) == {c: 2 for c in COLOURS}
    assert set_problems(cards) == []


def test_every_card_has_both_names():
    for c in (*card_set().clients, *card_set().speakeasies):
        assert c.name.en.strip() and c.name.fr.strip()


def test_each_colour_spans_cheap_bonus_cards_to_expensive_point_cards():
    for colour in COLOURS:
        mine = [c for c in card_set().clients if c.colour == colour]
        assert min(c.points for c in mine) == 0 and max(c.points for c in mine) == 5
        zero = [c for c in mine if c.points == 0]
        assert all(c.lower for c in zero), "a 0-point card must give a permanent bonus"


def test_speakeasy_sides_all_differ_and_regular_sides_have_silhouettes():
    sps = card_set().speakeasies
    for side in ("standard", "regular"):
        dumps = [getattr(s, side).model_dump_json() for s in sps]
        assert len(set(dumps)) == 5
    assert all(s.regular.silhouettes and not s.standard.silhouettes for s in sps)
    assert {s.regular.silhouettes[0] for s in sps} == set(COLOURS)


def _raw() -> dict:
    return json.loads(DATA_PATH.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d["clients"][0].update(extra_field=1),  # extra="forbid"
        lambda d: d["clients"][0]["cost"].update(food=9),  # out of range
        lambda d: d["clients"][0]["upper"].update(kind="code"),  # closed set of kinds
        lambda d: d["clients"][0].update(lower=[{"kind": "silhouette", "colour": "green"}]),  # wrong place
        lambda d: d["clients"][0].update(upper={"kind": "instant", "effect": "plus2_moon"}),  # starting card
        lambda d: d["clients"][5].update(colour="blue"),
        lambda d: d["clients"][5].update(cost={}),  # free card
        lambda d: d["clients"].pop(),  # 69 cards
        lambda d: d["speakeasies"][0]["standard"].update(base=[]),  # base icons
        lambda d: d["speakeasies"][0]["standard"]["base"].append({"kind": "silhouette", "colour": "red"}),
    ],
)
def test_bad_data_is_rejected(mutate):
    data = _raw()
    mutate(data)
    with pytest.raises(ValidationError):
        CardSet.model_validate(data)


def test_quality_checks_catch_a_duplicate_and_a_missing_icon():
    data = _raw()
    twin = dict(data["clients"][3])
    for i, c in enumerate(data["clients"]):
        if c["colour"] == twin["colour"] and i != 3 and not c["starting"]:
            data["clients"][i] = {**twin, "id": c["id"], "name": c["name"]}
            break
    problems = set_problems(CardSet.model_validate(data))
    assert any("identical" in p for p in problems)
    data = _raw()
    for c in data["clients"]:
        c["lower"] = [i for i in c["lower"] if i["kind"] != "majority"]
    assert any("majority" in p for p in set_problems(CardSet.model_validate(data)))
