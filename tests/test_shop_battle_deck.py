"""Shop Battle decks: letters (S1), the default deck, and every hostile deck file (S1: a clear
error for each bad card)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from engine.core import to_json
from engine.shop_battle import (
    MAX_DECK_BYTES,
    CollectorCard,
    Deck,
    DeckError,
    ShopCard,
    count_letters,
    default_deck,
    parse_deck,
)

ROOT = Path(__file__).resolve().parent.parent


def shop(name: str, year: Any = 1990, street: Any = 10, games: Any = 5, **extra: Any) -> dict[str, Any]:
    return {"name": name, "year_founded": year, "street_number": street, "games_in_shop": games, **extra}


def good_cards(n: int = 8) -> list[dict[str, Any]]:
    return [shop(f"Shop {chr(65 + k)}") for k in range(n)]


def deck_text(cards: list[Any], name: Any = "Test") -> str:
    return json.dumps({"name": name, "cards": cards})


def issues_of(text: str | bytes, **kw: Any) -> list[tuple]:
    """``[(index, name, field, code)]`` of the refused deck."""
    with pytest.raises(DeckError) as exc:
        parse_deck(text, **kw)
    return [(i.index, i.name, i.field, i.code) for i in exc.value.issues]


# --- S1 letters --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "letters"),
    [
        ("Café du Coin 2", 10),
        ("L'Antre du Joueur", 14),
        ("Tabac-Presse du Marché", 19),
        ("Œufs & Cie.", 7),  # œ is one letter; & and . are not
        ("Straße 12", 6),
        ("Cafe\u0301", 4),  # a decomposed accent is normalised first: still 4 letters
        ("1789", 0),
        ("Dé 🎲 Club", 6),
        ("ÇA VA", 4),
        ("Dragonʼs Den", 10),  # S1: the modifier letter ʼ (U+02BC, Lm) is not a letter
        ("ﬁve", 4),  # S1: NFKC turns the ligature ﬁ into two letters
        ("Nº 5", 2),  # S1: the ordinal indicator º is the letter o
    ],
)
def test_letters_count_letters_only_with_accents(name: str, letters: int):
    assert count_letters(name) == letters
    card = ShopCard(name=name, year_founded=2000, street_number=1, games_in_shop=1)
    assert card.letters() == letters and card.value("letters") == letters


@pytest.mark.parametrize(
    ("name", "v1", "v2"),
    [("Dragonʼs Den", 11, 10), ("ﬁve", 3, 4), ("Nº 5", 2, 2), ("Café du Coin 2", 10, 10)],
)
def test_rules_1_keeps_the_old_letter_count(name: str, v1: int, v2: int):
    card = ShopCard(name=name, year_founded=2000, street_number=1, games_in_shop=1)
    assert (count_letters(name, rules=1), count_letters(name, rules=2)) == (v1, v2)
    assert (card.value("letters", 1), card.value("letters", 2)) == (v1, v2)


def test_default_deck_letters_are_the_same_under_both_rules():
    for card in default_deck().shops:
        assert card.letters(1) == card.letters(2), card.name


def test_letters_are_computed_not_stored():
    card = ShopCard(name="Café du Coin 2", year_founded=2000, street_number=1, games_in_shop=1)
    assert "letters" not in to_json(card)
    with pytest.raises(ValidationError):
        Deck.model_validate({"name": "x", "cards": [{**to_json(card), "letters": 10}, *good_cards(8)]})


# --- the shipped decks -------------------------------------------------------------------------


def test_default_deck_loads_with_32_shops_and_the_collectors():
    deck = default_deck()
    assert len(deck.shops) >= 32 and len(deck.collectors) >= 6
    hyper = [c for c in deck.collectors if c.name == "HYPER U"]
    assert len(hyper) == 1 and hyper[0].kind == "peek" and hyper[0].power.seconds == 10
    assert len({c.kind for c in deck.collectors}) >= 6
    # varied values: each characteristic has many distinct values
    for char in ("year", "letters", "street", "games"):
        assert len({s.value(char) for s in deck.shops}) >= 10, char


def test_example_deck_of_the_readme_is_valid():
    deck = parse_deck((ROOT / "docs" / "decks" / "example-deck.json").read_bytes())
    assert deck.name == "Rue de la Paix" and len(deck.cards) >= 8
    assert any(c.name == "HYPER U" for c in deck.collectors)


def test_power_may_be_a_bare_kind_or_an_object_with_params():
    cards = good_cards() + [{"name": "Flip", "power": "reverse"}, {"name": "Tax", "power": {"kind": "tribute", "cards": 3}}]
    deck = parse_deck(deck_text(cards))
    assert isinstance(deck.cards[8], CollectorCard) and deck.cards[8].kind == "reverse"
    assert deck.cards[9].power.cards == 3
    assert parse_deck(b"\xef\xbb\xbf" + deck_text(good_cards()).encode()).name == "Test"  # UTF-8 BOM


def test_names_are_trimmed_and_spaces_collapsed():
    deck = parse_deck(deck_text([shop("  Chez   Mimi  ")] + good_cards(7)))
    assert deck.cards[0].name == "Chez Mimi"


# --- hostile files -------------------------------------------------------------------------------


def test_huge_file_is_refused_before_parsing():
    text = deck_text(good_cards()) + " " * MAX_DECK_BYTES
    assert issues_of(text) == [(None, None, None, "too_large")]
    assert issues_of(deck_text(good_cards()), max_bytes=100) == [(None, None, None, "too_large")]


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("", "empty"),
        ("   \n ", "empty"),
        ("not json", "not_json"),
        ('{"name": "x", "cards": [1,]}', "not_json"),
        ('{"name": "x", "name": "y", "cards": []}', "not_json"),  # duplicate key
        ('{"name": "x", "cards": [{"name": "a", "year_founded": NaN}]}', "not_json"),
        ("[" * 50_000 + "]" * 50_000, "not_json"),  # nested too deeply
    ],
)
def test_empty_and_non_json_files(text: str, code: str):
    assert issues_of(text) == [(None, None, None, code)]


def test_non_utf8_bytes():
    assert issues_of(b'{"name": "\xff"}') == [(None, None, None, "not_utf8")]


def test_not_json_message_gives_line_and_column():
    with pytest.raises(DeckError) as exc:
        parse_deck('{\n  "name": "x",\n  "cards": [}\n')
    assert "line 3" in str(exc.value)


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ([1, 2], [(None, None, None, "type")]),
        ("deck", [(None, None, None, "type")]),
        ({"cards": good_cards()}, [(None, None, "name", "missing")]),
        ({"name": "x"}, [(None, None, "cards", "missing")]),
        ({"name": "x", "cards": {"a": 1}}, [(None, None, "cards", "type")]),
        ({"name": 3, "cards": good_cards()}, [(None, None, "name", "type")]),
        ({"name": "x", "cards": good_cards(), "author": "me"}, [(None, None, "author", "extra")]),
    ],
)
def test_wrong_top_level_shapes(data: Any, expected: list):
    assert issues_of(json.dumps(data)) == expected


def test_wrong_types_are_reported_per_card_and_field():
    cards = good_cards()
    cards[1] = shop("Text Year", year="1952")
    cards[2] = shop("Float Street", street=12.0)
    cards[3] = shop("Bool Games", games=True)
    cards[4] = {"name": 42, "year_founded": 2000, "street_number": 1, "games_in_shop": 1}
    cards[5] = "just a string"
    got = issues_of(deck_text(cards))
    assert got == [
        (1, "Text Year", "year_founded", "type"),
        (2, "Float Street", "street_number", "type"),
        (3, "Bool Games", "games_in_shop", "type"),
        (4, None, "name", "type"),
        (5, None, None, "type"),
    ]


def test_absurd_values_are_out_of_range():
    cards = good_cards()
    cards[0] = shop("Future", year=3000)
    cards[1] = shop("Ancient", year=999)
    cards[2] = shop("Negative Street", street=-1)
    cards[3] = shop("Long Street", street=100_000)
    cards[4] = shop("Mega Store", games=10**7)
    got = issues_of(deck_text(cards))
    assert got == [
        (0, "Future", "year_founded", "range"),
        (1, "Ancient", "year_founded", "range"),
        (2, "Negative Street", "street_number", "range"),
        (3, "Long Street", "street_number", "range"),
        (4, "Mega Store", "games_in_shop", "range"),
    ]
    with pytest.raises(DeckError) as exc:
        parse_deck(deck_text(cards))
    assert "card 1 (Future), year_founded: must be between 1000 and 2100" in str(exc.value)


def test_duplicate_names_ignore_case_accents_and_spaces():
    cards = good_cards()
    cards[0] = shop("Boulangerie Martin")
    cards[3] = shop("boulangérie  MARTIN")
    cards.append({"name": "Boulangerie martin", "power": "skip"})
    got = issues_of(deck_text(cards))
    assert got == [
        (3, "boulangérie MARTIN", "name", "duplicate"),
        (8, "Boulangerie martin", "name", "duplicate"),
    ]


@pytest.mark.parametrize(
    "name",
    ["@everyone", "<@123456>", "**Bold**", "snake_case", "`code`", "~~gone~~", "||spoiler||", "# Title",
     "[click](x)", "back\\slash", "Visit https://x.example"],
)
def test_markdown_and_mentions_are_refused(name: str):
    cards = good_cards()
    cards[2] = shop(name)
    got = issues_of(deck_text(cards))
    assert [(i, f, c) for i, _, f, c in got] == [(2, "name", "name_markdown")]
    shown = got[0][1]  # the name echoed in the error is neutralised too
    assert not any(ch in shown for ch in "@<>`*_~|#[]\\")


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("", "name_empty"),
        ("    ", "name_empty"),
        ("x" * 61, "name_too_long"),
        ("Null\x00Byte", "name_control"),
        ("Zero\u200bWidth", "name_control"),
        ("Right\u202eLeft", "name_control"),
        ("Two\nLines", "name_control"),
    ],
)
def test_bad_names(name: str, code: str):
    cards = good_cards()
    cards[6] = shop(name)
    got = issues_of(deck_text(cards))
    assert [(i, f, c) for i, _, f, c in got] == [(6, "name", code)]
    # the same rules for the deck's own name
    assert [(i, f, c) for i, _, f, c in issues_of(deck_text(good_cards(), name=name))] == [(None, "name", code)]


def test_missing_and_extra_fields():
    cards = good_cards()
    cards[0] = {"name": "No Street", "year_founded": 2000, "games_in_shop": 1}
    cards[1] = shop("Priced", price=3)
    cards[2] = {"name": "Power And Year", "power": "skip", "year_founded": 2000}
    cards[3] = {"year_founded": 2000, "street_number": 1, "games_in_shop": 1}
    got = issues_of(deck_text(cards))
    assert got == [
        (0, "No Street", "street_number", "missing"),
        (1, "Priced", "price", "extra"),
        (2, "Power And Year", "year_founded", "extra"),
        (3, None, "name", "missing"),
    ]


def test_bad_powers():
    cards = good_cards()
    cards += [
        {"name": "Magic", "power": "teleport"},
        {"name": "Long Peek", "power": {"kind": "peek", "seconds": 600}},
        {"name": "Odd Param", "power": {"kind": "swap", "target": 2}},
        {"name": "No Kind", "power": {}},
        {"name": "Number Power", "power": 7},
    ]
    got = issues_of(deck_text(cards))
    assert got == [
        (8, "Magic", "power", "power_kind"),
        (9, "Long Peek", "power.seconds", "range"),
        (10, "Odd Param", "power.target", "extra"),
        (11, "No Kind", "power", "power_kind"),
        (12, "Number Power", "power", "power_kind"),
    ]


def test_deck_size_and_shop_count():
    assert issues_of(deck_text(good_cards(7))) == [(None, None, "cards", "card_count")]
    assert issues_of(deck_text([shop(f"S {k:03d} {chr(65 + k % 26)}{chr(65 + k // 26)}") for k in range(201)])) == [
        (None, None, "cards", "card_count")
    ]
    few_shops = good_cards(3) + [{"name": f"Power {chr(65 + k)}", "power": "skip"} for k in range(6)]
    assert issues_of(deck_text(few_shops)) == [(None, None, "cards", "shop_count")]
    assert issues_of(deck_text([])) == [(None, None, "cards", "card_count"), (None, None, "cards", "shop_count")]


def test_every_bad_card_is_listed_in_one_error():
    cards = good_cards(10)
    cards[1] = shop("Bad Year", year=5000)
    cards[7] = shop("@here")
    cards[9] = shop("Shop A")  # duplicate of card 0
    got = issues_of(deck_text(cards))
    assert [i for i, *_ in got] == [1, 7, 9]


def test_deck_model_itself_enforces_the_rules():
    with pytest.raises(ValidationError):
        Deck.model_validate({"name": "x", "cards": good_cards(4)})
    with pytest.raises(ValidationError):
        Deck.model_validate({"name": "x", "cards": good_cards() + [shop("shop a")]})
    with pytest.raises(ValidationError):
        Deck.model_validate({"name": "x", "cards": good_cards(), "extra": 1})
    deck = Deck.model_validate({"name": "x", "cards": good_cards()})
    assert Deck.model_validate(json.loads(deck.model_dump_json())) == deck
