"""Three-Player Moon presenter: Discord limits, legal buttons only, no hidden tile on the board."""

from __future__ import annotations

import json
import random

import pytest

from bot.games import GAMES
from bot.i18n import LANGS, Translator, catalog, placeholders
from bot.presenters.base import RenderContext
from bot.presenters.three_player_moon import ThreePlayerMoonPresenter, sorted_hand, tile_text
from bot.ui import Button, check_block_limits, check_panel_limits
from engine.three_player_moon import BidderView, MoonState, MoonView, SeatView, deal_hands

G = GAMES["three-player-moon"].game
P = GAMES["three-player-moon"].presenter
NAMES = ("Alice", "Bob", "Chloé")


def T(code: str) -> tuple[int, int]:
    return (int(code[0]), int(code[1]))


def stacked(h0: str, h1: str, h2: str, widow: str, first: int = 0) -> MoonState:
    """Bidding opens on exactly these hands and widow (the engine's chance helper, T1)."""
    hands = tuple(tuple(T(c) for c in h.split()) for h in (h0, h1, h2))
    return deal_hands(MoonState(seed=9, players=3), hands, T(widow), first_bidder=first)


def act(state, *codes):
    for code in codes:
        (seat,) = G.to_act(state)
        state = G.apply(state, {seat: G.decode(code)}).state
    return state


def ctx(lang: str, seat: int | None = None) -> RenderContext:
    return RenderContext(t=Translator(lang), names=NAMES, seat=seat)


def block_text(card) -> str:
    return "\n".join([card.title, card.description, card.footer] + [f"{f.name}\n{f.value}" for f in card.fields])


def legal_codes(state, seat) -> tuple[str, ...]:
    return tuple(G.encode(a) for a in G.legal_actions(state, seat))


STRONG = ("66 65 64 63 62 61 55", "54 53 52 51 44 43 42", "41 33 32 31 22 21 11", "00")


def test_registered():
    assert isinstance(P, ThreePlayerMoonPresenter) and P.key == G.key


def _check_state(state, lang: str, seen_phases: set[str]) -> None:
    seen_phases.add(state.phase)
    board = P.board(G.view(state, None), ctx(lang))
    assert check_block_limits(board) == [], check_block_limits(board)
    text = block_text(board)
    hidden = [t for h in state.hands for t in h]
    if state.discard:
        hidden.append(state.discard)
    if state.phase == "bid":
        hidden.append(state.widow)
    for tile in hidden:
        assert tile_text(tile) not in text, (tile, text)
    for seat in range(3):
        legal = legal_codes(state, seat)
        panel = P.panel(G.view(state, seat), legal, ctx(lang, seat))
        assert check_panel_limits(panel) == [], check_panel_limits(panel)
        assert panel.codes() <= set(legal)
        assert panel.codes() == set(legal)  # every legal action is one click away
        ptext = block_text(panel.card) + json.dumps([[b.label for b in row] for row in panel.rows])
        others = [t for s in range(3) if s != seat for t in state.hands[s]]
        if state.discard and seat != state.bidder:
            others.append(state.discard)
        if state.phase == "bid":
            others.append(state.widow)
        for tile in others:
            assert tile_text(tile) not in ptext, (seat, tile)
        for tile in state.hands[seat]:
            assert tile_text(tile) in panel.card.description
        for code in legal:
            assert P.action_label(code, G.view(state, seat), ctx(lang, seat)) != code


@pytest.mark.parametrize("lang", LANGS)
def test_random_playouts_respect_limits_and_hide_tiles(lang):
    seen: set[str] = set()
    for seed in range(3):
        rng = random.Random(seed)
        state = G.setup(seed, 3)
        while True:
            _check_state(state, lang, seen)
            if not G.to_act(state):
                break
            (seat,) = G.to_act(state)
            legal = G.legal_actions(state, seat)
            action = G.ai_action(state, seat) if (seat + seed) % 3 else rng.choice(legal)
            step = G.apply(state, {seat: action})
            for event in step.events:
                for reader in (None, 0, 1, 2):
                    if event.visible_to(reader):
                        line = P.event(event, ctx(lang, reader))
                        assert line and "{" not in line and "tpm." not in line, line
            state = step.state
    assert seen == {"bid", "discard", "trump", "play", "over"}


@pytest.mark.parametrize("lang", LANGS)
def test_bidding_buttons_only_legal_bids(lang):
    s = stacked(*STRONG, first=1)
    panel = P.panel(G.view(s, 1), legal_codes(s, 1), ctx(lang, 1))
    buttons = [b for row in panel.rows for b in row]
    assert [b.code for b in buttons] == ["b0", "b4", "b5", "b6", "b7", "b21"]
    assert buttons[-1].label == Translator(lang)("tpm.btn.moon")
    s = act(s, "b5")
    panel = P.panel(G.view(s, 2), legal_codes(s, 2), ctx(lang, 2))
    assert [b.code for row in panel.rows for b in row] == ["b0", "b6", "b7", "b21"]
    # Not your turn: no buttons, just the hand.
    idle = P.panel(G.view(s, 0), (), ctx(lang, 0))
    assert idle.rows == () and "[6|6]" in idle.card.description


@pytest.mark.parametrize("lang", LANGS)
def test_discard_and_trump_buttons(lang):
    s = act(stacked(*STRONG, first=0), "b5", "b0", "b0")
    panel = P.panel(G.view(s, 0), legal_codes(s, 0), ctx(lang, 0))
    buttons = [b for row in panel.rows for b in row]
    assert len(buttons) == 8 and len(panel.rows) == 2
    widow = [b for b in buttons if b.code == "d00"]
    assert widow and widow[0].label == Translator(lang)("tpm.btn.widow", tile="[0|0]")
    s = act(s, "d00")
    panel = P.panel(G.view(s, 0), legal_codes(s, 0), ctx(lang, 0))
    assert [len(r) for r in panel.rows] == [5, 4]
    labels = {b.code: b.label for row in panel.rows for b in row}
    assert set(labels) == {"t0", "t1", "t2", "t3", "t4", "t5", "t6", "tD", "tN"}
    assert labels["t6"].endswith("· 6 " + ("tiles" if lang == "en" else "tuiles"))  # 6 of the 7 tiles would be trumps
    assert labels["tN"] == Translator(lang)("tpm.trump.none")
    # The bidder's panel remembers the widow and the discard; the others' do not.
    assert "[0|0]" in block_text(panel.card)
    assert "[0|0]" not in block_text(P.panel(G.view(s, 1), (), ctx(lang, 1)).card)


@pytest.mark.parametrize("lang", LANGS)
def test_play_panel_trumps_first_and_only_legal_tiles(lang):
    s = act(stacked(*STRONG, first=0), "b4", "b0", "b0", "d00", "t4", "p55")
    view = G.view(s, 1)
    # Seat 1 holds 54 53 52 51 44 43 42; with 4s as trumps: 54 44 43 42 are trumps.
    assert isinstance(view, SeatView)
    assert sorted_hand(view.hand, "4")[:4] == [(4, 4), (5, 4), (4, 3), (4, 2)]
    panel = P.panel(view, legal_codes(s, 1), ctx(lang, 1))
    codes = [b.code for row in panel.rows for b in row]
    assert codes == ["p53", "p52", "p51"]  # must follow 5s; [5|4] is a trump
    assert all(isinstance(b, Button) and not b.disabled for row in panel.rows for b in row)
    desc = panel.card.description
    assert desc.index("[4|4]") < desc.index("[5|3]")  # trumps listed first
    board = P.board(G.view(s, None), ctx(lang))
    assert "[5|5]" in block_text(board)  # the trick on the table
    assert "[5|3]" not in block_text(board)


@pytest.mark.parametrize("lang", LANGS)
def test_rules_card(lang):
    card = P.rules(Translator(lang))
    assert check_block_limits(card) == []
    assert len(card.description) < 3500 and "21" in card.description


def test_catalogs_match():
    en = json.loads(open("bot/i18n/en/three_player_moon.json", encoding="utf-8").read())
    fr = json.loads(open("bot/i18n/fr/three_player_moon.json", encoding="utf-8").read())
    assert set(en) == set(fr)
    for key in en:
        assert placeholders(en[key]) == placeholders(fr[key]), key
        assert key.startswith("tpm.") or key.startswith("game.three-player-moon.")
    assert catalog("fr")["game.three-player-moon.name"] == "Lune à trois joueurs"


@pytest.mark.parametrize("lang", LANGS)
def test_board_reports_the_last_hand_from_the_typed_view(lang):
    s = act(stacked(*STRONG, first=0), "b4", "b0", "b0", "d00", "t6")
    while s.hand_no == 1:  # seat 0 holds every 6: it takes all 7 tricks
        (seat,) = G.to_act(s)
        s = G.apply(s, {seat: G.ai_action(s, seat)}).state
    view = G.view(s, None)
    assert type(view) is MoonView and view.last_hand is not None and view.last_hand.made
    text = block_text(P.board(view, ctx(lang)))
    tr = Translator(lang)
    assert tr("tpm.last_hand.made", name="Alice", bid=4, tricks=7, trump=tr("tpm.trump.suit", n="6").lower()) in text
    assert tr("tpm.last_hand.points", points="Alice +4 · Bob +0 · Chloé +0") in text


def test_panel_reads_widow_and_discard_only_from_the_bidder_view():
    s = act(stacked(*STRONG, first=0), "b5", "b0", "b0", "d55")
    mine, theirs = G.view(s, 0), G.view(s, 1)
    assert isinstance(mine, BidderView) and not isinstance(theirs, BidderView)
    secret = Translator("en")("tpm.field.secret")
    fields = {f.name: f.value for f in P.panel(mine, legal_codes(s, 0), ctx("en", 0)).card.fields}
    assert "[0|0]" in fields[secret] and "[5|5]" in fields[secret]
    assert secret not in {f.name for f in P.panel(theirs, (), ctx("en", 1)).card.fields}
    # The public view has no hand: a panel drawn from it lists nothing.
    public = P.panel(G.view(s, None), (), ctx("en", None))
    assert public.card.description.startswith(Translator("en")("tpm.nothing"))


@pytest.mark.parametrize("lang", LANGS)
def test_the_board_says_the_bid_once(lang):
    """While bidding, "Bids" lists every bid in order, one a line (the high one in bold); once the
    bidding is over, "Bid" is the bidder's bid alone. No bid is written twice."""
    t = Translator(lang)
    s = act(stacked(*STRONG, first=1), "b5", "b0")  # Bob bids 5, Chloé passes, Alice to bid
    board = P.board(G.view(s, None), ctx(lang))
    (bids,) = [f for f in board.fields if f.name == t("tpm.field.bids")]
    assert bids.value.splitlines() == [t("tpm.bid_line", name="Bob", bid="5"),
                                       t("tpm.bid_entry", name="Chloé", bid=t("tpm.bid.pass"))]
    assert sum(f.value.count(t("tpm.bid_line", name="Bob", bid="5")) for f in board.fields) == 1
    assert "Bob 5" not in block_text(board)  # the old second line, "Bids: Bob 5 · Chloé pass"
    assert not [f for f in board.fields if f.name == t("tpm.field.bid")]
    s = act(s, "b0")  # Alice passes: Bob has the bid
    board = P.board(G.view(s, None), ctx(lang))
    (bid,) = [f for f in board.fields if f.name in (t("tpm.field.bid"), t("tpm.field.bids"))]
    assert bid.name == t("tpm.field.bid") and bid.value == t("tpm.bid_line", name="Bob", bid="5")
