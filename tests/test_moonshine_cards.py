"""The Moonshine card set (RULINGS M1): loaded and validated as data, and worth playing."""

from __future__ import annotations

import hashlib
import json
from collections import Counter

import pytest
from pydantic import ValidationError

from engine.moonshine.cards import (
    CHANGE_PATHS,
    COLOURS,
    DATA_PATH,
    SET_RULES,
    CardSet,
    ClientCard,
    SetChanges,
    all_clients,
    apply_changes,
    card_set,
    card_sets,
    client_of,
    dominated_pairs,
    dominates,
    load_card_set,
    load_changes,
    set_index,
    set_problems,
    speakeasy_of,
)


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


# --- the rules-3 set: every colour with its own character, no dominated Client ----------


SET3 = card_sets()[1]
#: What each colour is cheap in: the resource of most of its cost units (red: a bit of everything).
SIGNATURE = {"green": "food", "pink": "music", "purple": "drink", "yellow": "moon"}


def test_the_rules_3_set_loads_and_passes_every_check():
    assert CHANGE_PATHS[0].name == "changes-rules3.json" and set_index(2) == 0 and set_index(3) == 1
    assert Counter(c.colour for c in SET3.clients) == {c: 14 for c in COLOURS}
    assert Counter(c.colour for c in SET3.clients if c.starting) == {c: 2 for c in COLOURS}
    assert set_problems(SET3) == []
    for colour in COLOURS:
        mine = [c for c in SET3.clients if c.colour == colour]
        assert min(c.points for c in mine) == 0 and max(c.points for c in mine) == 5
        assert all(c.lower for c in mine if c.points == 0)


def test_no_client_of_the_rules_3_set_is_dominated_by_another():
    assert dominated_pairs(SET3) == []


def test_the_check_finds_the_dominated_cards_of_the_first_set():
    names = {(card_set().clients[a].name.en, card_set().clients[b].name.en) for a, b in dominated_pairs(card_set())}
    assert ("The Gin Maker", "The Stargazer") in names  # same points and bonuses, cheaper
    gin, star = (next(c for c in card_set().clients if c.name.en == n) for n in ("The Gin Maker", "The Stargazer"))
    assert dominates(gin, star) and not dominates(star, gin)


def test_dominance_compares_cost_points_and_bonuses():
    base = {"id": 0, "name": {"en": "A", "fr": "A"}, "colour": "green", "points": 2, "cost": {"food": 3, "moon": 1},
            "upper": {"kind": "slot", "spaces": 1, "bonus": [{"kind": "resource", "res": "any"}]},
            "lower": [{"kind": "resource", "res": "food_or_music"}]}
    a = ClientCard.model_validate(base)
    worse = {**base, "id": 1, "points": 1, "cost": {"food": 3, "music": 1, "moon": 1},
             "upper": {"kind": "slot", "spaces": 2, "bonus": [{"kind": "resource", "res": "drink"}]},
             "lower": [{"kind": "resource", "res": "music"}]}
    assert dominates(a, ClientCard.model_validate(worse))
    for change in ({"cost": {"food": 2, "moon": 1}}, {"points": 3}, {"lower": [{"kind": "draw"}]},
                   {"upper": {"kind": "instant", "effect": "plus2_moon"}}):
        assert not dominates(a, ClientCard.model_validate({**worse, **change}))


def test_each_colour_of_the_rules_3_set_is_cheap_in_its_own_resource():
    units: dict[str, Counter[str]] = {c: Counter() for c in COLOURS}
    for c in SET3.clients:
        units[c.colour].update({"food": c.cost.food, "music": c.cost.music, "drink": c.cost.drink, "moon": c.cost.moon})
    for colour, res in SIGNATURE.items():
        others = [colour2 for colour2 in COLOURS if colour2 != colour]
        share = units[colour][res] / sum(units[colour].values())
        assert all(share > units[o][res] / sum(units[o].values()) for o in others), colour
    red = units["red"]
    assert max(red.values()) / sum(red.values()) < 0.35  # the Mob pays a bit of everything


def test_each_colour_of_the_rules_3_set_rewards_its_own_icons():
    def icons(colour: str) -> Counter[str]:
        out: Counter[str] = Counter()
        for c in SET3.clients:
            if c.colour == colour:
                parts = [*c.lower, *(c.upper.bonus if c.upper.kind == "slot" else ())]
                out.update(i.res if i.kind == "resource" else i.kind for i in parts)
                if c.upper.kind == "instant":
                    out[c.upper.effect] += 1
        return out

    assert icons("pink")["reroll"] + icons("pink")["draw"] >= 7  # the Bandstand: luck and cards
    assert icons("purple")["blue_die"] + icons("purple")["orange_die"] >= 5  # the Bar: dice
    assert icons("yellow")["plus2_moon"] >= 3 and icons("yellow")["discount"] >= 5  # the Moonlight
    assert icons("red")["client"] >= 3 and icons("red")["majority"] >= 3  # the Mob: more Clients, sets
    green = icons("green")
    assert sum(green[r] for r in ("food", "music", "drink", "any", "food_or_music", "food_or_drink",
                                  "music_or_drink")) >= 14  # the Kitchen: resources


def test_ids_of_every_set_share_one_space():
    assert client_of(0) == card_set().clients[0] and client_of(70) == SET3.clients[0]
    assert speakeasy_of(5) == SET3.speakeasies[0] and all_clients()[139] == SET3.clients[69]
    assert client_of(140) == card_sets()[2].clients[0] and speakeasy_of(14) == card_sets()[2].speakeasies[4]
    assert client_of(210) == card_sets()[3].clients[0] and speakeasy_of(19) == card_sets()[3].speakeasies[4]
    assert client_of(280) == card_sets()[4].clients[0] and speakeasy_of(24) == card_sets()[4].speakeasies[4]
    assert client_of(350) == card_sets()[5].clients[0] and speakeasy_of(29) == card_sets()[5].speakeasies[4]
    assert client_of(420) == card_sets()[6].clients[0] and speakeasy_of(34) == card_sets()[6].speakeasies[4]
    with pytest.raises(IndexError):
        client_of(490)
    with pytest.raises(IndexError):
        client_of(-1)


def test_the_rules_4_set_keeps_the_rules_3_clients_and_retunes_only_speakeasy_sides():
    """Rules 4 (docs/rules/moonshine.md "Rules versions"): the same 70 Clients as rules 3
    (so the colours' character and the dominance check carry over), new Standard Speakeasy sides;
    the set still passes every check."""
    set4 = card_sets()[2]
    assert CHANGE_PATHS[1].name == "changes-rules4.json" and set_index(3) == 1 and set_index(4) == 2
    assert set4.clients == SET3.clients and set_problems(set4) == [] and dominated_pairs(set4) == []
    assert [s.name for s in set4.speakeasies] == [s.name for s in SET3.speakeasies]
    assert [s.regular for s in set4.speakeasies] == [s.regular for s in SET3.speakeasies]
    changed = [s.name.en for s, old in zip(set4.speakeasies, SET3.speakeasies, strict=True) if s.standard != old.standard]
    assert changed == ["The Gin Joint", "The Hush Room", "The Moonlit Garage"]


def test_the_rules_5_set_keeps_the_clients_and_retunes_five_speakeasy_sides():
    """Rules 5 (docs/rules/moonshine.md "Rules versions"): the Clients of rules 3 and 4,
    two Standard sides (The Blind Tiger, The Hush Room) and three Regular sides (The Gin Joint,
    The Hush Room, The Moonlit Garage) changed; the set still passes every check."""
    set4, set5 = card_sets()[2], card_sets()[3]
    assert CHANGE_PATHS[2].name == "changes-rules5.json" and set_index(4) == 2 and set_index(5) == 3
    assert set5.clients == set4.clients and set_problems(set5) == [] and dominated_pairs(set5) == []
    assert [s.name for s in set5.speakeasies] == [s.name for s in set4.speakeasies]
    pairs = list(zip(set5.speakeasies, set4.speakeasies, strict=True))
    assert [s.name.en for s, old in pairs if s.standard != old.standard] == ["The Blind Tiger", "The Hush Room"]
    assert [s.name.en for s, old in pairs if s.regular != old.regular] == ["The Gin Joint", "The Hush Room",
                                                                               "The Moonlit Garage"]


def test_the_rules_6_set_retunes_the_moonlit_garage_and_the_copper_still():
    """Rules 6 (docs/rules/moonshine.md "Rules versions"): the rules-5 set with three
    sides changed: the Standard Moonlit Garage's blue-die slot takes two tokens (three in rules 4
    and 5), and on the Regular side The Copper Still and The Moonlit Garage swap the bonus of
    their two-space slot (The Copper Still now draws a card, The Moonlit Garage rerolls); every
    Client and every other side as in rules 5, every check still passes."""
    set5, set6 = card_sets()[3], card_sets()[4]
    assert CHANGE_PATHS[3].name == "changes-rules6.json" and set_index(5) == 3 and set_index(6) == 4
    assert set6.clients == set5.clients and set_problems(set6) == [] and dominated_pairs(set6) == []
    pairs = list(zip(set6.speakeasies, set5.speakeasies, strict=True))
    assert [s.name for s, old in pairs] == [old.name for s, old in pairs]
    assert [s.name.en for s, old in pairs if s.standard != old.standard] == ["The Moonlit Garage"]
    assert [s.name.en for s, old in pairs if s.regular != old.regular] == ["The Copper Still", "The Moonlit Garage"]
    garage, old = pairs[4]
    assert [slot.spaces for slot in garage.standard.slots] == [1, 2, 2]
    assert [slot.spaces for slot in old.standard.slots] == [1, 3, 2]
    assert [slot.bonus for slot in garage.standard.slots] == [slot.bonus for slot in old.standard.slots]
    still, old_still = pairs[2]
    assert still.regular.slots[:2] == old_still.regular.slots[:2] and garage.regular.slots[:2] == old.regular.slots[:2]
    assert still.regular.slots[2] == old.regular.slots[2] and garage.regular.slots[2] == old_still.regular.slots[2]
    assert [b.kind for b in still.regular.slots[2].bonus] == ["draw"]
    assert [b.kind for b in garage.regular.slots[2].bonus] == ["reroll"]


def test_the_rules_7_set_keeps_the_rules_6_set_but_the_regular_copper_still():
    """Rules 7 (docs/rules/moonshine.md "Rules versions"): the rules-6 set with one
    Regular side changed, The Copper Still's orange-die slot at one space (two in rules 5 and 6);
    every other side, every Client and every check as in rules 6."""
    set6, set7 = card_sets()[4], card_sets()[5]
    assert CHANGE_PATHS[4].name == "changes-rules7.json" and set_index(6) == 4 and set_index(7) == 5
    assert set7.clients == set6.clients and set_problems(set7) == [] and dominated_pairs(set7) == []
    pairs = list(zip(set7.speakeasies, set6.speakeasies, strict=True))
    assert [s.name for s, old in pairs] == [old.name for s, old in pairs]
    assert [s.standard for s, old in pairs] == [old.standard for s, old in pairs]
    assert [s.name.en for s, old in pairs if s.regular != old.regular] == ["The Copper Still"]
    still, old = pairs[2]
    assert [slot.spaces for slot in still.regular.slots] == [1, 1, 2]
    assert [slot.spaces for slot in old.regular.slots] == [2, 1, 2]
    assert [slot.bonus for slot in still.regular.slots] == [slot.bonus for slot in old.regular.slots]


def test_the_rules_8_set_keeps_the_rules_7_set_but_the_regular_hush_room():
    """Rules 8 (docs/rules/moonshine.md "Rules versions"): the rules-7 set with one
    Regular side changed, The Hush Room's one-space slot gives Food or Music (Food or Drink in
    rules 3 to 7); every other side, every Client and every check as in rules 7."""
    set7, set8 = card_sets()[5], card_sets()[6]
    assert CHANGE_PATHS[5].name == "changes-rules8.json" and set_index(7) == 5 and set_index(8) == 6
    assert set8.clients == set7.clients and set_problems(set8) == [] and dominated_pairs(set8) == []
    pairs = list(zip(set8.speakeasies, set7.speakeasies, strict=True))
    assert [s.name for s, old in pairs] == [old.name for s, old in pairs]
    assert [s.standard for s, old in pairs] == [old.standard for s, old in pairs]
    assert [s.name.en for s, old in pairs if s.regular != old.regular] == ["The Hush Room"]
    hush, old = pairs[3]
    assert hush.regular.base == old.regular.base
    assert [slot.spaces for slot in hush.regular.slots] == [slot.spaces for slot in old.regular.slots] == [2, 1, 3]
    assert [hush.regular.slots[k] == old.regular.slots[k] for k in range(3)] == [True, False, True]
    assert [b.res for b in hush.regular.slots[1].bonus if b.kind == "resource"] == ["food_or_music"]
    assert [b.res for b in old.regular.slots[1].bonus if b.kind == "resource"] == ["food_or_drink"]


# --- the sets as the base set plus each rules version's changes --------------------------------------

#: SHA-256 of every set as dealt before its changes were stored apart (the canonical JSON of
#: ``CardSet.model_dump(mode="json")`` of the whole files ``data/cards.json`` and
#: ``data/changes-rules3.json`` .. ``changes-rules8.json``), by the first rules version dealing it.
#: Stored states and action codes hold these card ids: the built sets must not change.
SET_DIGESTS = {
    1: "4ead7d99efe8b065d3170da625b8b6a70068cbb32beb2eeae3e02cda1ea000ae",
    3: "a7913d5af973b65de5e2a9623691e8891ff37a490a5ffef39e71321cef7acdba",
    4: "a607fef0bf72db4bb98e14bf6b0ebfa42f3b8c52483cbb972da2bcbeeb59033e",
    5: "869086a859d97c01d2500e11893f2e469d44ef6f2742446347d653b47062c231",
    6: "97d5151e2cbe1ec3e16a9df87673b0b710b94d00d692db8bcddfade8698bce01",
    7: "e6bf4f08a98e6e2f50fceb180b80d85c0a4e70615e235c87832281dda33a3a16",
    8: "455bd88c1bc8c8ece3626e343a3dddea4a3ca9f5d936719b5be2a56c64598f34",
}


def _digest(cards: CardSet) -> str:
    return hashlib.sha256(json.dumps(cards.model_dump(mode="json"), sort_keys=True, ensure_ascii=False).encode()).hexdigest()


@pytest.mark.parametrize("rules", range(1, 9))
def test_the_set_built_for_every_rules_version_is_the_set_it_always_dealt(rules):
    k = set_index(rules)
    assert _digest(card_sets()[k]) == SET_DIGESTS[SET_RULES[k]]


def test_the_data_holds_one_whole_set_and_small_change_files():
    files = sorted(p.name for p in DATA_PATH.parent.glob("*.json"))
    assert files == ["cards.json", *sorted(p.name for p in CHANGE_PATHS)]
    assert all(p.stat().st_size < 2500 for p in CHANGE_PATHS[1:])  # rules 4 on change a few sides
    eight = load_changes(CHANGE_PATHS[-1])
    assert eight.clients == () and [c.id for c in eight.speakeasies] == [3]
    assert eight.speakeasies[0].model_fields_set == {"id", "regular"}


def _changes(**fields) -> dict:
    return {"about": "a test change", **fields}


def test_a_change_replaces_only_the_fields_it_gives():
    base = card_set()
    out = apply_changes(base, SetChanges.model_validate(_changes(clients=[{"id": 5, "points": 5}])))
    assert out.clients[5] == base.clients[5].model_copy(update={"points": 5}) and base.clients[5].points != 5
    assert out.clients[:5] == base.clients[:5] and out.clients[6:] == base.clients[6:]
    assert out.speakeasies == base.speakeasies


@pytest.mark.parametrize(
    "changes",
    [
        _changes(clients=[{"id": 5, "points": 5, "price": 2}]),  # extra="forbid"
        _changes(clients=[{"id": 5}]),  # changes nothing
        _changes(clients=[{"id": 5, "points": None}]),  # no null
        _changes(clients=[{"id": 5, "points": 9}]),  # out of range
        _changes(clients=[{"id": 5, "points": 1}, {"id": 5, "points": 2}]),  # the same card twice
        _changes(speakeasies=[{"id": 0, "regular": {"base": [], "slots": []}}]),  # a bad side
        {"clients": [{"id": 5, "points": 5}]},  # no "about"
    ],
)
def test_a_bad_changes_file_is_rejected(changes):
    with pytest.raises(ValidationError):
        SetChanges.model_validate(changes)


@pytest.mark.parametrize(
    "changes",
    [
        _changes(clients=[{"id": 5, "points": card_set().clients[5].points}]),  # a field it already has
        _changes(clients=[{"id": 70, "points": 3}]),  # a new id: every field of a card is needed
        _changes(clients=[{**card_set().clients[3].model_dump(mode="json"), "id": 70,
                           "name": {"en": "New", "fr": "Nouveau"}}]),  # a new card: 71 Clients
        _changes(clients=[{"id": 0, "colour": "red"}]),  # 13 green Clients, 15 red
        _changes(speakeasies=[{"id": 1, "standard": card_set().speakeasies[0].standard.model_dump(mode="json")}]),
    ],
)
def test_changes_that_break_the_set_are_rejected(changes):
    with pytest.raises(ValueError):  # noqa: PT011 (ValidationError or a change naming what it repeats)
        apply_changes(card_set(), SetChanges.model_validate(changes))
