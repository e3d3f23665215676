"""Moonshine rules: every rule and ruling (M1-M9) and the rulebook's worked examples as scenarios.

States are built by hand (:func:`make`) so dice faces, Clients and deck order are exact; rerolls
are forced through :meth:`Moonshine.resolve_reroll`.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.core import IllegalAction
from engine.moonshine import FollowUp, Moonshine, MoonshineState, SeatState
from engine.moonshine.actions import canonical_code
from engine.moonshine.cards import card_set, card_sets, set_index
from engine.moonshine.dice import BLUE_FACES, ORANGE_FACES, WHITE_FACES, shortfall, sources_of
from engine.moonshine.icons import CLIENT, DISC, DRAW, ORANGE, REROLL
from engine.moonshine.scoring import points_of
from engine.moonshine.state import DRAFT_SIZES, discard_options, seat_bundle

G = Moonshine()
C = {c.name.en: c.id for c in card_set().clients}

# Speakeasies (Standard side slots): 0 Blind Pig [2 blue][2 food/music][1 drink];
# 2 Hidden Cellar [1 any][2 blue][1 food]; 4 Back Room [2 any][1 blue][2 reroll].
BLIND_PIG, VELVET, CELLAR, SILVER, BACK_ROOM = range(5)


def seat(speakeasy: int, se=(0, 0, 0), clients=(), cl=None, validated=(), queue=(), lose=0) -> SeatState:
    clients = tuple(C[c] if isinstance(c, str) else c for c in clients)
    return SeatState(speakeasy=speakeasy, se_tokens=tuple(se), clients=clients,
                     cl_tokens=tuple(cl) if cl is not None else (0,) * len(clients),
                     validated=tuple(C[c] if isinstance(c, str) else c for c in validated),
                     queue=tuple(queue), lose=lose)


def make(seats, phase="action", active=0, dice=("food", "music", "drink", "", ""), deck=None, discard=(),
         variant="standard", rerolls=0, round=3, first=0, rules=Moonshine.rules_version) -> MoonshineState:
    """A hand-built state; ``deck`` (top first) defaults to every unused card in id order."""
    used = {c for s in seats for c in (*s.clients, *s.validated)} | set(discard)
    used |= {c for s in seats for q in s.queue for c in q.cards}
    if deck is None:
        deck = tuple(c for c in range(70) if c not in used)
    else:
        deck = tuple(C[c] if isinstance(c, str) else c for c in deck)
    return MoonshineState(seed=12345, players=len(seats), rules=rules, variant=variant, target=15 if variant == "regular" else 12,
                          phase=phase, round=round, first=first, active=active, dice=tuple(dice), rerolls=rerolls,
                          deck=deck, discard=tuple(discard), seats=tuple(seats))


def play(state, codes):
    """``G.apply`` with action codes (``{seat: code}``)."""
    return G.apply(state, {seat: G.decode(code) for seat, code in codes.items()})


def codes_of(state, seat) -> tuple[str, ...]:
    """The legal action codes of ``seat``."""
    return tuple(G.encode(a) for a in G.legal_actions(state, seat))


def tokens(s: SeatState) -> int:
    return sum(s.se_tokens) + sum(s.cl_tokens)


# --- components ---------------------------------------------------------------------------------


def test_dice_faces_follow_the_rulebook():
    assert sorted(WHITE_FACES) == sorted(["food"] * 3 + ["music"] * 2 + ["drink"])
    assert sorted(BLUE_FACES) == sorted(["food"] * 2 + ["moon"] * 3 + ["any"])
    assert sorted(ORANGE_FACES) == sorted(["moon", "music", "drink", "drink", "any", "any"])


def test_speakeasy_base_icons():
    for sp in range(5):
        for variant in ("standard", "regular"):
            b = seat_bundle(seat(sp), variant)
            assert (b[DRAW], b[CLIENT], b[REROLL]) == (3, 2, 1)


# --- setup ---------------------------------------------------------------------------------------


def test_standard_setup_deals_two_starting_clients_and_asks_for_the_first_token():
    state = G.setup(7, 4, {"variant": "standard"})
    # rules 8 deal the seventh card set: global ids 420..489, Speakeasies 30..34
    k = set_index(G.rules_version)
    assert k == 6
    starting = {70 * k + c.id for c in card_sets()[k].clients if c.starting}
    dealt = [c for s in state.seats for c in s.clients]
    assert len(dealt) == 8 and set(dealt) <= starting
    assert len(state.deck) == 70 - 8 and not set(dealt) & set(state.deck)
    assert set(state.deck) <= set(range(420, 490))
    assert len({s.speakeasy for s in state.seats}) == 4 and {s.speakeasy for s in state.seats} <= set(range(30, 35))
    assert state.phase == "setup" and G.to_act(state) == frozenset(range(4))
    step = play(state, {s: codes_of(state, s)[0] for s in range(4)})
    assert step.state.phase == "roll" and step.state.round == 1 and step.state.active == state.first
    assert all(tokens(s) == 1 for s in step.state.seats)


def test_setup_rejects_bad_counts_and_options():
    with pytest.raises(ValueError):
        G.setup(1, 6)
    with pytest.raises(ValueError):
        G.setup(1, 3, {"variant": "casual"})


# --- 1. dice roll --------------------------------------------------------------------------------


def test_thomas_rolls_and_rerolls_once():
    """Example "Dice roll": Thomas has the blue die thanks to his two tokens; he rerolls the Food
    and Drink dice, gets Food and Music, and cannot reroll any more (1 reroll icon)."""
    thomas = seat(BLIND_PIG, se=(2, 0, 0), clients=("The Double Bassist", "The Crooner"),
                  validated=("The Greengrocer", "The Card Sharp"))
    cecilia = seat(CELLAR, clients=("The Bartender", "The Flapper"), validated=("The Banker",))
    lewis = seat(VELVET, clients=("The Doorman", "The Baker"))
    state = make([thomas, cecilia, lewis], phase="roll", dice=("food", "music", "drink", "moon", ""), rerolls=1)
    assert G.to_act(state) == frozenset({0})
    assert "rr.0.2" in codes_of(state, 0) and "rr.b" in codes_of(state, 0)
    assert "rr.o" not in codes_of(state, 0)  # the orange die was not rolled
    step = G.resolve_reroll(state, "rr.0.2", ("food", "music"))
    new = step.state
    assert new.dice == ("food", "music", "music", "moon", "")
    assert new.rerolls == 0 and new.phase == "gain"  # no reroll left: on to the Moon-token gains
    # blue Moon face: Thomas and Cecilia (blue access from her validated Banker) gain a token, Lewis not
    assert G.to_act(new) == frozenset({0, 1})
    assert any(e.key == "ms.ev.gain" and e.params == {"seat": 0, "n": 1} for e in step.events)
    assert not any(e.key == "ms.ev.gain" and e.params["seat"] == 2 for e in step.events)


def test_reroll_count_follows_reroll_icons_and_stop_ends_it():
    # Back Room: [2 any][1 blue][2 reroll] -> with 2 tokens on the reroll slot: 2 rerolls
    s = seat(BACK_ROOM, se=(0, 0, 2), clients=("The Baker", "The Crooner"))
    state = make([s, seat(VELVET, clients=("The Doorman", "The Bartender"))], phase="roll",
                 dice=("food", "food", "food", "", ""), rerolls=seat_bundle(s, "standard")[REROLL])
    assert state.rerolls == 2
    one = G.resolve_reroll(state, "rr.0.1.2", ("music", "music", "drink")).state
    assert one.phase == "roll" and one.rerolls == 1 and one.dice[:3] == ("music", "music", "drink")
    two = play(one, {0: "stop"}).state
    assert two.phase == "action" and two.dice[:3] == ("music", "music", "drink")
    with pytest.raises(IllegalAction):
        G.resolve_reroll(state, "rr.0", ("moon",))  # a white die has no Moon face


def test_a_reroll_event_records_which_dice_were_rerolled_a_die_kept_face_included():
    """The event names the rerolled dice, so that a die rerolled to the face it showed is told too."""
    s = seat(BACK_ROOM, se=(0, 0, 2), clients=("The Baker", "The Crooner"))
    state = make([s, seat(VELVET, clients=("The Doorman", "The Bartender"))], phase="roll",
                 dice=("food", "food", "food", "", ""), rerolls=seat_bundle(s, "standard")[REROLL])
    step = G.resolve_reroll(state, "rr.0.2", ("food", "drink"))  # die 0 shows food again
    (ev,) = [e for e in step.events if e.key == "ms.ev.reroll"]
    assert ev.params == {"seat": 0, "dice": ["food", "food", "drink", "", ""], "left": 1, "rerolled": [0, 2]}


def test_round_start_rolls_blue_and_orange_only_with_access():
    """The next active player (seat 1) has blue access only: white + blue dice are rolled."""
    s0 = seat(BLIND_PIG, clients=("The Baker",), queue=(FollowUp(kind="keep", cards=(C["The Cook"], C["The Pianist"])),))
    s1 = seat(CELLAR, se=(0, 2, 0), clients=("The Crooner", "The Flapper"))
    state = make([s0, s1], phase="resolve", active=0)
    new = play(state, {0: f"keep.{C['The Cook']}"}).state
    assert new.round == 4 and new.active == 1 and new.phase == "roll"
    assert all(new.dice[:4]) and new.dice[4] == ""
    assert new.rerolls == 1


# --- 2. Moon-token gains -------------------------------------------------------------------------


def test_cecilia_gains_a_token_from_the_blue_die_and_unlocks_any_resource():
    """Example: Thomas rolled a blue Moon; Cecilia has the blue die through a validated card, gains
    a token, places it on her Speakeasy and has a resource of her choice from then on."""
    thomas = seat(BLIND_PIG, se=(2, 0, 0), clients=("The Double Bassist", "The Crooner"))
    cecilia = seat(CELLAR, clients=("The Bartender", "The Flapper"), validated=("The Banker",))
    state = make([thomas, cecilia], phase="roll", dice=("food", "music", "music", "moon", ""), rerolls=1)
    gain = play(state, {0: "stop"}).state
    assert gain.phase == "gain" and G.to_act(gain) == frozenset({0, 1})  # placed in parallel (M3)
    assert "pl.s0" in codes_of(gain, 1)
    act = play(gain, {0: "pl.s1", 1: "pl.s0"}).state
    assert act.phase == "action"
    b = seat_bundle(act.seats[1], "standard")
    assert b[7] == 1  # a resource of her choice
    assert sources_of(b, act.dice)[7] == 1


def test_gain_with_no_empty_space_is_lost_and_single_space_is_automatic():
    full = seat(CELLAR, se=(1, 2, 1), validated=("The Banker",))  # every space covered, no Client
    one = seat(BACK_ROOM, se=(2, 0, 2), validated=("The Banker",))  # only the blue slot has room
    active = seat(BLIND_PIG, se=(2, 0, 0), clients=("The Baker", "The Crooner"))
    state = make([active, full, one], phase="roll", dice=("food", "food", "food", "moon", ""), rerolls=1)
    step = play(state, {0: "stop"})
    assert any(e.key == "ms.ev.token_lost" and e.params["seat"] == 1 for e in step.events)
    assert step.state.seats[2].se_tokens == (2, 1, 2)  # placed without asking
    assert G.to_act(step.state) == frozenset({0})


def test_a_die_unlocked_during_the_gains_counts_in_the_action_phase():
    """M3: Cecilia places her blue-die token on the Flapper (orange die); the orange die was rolled
    by the active player, so its Drink counts for her validation."""
    thomas = seat(VELVET, se=(2, 0, 0), clients=("The Baker", "The Crooner"), validated=("The Banker",))
    cecilia = seat(CELLAR, clients=("The Bartender", "The Flapper"), validated=("The Banker",))
    state = make([thomas, cecilia], phase="roll", dice=("food", "food", "drink", "moon", "drink"), rerolls=1)
    gain = play(state, {0: "stop"}).state
    assert f"val.{C['The Bartender']}" not in codes_of(gain, 1) or gain.phase == "gain"
    act = play(gain, {0: "pl.s1", 1: f"pl.c{C['The Flapper']}"}).state
    b = seat_bundle(act.seats[1], "standard")
    assert b[ORANGE] == 1
    # Bartender costs Food, Drink, Drink: one Drink from a white die, one from the orange die
    assert f"val.{C['The Bartender']}" in codes_of(act, 1)


def test_orange_moon_gains_only_for_orange_access():
    a = seat(VELVET, se=(2, 0, 0), clients=("The Baker", "The Crooner"))  # orange access
    b = seat(BLIND_PIG, se=(2, 0, 0), clients=("The Doorman", "The Bartender"))  # blue access only
    state = make([a, b], phase="roll", dice=("food", "food", "food", "", "moon"), rerolls=1)
    step = play(state, {0: "stop"})
    gains = {e.params["seat"]: e.params["n"] for e in step.events if e.key == "ms.ev.gain"}
    assert gains == {0: 1}


# --- 3. actions: simultaneous and secret ---------------------------------------------------------


def test_every_seat_chooses_at_once_and_take_token_needs_an_empty_space():
    full = seat(CELLAR, se=(1, 2, 1))  # no Client, all spaces covered
    other = seat(BLIND_PIG, clients=("The Baker", "The Crooner"))
    state = make([other, full])
    assert G.to_act(state) == frozenset({0, 1})
    assert "moon" in codes_of(state, 0)
    assert "moon" not in codes_of(state, 1) and "draw" in codes_of(state, 1)
    with pytest.raises(IllegalAction):
        play(state, {0: "draw"})  # a seat is missing
    with pytest.raises(IllegalAction):
        play(state, {0: "draw", 1: "moon"})


def test_actions_resolve_in_seat_order_from_the_active_player():
    """M2: deck draws are taken in seat order starting with the active player (seat 2)."""
    seats = [seat(sp, clients=(c,)) for sp, c in ((BLIND_PIG, "The Baker"), (VELVET, "The Crooner"), (CELLAR, "The Doorman"))]
    deck = list(range(20, 40))
    state = make(seats, active=2, deck=deck)
    new = play(state, {0: "draw", 1: "draw", 2: "draw"}).state
    offers = {i: s.queue[0].cards for i, s in enumerate(new.seats)}
    assert offers == {2: (20, 21, 22), 0: (23, 24, 25), 1: (26, 27, 28)}
    assert G.to_act(new) == frozenset({0, 1, 2})  # private follow-ups answered in parallel


def test_lewis_validation_matches_resources_exactly():
    """Example 1: Lewis cannot validate the left Client (not enough Drink) nor the middle one (he
    lacks 2 of its 5 Moon tokens), but can validate the right one: 4 Food = 1 on the dice + 1 Food
    or Music on his Speakeasy (2 tokens) + 1 from his validated card + 1 from the right Client's
    own bonus. He discards 1 Moon token (the one on the validated card, lost anyway)."""
    lewis = seat(BLIND_PIG, se=(0, 2, 0), clients=("The Rum Runner", "The High Roller", "The Waiter"),
                 cl=(0, 0, 1), validated=("The Baker",))
    other = seat(VELVET, clients=("The Crooner", "The Doorman"))
    state = make([other, lewis], dice=("food", "music", "drink", "", ""))
    legal = codes_of(state, 1)
    waiter, roller, runner = C["The Waiter"], C["The High Roller"], C["The Rum Runner"]
    assert f"val.{waiter}" in legal
    assert f"val.{runner}" not in legal and f"val.{roller}" not in legal
    b = seat_bundle(lewis, "standard")
    src = sources_of(b, state.dice)
    assert shortfall(card_set().clients[runner].cost.model_dump(include={"food", "music", "drink"}).values(), src) > 0
    assert tokens(lewis) == 3 and card_set().clients[roller].cost.moon - b[DISC] == 5  # lacks 2 of 5
    # the Food-or-Music bonus must go to Food (a greedy "Music first" would fail)
    assert src[3] == 1 and card_set().clients[waiter].cost.food == 4
    step = play(state, {0: "moon", 1: f"val.{waiter}"})
    new = step.state.seats[1]
    assert waiter in new.validated and waiter not in new.clients
    assert new.se_tokens == (0, 2, 0)  # the token on the Waiter paid the cost
    assert seat_bundle(new, "standard")[ORANGE] == 1  # the Waiter's lower bonus
    assert any(e.key == "ms.ev.validate" and e.params == {"seat": 1, "card": waiter, "points": 1, "tokens": 1,
                                                       "on_card": 1}
               for e in step.events)


def test_thomas_validation_with_redraw():
    """Example 2 (with "Dice roll"): Thomas gains a token from the blue die, places it on the left
    Client (Music), validates it, discards 2 tokens (the one on the card, then one of the two on
    his blue-die bonus: no blue die next turn), has 3 points, and redraws once: 4 cards (4 draw
    icons), keeps 1, discards the other 3 (the example's "other 2" contradicts its own 4 - 1)."""
    bassist = C["The Double Bassist"]
    thomas = seat(BLIND_PIG, se=(2, 0, 0), clients=("The Double Bassist", "The Crooner"),
                  validated=("The Greengrocer", "The Card Sharp"))
    lewis = seat(VELVET, clients=("The Doorman", "The Bartender"))
    deck = [C[n] for n in ("The Pianist", "The Cook", "The Mayor", "The Poet", "The Gambler")]
    state = make([thomas, lewis], phase="roll", dice=("food", "music", "drink", "moon", ""), rerolls=1, deck=deck)
    state = G.resolve_reroll(state, "rr.0.2", ("food", "music")).state
    assert state.phase == "gain"
    assert f"val.{bassist}" not in codes_of(play(state, {0: "pl.s1"}).state, 0)  # 2 Music only
    state = play(state, {0: f"pl.c{bassist}"}).state
    assert state.phase == "action" and f"val.{bassist}" in codes_of(state, 0)
    step = play(state, {0: f"val.{bassist}", 1: "moon"})
    new = step.state
    t = new.seats[0]
    assert t.se_tokens == (1, 0, 0)  # the blue-die bonus of the Speakeasy (2 spaces) is off
    assert points_of(t.validated) == 3
    assert seat_bundle(t, "standard")[DRAW] == 4
    q = t.queue[0]
    assert q.kind == "keep" and q.cards == tuple(deck[:4])
    after = play(new, {0: f"keep.{C['The Cook']}", 1: codes_of(new, 1)[0]}).state
    assert after.seats[0].clients == (C["The Crooner"], C["The Cook"])
    assert sorted(after.discard) == sorted([C["The Pianist"], C["The Mayor"], C["The Poet"]])


def test_cecilia_takes_a_moon_token_for_the_orange_die():
    """Example "Take a Moon token": Cecilia could validate but takes a token, places it on the
    Client on the right and has the orange die from then on (rolled when she is active)."""
    cecilia = seat(CELLAR, clients=("The Bartender", "The Flapper"))
    thomas = seat(BLIND_PIG, clients=("The Baker", "The Crooner"))
    state = make([thomas, cecilia], dice=("food", "drink", "drink", "", ""), deck=list(range(40, 60)))
    assert f"val.{C['The Bartender']}" in codes_of(state, 1)
    new = play(state, {0: "moon", 1: "moon"}).state
    assert new.phase == "resolve" and G.to_act(new) == frozenset({0, 1})
    new = play(new, {0: "pl.s2", 1: f"pl.c{C['The Flapper']}"}).state
    assert seat_bundle(new.seats[1], "standard")[ORANGE] == 1
    assert new.round == 4 and new.active == 1 and new.dice[4] != ""  # she rolls the orange die


def test_exact_matching_beats_greedy():
    # cost Food 1, Music 1; sources: Food-or-Music, Food -> feasible (FM goes to Music)
    src = [0] * 8
    src[3] = 1
    src[1] = 1
    assert shortfall((1, 1, 0), src) == 0
    # cost Food 2; sources Food-or-Music, Music-or-Drink -> 1 missing
    src = [0] * 8
    src[3] = src[6] = 1
    assert shortfall((2, 0, 0), src) == 1
    # cost Food 1, Music 1, Drink 1; sources any, Food-or-Drink, Music -> feasible
    src = [0] * 8
    src[7] = src[5] = src[2] = 1
    assert shortfall((1, 1, 1), src) == 0


def _brute(cost, units) -> bool:
    need = ["F"] * cost[0] + ["M"] * cost[1] + ["D"] * cost[2]
    if len(need) > len(units):
        return False
    bit = {"F": 1, "M": 2, "D": 4}
    for perm in itertools.permutations(units, len(need)):
        if all(m & bit[r] for m, r in zip(perm, need, strict=False)):
            return True
    return False


@settings(max_examples=40, deadline=None)
@given(cost=st.tuples(st.integers(0, 2), st.integers(0, 2), st.integers(0, 2)),
       units=st.lists(st.integers(1, 7), max_size=5))
def test_shortfall_zero_iff_an_assignment_exists(cost, units):
    src = [0] * 8
    for u in units:
        src[u] += 1
    assert (shortfall(cost, src) == 0) == _brute(cost, units)


def test_discount_icons_stack_and_never_go_below_zero():
    # Fortune Teller costs 3 Moon tokens; a validated Food Critic and Sommelier give 2 discounts
    s = seat(SILVER, se=(1, 0, 0), clients=("The Fortune Teller", "The Baker"),
             validated=("The Food Critic", "The Sommelier"))
    b = seat_bundle(s, "standard")
    assert b[DISC] == 2
    state = make([s, seat(VELVET, clients=("The Crooner",))], dice=("food", "food", "music", "", ""))
    # Fortune Teller: Food 2, Music 1, Drink 1: the Music-or-Drink bonus of the Silver Moon gives Drink
    legal = codes_of(state, 0)
    assert f"val.{C['The Fortune Teller']}" in legal
    new = play(state, {0: f"val.{C['The Fortune Teller']}", 1: "draw"}).state
    assert new.seats[0].se_tokens == (0, 0, 0)  # 3 - 2 = 1 token discarded
    # a single discount on a Client costing nothing in tokens: nothing to discard, nothing negative
    s2 = seat(BLIND_PIG, se=(0, 2, 0), clients=("The Baker",), validated=("The Food Critic",))
    st2 = make([s2, seat(VELVET, clients=("The Crooner",))], dice=("food", "food", "drink", "", ""))
    out = play(st2, {0: f"val.{C['The Baker']}", 1: "draw"}).state
    assert out.seats[0].se_tokens == (0, 2, 0)


def test_discard_choice_is_a_private_follow_up_and_tokens_on_the_card_go_first():
    # Night Owl costs 2 Moon: 1 token on it, the second one chosen among the Speakeasy's slots
    s = seat(BLIND_PIG, se=(1, 2, 1), clients=("The Night Owl", "The Baker"), cl=(1, 0))
    state = make([s, seat(VELVET, clients=("The Crooner",))], dice=("music", "music", "food", "", ""))
    owl = C["The Night Owl"]
    new = play(state, {0: f"val.{owl}", 1: "moon"}).state
    assert new.phase == "resolve"
    assert new.seats[0].queue[0] == FollowUp(kind="discard", n=1)
    assert G.to_act(new) == frozenset({0, 1})
    legal = codes_of(new, 0)
    assert set(legal) == {"dis.s0a", "dis.s1a", "dis.s2a"}
    assert not new.seats[0].queue[1:]  # deck draws wait for the discard choice
    # the view of seat 1 does not show what seat 0 will discard; codes are canonical
    assert G.encode(G.decode("dis.s1b")) == "dis.s1a"
    after = play(new, {0: "dis.s1a", 1: "pl.s0"}).state
    assert after.seats[0].se_tokens == (1, 1, 1)
    assert after.seats[0].queue[0].kind == "keep"  # now the redraw happened


def test_discard_options_enumerate_every_way():
    opts = discard_options([("s0", 2), ("s1", 1), ("c5", 0)], 2)
    assert sorted(opts) == sorted([(("s0", 2),), (("s0", 1), ("s1", 1))])
    assert discard_options([("s0", 1)], 2) == []


# --- the log of discarded Moon tokens (rules 2; rules 1 tables log as before) --------------------


def events_of(step, key: str) -> list[dict]:
    """The params of the ``key`` events of a step (all public: asserted here)."""
    out = [dict(e.params) for e in step.events if e.key == key]
    assert all(e.audience is None for e in step.events if e.key == key)
    return out


def owl_one_way(rules: int = Moonshine.rules_version) -> MoonshineState:
    """Seat 0 validates The Night Owl (2 Moon): 1 token on it, the other can only come from
    Speakeasy bonus 2 (``s1``, 2 tokens), so the discard is made without a question."""
    s = seat(BLIND_PIG, se=(0, 2, 0), clients=("The Night Owl", "The Baker"), cl=(1, 0))
    return make([s, seat(VELVET, clients=("The Crooner",))], dice=("music", "music", "food", "", ""), rules=rules)


def owl_chosen(rules: int = Moonshine.rules_version) -> MoonshineState:
    """Seat 0 validates The Night Owl (2 Moon, none on it) holding tokens on ``s1`` (2), ``s2``
    (1) and The Baker (1): the discard is a real choice."""
    s = seat(BLIND_PIG, se=(0, 2, 1), clients=("The Night Owl", "The Baker"), cl=(0, 1))
    return make([s, seat(VELVET, clients=("The Crooner",))], dice=("music", "music", "food", "", ""), rules=rules)


def test_validation_logs_the_tokens_on_the_card_and_a_one_way_discard():
    owl = C["The Night Owl"]
    step = play(owl_one_way(), {0: f"val.{owl}", 1: "moon"})
    assert step.state.seats[0].se_tokens == (0, 1, 0)
    assert events_of(step, "ms.ev.validate") == [{"seat": 0, "card": owl, "points": 0, "tokens": 2, "on_card": 1}]
    assert events_of(step, "ms.ev.discarded") == [{"seat": 0, "n": 1, "slots": {"s1": 1}}]
    keys = [e.key for e in step.events]
    assert keys.index("ms.ev.validate") < keys.index("ms.ev.discarded")


def test_validation_paid_by_the_card_alone_logs_no_discard():
    """The Bootlegger (2 Moon) carries its 2 tokens: they pay the cost, nothing else is discarded."""
    boot = C["The Bootlegger"]
    s = seat(BLIND_PIG, clients=("The Bootlegger", "The Baker"), cl=(2, 0))
    state = make([s, seat(VELVET, clients=("The Crooner",))], dice=("music", "drink", "drink", "", ""))
    step = play(state, {0: f"val.{boot}", 1: "moon"})
    assert tokens(step.state.seats[0]) == 0
    (ev,) = events_of(step, "ms.ev.validate")
    assert (ev["tokens"], ev["on_card"]) == (2, 2)
    assert events_of(step, "ms.ev.discarded") == []


def test_rules_1_validation_logs_as_before():
    owl = C["The Night Owl"]
    step = play(owl_one_way(rules=1), {0: f"val.{owl}", 1: "moon"})
    assert step.state.seats[0].se_tokens == (0, 1, 0)
    assert events_of(step, "ms.ev.validate") == [{"seat": 0, "card": owl, "points": 0, "tokens": 2}]
    assert events_of(step, "ms.ev.discarded") == []


def test_chosen_discard_names_every_slot_in_slot_order():
    owl, baker = C["The Night Owl"], C["The Baker"]
    new = play(owl_chosen(), {0: f"val.{owl}", 1: "moon"})
    assert events_of(new, "ms.ev.validate")[0]["on_card"] == 0
    assert events_of(new, "ms.ev.discarded") == []  # a choice to make: nothing discarded yet
    code = f"dis.c{baker}a.s1a"
    assert code in codes_of(new.state, 0)
    step = play(new.state, {0: code, 1: "pl.s0"})
    assert step.state.seats[0].se_tokens == (0, 1, 1) and step.state.seats[0].cl_tokens == (0,)
    (ev,) = events_of(step, "ms.ev.discarded")
    assert ev == {"seat": 0, "n": 2, "slots": {"s1": 1, f"c{baker}": 1}}
    assert list(ev["slots"]) == ["s1", f"c{baker}"]  # the Speakeasy first, as on the board
    both = play(new.state, {0: "dis.s1a.s1b", 1: "pl.s0"})
    assert events_of(both, "ms.ev.discarded") == [{"seat": 0, "n": 2, "slots": {"s1": 2}}]


def test_rules_1_chosen_discard_logs_the_count_only():
    owl, baker = C["The Night Owl"], C["The Baker"]
    new = play(owl_chosen(rules=1), {0: f"val.{owl}", 1: "moon"}).state
    step = play(new, {0: f"dis.c{baker}a.s1a", 1: "pl.s0"})
    assert events_of(step, "ms.ev.discarded") == [{"seat": 0, "n": 2}]


@pytest.mark.parametrize("rules", [1, 2])
def test_a_pending_discard_left_with_one_way_is_made_and_logged_from_rules_2(rules):
    from engine.moonshine.followups import auto
    from engine.moonshine.work import work_on

    s = seat(BLIND_PIG, se=(0, 2, 0), clients=("The Baker",), queue=(FollowUp(kind="discard", n=1),))
    state = make([s, seat(VELVET, clients=("The Crooner",))], phase="resolve", rules=rules)
    events: list = []
    w = work_on(state, events)
    assert auto(w, 0)
    assert w.seats[0].se_tokens == (0, 1, 0) and not w.seats[0].queue
    logged = [(e.key, dict(e.params)) for e in events]
    assert logged == ([("ms.ev.discarded", {"seat": 0, "n": 1, "slots": {"s1": 1}})] if rules >= 2 else [])


def baker_replaced(rules: int = Moonshine.rules_version):
    """Seat 0 draws, keeps The Cook and replaces ``old``; The Baker holds 1 Moon token."""
    s = seat(BLIND_PIG, se=(0, 0, 0), clients=("The Baker", "The Crooner"), cl=(1, 0))
    state = make([s, seat(VELVET, clients=("The Doorman",))],
                 deck=[C["The Gambler"], C["The Cook"], C["The Regular"], 9], rules=rules)
    state = play(state, {0: "draw", 1: "moon"}).state
    return play(state, {0: f"pick.{C['The Cook']}", 1: "pl.s1"}).state


@pytest.mark.parametrize(("old", "lost"), [("The Baker", 1), ("The Crooner", 0)])
def test_replace_logs_the_tokens_discarded_with_the_old_client(old, lost):
    step = play(baker_replaced(), {0: f"rep.{C[old]}"})
    assert events_of(step, "ms.ev.replace") == [{"seat": 0, "card": C["The Cook"], "old": C[old], "tokens": lost}]
    assert tokens(step.state.seats[0]) == 1 - lost


def test_rules_1_replace_logs_as_before():
    step = play(baker_replaced(rules=1), {0: f"rep.{C['The Baker']}"})
    assert events_of(step, "ms.ev.replace") == [{"seat": 0, "card": C["The Cook"], "old": C["The Baker"]}]


def test_rules_1_deal_both_draws_of_a_double_redraw_at_once():
    """Rules 1 (tables set up before the fix): a new Client-card icon deals both redraws at once."""
    cook = C["The Cook"]
    s = seat(BLIND_PIG, se=(0, 2, 1), clients=("The Cook", "The Baker"))
    deck = list(range(40, 50))
    state = make([s, seat(VELVET, clients=("The Crooner",))], dice=("food", "food", "food", "", ""), deck=deck,
                 rules=1)
    assert f"val.{cook}" in codes_of(state, 0)  # Food x3 dice + Music from FM + Drink
    new = play(state, {0: f"val.{cook}", 1: "moon"}).state
    q = new.seats[0].queue
    assert [x.kind for x in q] == ["keep", "keep"] and q[0].cards == (40, 41, 42) and q[1].cards == (43, 44, 45)
    new = play(new, {0: "keep.41", 1: "pl.s0"}).state
    new = play(new, {0: "keep.45"}).state
    assert new.seats[0].clients == (C["The Baker"], 41, 45)
    assert set(new.discard) == {40, 42, 43, 44}


def test_double_redraw_keeps_one_before_drawing_again():
    """Rules 2, icon explanation "Client-card icon": a new Client-card icon means two new Clients;
    draw as many cards as card-draw icons, keep one, discard the others, then repeat. The second
    draw is not dealt (nor seen) before the first choice."""
    cook = C["The Cook"]
    s = seat(BLIND_PIG, se=(0, 2, 1), clients=("The Cook", "The Baker"))
    state = make([s, seat(VELVET, clients=("The Crooner",))], dice=("food", "food", "food", "", ""),
                 deck=list(range(40, 50)))
    assert state.rules == G.rules_version == G.setup(1, 2).rules
    step = play(state, {0: f"val.{cook}", 1: "moon"})
    new = step.state
    assert [(q.kind, q.cards) for q in new.seats[0].queue] == [("keep", (40, 41, 42)), ("redraw", ())]
    assert new.deck == tuple(range(43, 50))
    assert [e.params["n"] for e in step.events if e.key == "ms.ev.redraw"] == [3]
    mine = G.view_json(new, 0)
    assert [q["cards"] for q in mine["private"]["queue"]] == [[40, 41, 42], []]  # 3 cards seen, not 6
    assert G.view_json(new, None)["seats"][0]["pending"] == [{"kind": "keep", "n": 3}, {"kind": "redraw", "n": 0}]
    assert G.to_act(new) == frozenset({0, 1}) and codes_of(new, 0) == ("keep.40", "keep.41", "keep.42")
    step = play(new, {0: "keep.41", 1: "pl.s0"})
    new = step.state
    assert [e.key for e in step.events if e.params.get("seat") == 0] == [
        "ms.ev.keep", "ms.ev.redraw", "ms.ev.drew_private"]
    assert [(q.kind, q.cards) for q in new.seats[0].queue] == [("keep", (43, 44, 45))]
    assert set(new.discard) == {40, 42}
    new = play(new, {0: "keep.44"}).state  # (45 is the Fortune Teller: +2 Moon to place)
    assert new.seats[0].clients == (C["The Baker"], 41, 44)
    assert set(new.discard) == {40, 42, 43, 45} and new.phase == "roll"


def _newsboy_table(rules: int) -> MoonshineState:
    """Seat 0 validates the Cook (a new Client-card icon: two redraws); its first draw holds the
    Butcher (+2 Moon). Its Speakeasy has room on the 1-space Drink slot only; the Newsboy in front
    has a 1-space card-draw slot."""
    butcher, newsboy = C["The Butcher"], C["The Newsboy"]
    s = seat(BLIND_PIG, se=(2, 2, 0), clients=("The Cook", "The Newsboy"))
    deck = [butcher, 60, 61, 62, 63, 64, 65, 66]
    state = make([s, seat(VELVET, clients=("The Crooner",))], dice=("food", "food", "drink", "food", ""),
                 deck=deck, rules=rules)
    assert f"val.{C['The Cook']}" in codes_of(state, 0)  # Food x3 (blue die too), Drink, Music from FM
    assert seat_bundle(state.seats[0], "standard")[DRAW] == 3 and newsboy == 57
    return state


def test_plus2_moon_kept_in_the_first_redraw_adds_a_card_draw_icon_before_the_second():
    """Rules 2: the kept Butcher's +2 Moon applies at once; a token placed on the Newsboy covers its
    card-draw slot, so the second draw takes 4 cards instead of 3."""
    butcher, newsboy = C["The Butcher"], C["The Newsboy"]
    new = play(_newsboy_table(2), {0: f"val.{C['The Cook']}", 1: "moon"}).state
    assert [(q.kind, q.cards) for q in new.seats[0].queue] == [("keep", (butcher, 60, 61)), ("redraw", ())]
    new = play(new, {0: f"keep.{butcher}", 1: "pl.s0"}).state
    assert [q.kind for q in new.seats[0].queue] == ["place", "place", "redraw"]  # the gains come first
    assert set(codes_of(new, 0)) == {"pl.s2", f"pl.c{newsboy}"}
    step = play(new, {0: f"pl.c{newsboy}"})
    new = step.state
    t = new.seats[0]
    assert t.se_tokens == (2, 2, 1)  # the second token had a single slot with room: placed at once
    assert seat_bundle(t, "standard")[DRAW] == 4
    assert [(q.kind, q.cards) for q in t.queue] == [("keep", (62, 63, 64, 65))]
    assert [e.params["n"] for e in step.events if e.key == "ms.ev.redraw"] == [4]


def test_rules_1_plus2_moon_comes_after_both_draws():
    """Rules 1 keep the old procedure: both draws of 3 cards are dealt before any choice."""
    butcher = C["The Butcher"]
    new = play(_newsboy_table(1), {0: f"val.{C['The Cook']}", 1: "moon"}).state
    assert [(q.kind, q.cards) for q in new.seats[0].queue] == [("keep", (butcher, 60, 61)), ("keep", (62, 63, 64))]
    new = play(new, {0: f"keep.{butcher}", 1: "pl.s0"}).state
    assert [q.kind for q in new.seats[0].queue] == ["keep", "place", "place"]


def test_second_redraw_may_reshuffle_the_first_draws_discards():
    """Rules 2 with M7: the two cards set aside by the first choice are in the discard pile when
    the deck runs out, so the second draw reshuffles them; with both piles empty nothing more is
    drawn and the round goes on."""
    cook = C["The Cook"]
    s = seat(BLIND_PIG, se=(0, 2, 1), clients=("The Cook", "The Baker"))
    state = make([s, seat(VELVET, clients=("The Crooner",))], dice=("food", "food", "food", "", ""),
                 deck=[40, 41, 42])
    new = play(state, {0: f"val.{cook}", 1: "moon"}).state
    step = play(new, {0: "keep.41", 1: "pl.s0"})
    assert any(e.key == "ms.ev.reshuffle" and e.params == {"n": 2} for e in step.events)
    assert {q.kind: set(q.cards) for q in step.state.seats[0].queue} == {"keep": {40, 42}}
    empty = make([s, seat(VELVET, clients=("The Crooner",))], dice=("food", "food", "food", "", ""), deck=[40])
    new = play(empty, {0: f"val.{cook}", 1: "moon"}).state  # one card: kept without asking
    assert new.seats[0].clients == (C["The Baker"], 40) and not new.seats[0].queue
    new = play(new, {1: "pl.s0"}).state
    assert new.phase == "roll" and new.seats[0].clients == (C["The Baker"], 40)


def test_draw_action_keep_and_replace_discards_the_old_client_and_its_tokens():
    s = seat(BLIND_PIG, se=(0, 0, 0), clients=("The Baker", "The Crooner"), cl=(1, 0))
    state = make([s, seat(VELVET, clients=("The Doorman",))], deck=[C["The Gambler"], C["The Cook"], C["The Regular"], 9])
    new = play(state, {0: "draw", 1: "moon"}).state
    assert set(codes_of(new, 0)) == {f"pick.{C['The Gambler']}", f"pick.{C['The Cook']}",
                                           f"pick.{C['The Regular']}", "pick.none"}
    new = play(new, {0: f"pick.{C['The Cook']}", 1: "pl.s1"}).state
    assert codes_of(new, 0) == (f"rep.{C['The Baker']}", f"rep.{C['The Crooner']}")
    new = play(new, {0: f"rep.{C['The Baker']}"}).state
    assert new.seats[0].clients == (C["The Cook"], C["The Crooner"]) and new.seats[0].cl_tokens == (0, 0)
    assert set(new.discard) == {C["The Gambler"], C["The Regular"], C["The Baker"]}


def test_draw_action_keep_none():
    s = seat(BLIND_PIG, clients=("The Baker", "The Crooner"))
    state = make([s, seat(VELVET, clients=("The Doorman",))], deck=[1, 2, 3, 4])
    new = play(state, {0: "draw", 1: "moon"}).state
    new = play(new, {0: "pick.none", 1: "pl.s1"}).state
    assert new.seats[0].clients == (C["The Baker"], C["The Crooner"]) and set(new.discard) == {1, 2, 3}


def test_plus2_moon_is_applied_when_the_card_is_chosen():
    s = seat(BLIND_PIG, clients=("The Baker", "The Crooner"))
    state = make([s, seat(VELVET, clients=("The Doorman",))], deck=[C["The Butcher"], 2, 3, 4])
    new = play(state, {0: "draw", 1: "moon"}).state
    new = play(new, {0: f"pick.{C['The Butcher']}", 1: "pl.s1"}).state
    new = play(new, {0: f"rep.{C['The Baker']}"}).state
    assert [q.kind for q in new.seats[0].queue] == ["place", "place"]
    new = play(new, {0: "pl.s1"}).state
    new = play(new, {0: "pl.s1"}).state
    assert new.seats[0].se_tokens == (0, 2, 0) and new.phase == "roll"


def test_plus1_minus1_others_lose_at_the_end_of_their_action():
    """M6: the other players each choose which token to lose at the end of their own action; a
    player with no token loses nothing; a single holding is taken without asking."""
    chef = C["The Pastry Chef"]
    a = seat(BLIND_PIG, clients=("The Baker", "The Crooner"))
    b = seat(VELVET, se=(1, 1, 0), clients=("The Doorman",))  # two holdings: must choose
    c = seat(CELLAR, se=(0, 0, 0), clients=("The Bartender",))  # nothing to lose
    d = seat(SILVER, se=(0, 2, 0), clients=("The Card Sharp",))  # one holding
    state = make([a, b, c, d], deck=[chef, 2, 3, 60, 61, 62, 63, 64, 65])
    new = play(state, {0: "draw", 1: "moon", 2: "draw", 3: "draw"}).state
    new = play(new, {0: f"pick.{chef}", 1: "pl.s2", 2: "pick.none", 3: "pick.none"}).state
    new = play(new, {0: f"rep.{C['The Baker']}"}).state
    # seat 0 places its +1; seat 1 must choose which token to lose; 2 lost nothing; 3 lost one
    assert new.seats[3].se_tokens == (0, 1, 0) and new.seats[2].lose == 0
    assert new.seats[1].lose == 1 and G.to_act(new) == frozenset({0, 1})
    assert set(codes_of(new, 1)) == {"lose.s0", "lose.s1", "lose.s2"}
    new = play(new, {0: "pl.s0", 1: "lose.s2"}).state
    assert new.seats[1].se_tokens == (1, 1, 0) and new.seats[0].se_tokens == (1, 0, 0)
    assert new.phase == "roll"


def test_loss_waits_for_the_end_of_the_own_action():
    """Seat 1 picks the Butcher (+2 Moon) while seat 0 picks the Pastry Chef (+1/-1): seat 1 first
    places its two tokens, then chooses the one it loses."""
    chef, butcher = C["The Pastry Chef"], C["The Butcher"]
    a = seat(BLIND_PIG, clients=("The Baker",))  # fewer Clients than icons: the pick is added
    b = seat(VELVET, se=(1, 0, 0), clients=("The Doorman",))
    state = make([a, b], deck=[chef, 2, 3, butcher, 61, 62])
    new = play(state, {0: "draw", 1: "draw"}).state
    new = play(new, {0: f"pick.{chef}", 1: f"pick.{butcher}"}).state
    assert new.seats[1].lose == 1 and [q.kind for q in new.seats[1].queue] == ["place", "place"]
    assert all(c.startswith("pl.") for c in codes_of(new, 1))
    new = play(new, {0: "pl.s0", 1: "pl.s2"}).state
    new = play(new, {1: "pl.s1"}).state
    assert all(c.startswith("lose.") for c in codes_of(new, 1))
    new = play(new, {1: "lose.s1"}).state
    assert new.seats[1].se_tokens == (1, 0, 1) and new.phase == "roll"


def test_deck_reshuffles_the_discard_pile_when_empty():
    """M7: the discard pile becomes the new deck; with both empty the draw takes what there is."""
    s = seat(BLIND_PIG, clients=("The Baker", "The Crooner"))
    state = make([s, seat(VELVET, clients=("The Doorman",))], deck=[5], discard=(6, 7, 8, 9))
    step = play(state, {0: "draw", 1: "moon"})
    assert any(e.key == "ms.ev.reshuffle" and e.params == {"n": 4} for e in step.events)
    cards = step.state.seats[0].queue[0].cards
    assert cards[0] == 5 and set(cards[1:]) <= {6, 7, 8, 9} and len(cards) == 3
    empty = make([s, seat(VELVET, clients=("The Doorman",))], deck=[5], discard=())
    new = play(empty, {0: "draw", 1: "moon"}).state
    assert new.seats[0].queue[0].cards == (5,)
    none = make([s, seat(VELVET, clients=("The Doorman",))], deck=[], discard=())
    new = play(none, {0: "draw", 1: "draw"}).state
    assert new.phase == "roll"  # nothing drawn, nothing to choose


# --- scoring and end -----------------------------------------------------------------------------


def test_majority_colour_example_gives_three_points():
    """Icon explanation: 2 green and 3 purple validated -> the "?" icon gives 3 points."""
    green = [C["The Baker"], C["The Cook"]]
    purple = [C["The Bartender"], C["The Brewer"], C["The Cocktail Queen"]]  # Cocktail Queen has "?"
    base = sum(card_set().clients[c].points for c in green + purple)
    assert points_of(green + purple) == base + 3


def test_second_majority_icon_counts_the_second_colour():
    cards = [C["The Baker"], C["The Cook"], C["The Farmer"],  # green x3, Farmer has "?"
             C["The Bartender"], C["The Cocktail Queen"]]  # purple x2, Cocktail Queen has "?"
    base = sum(card_set().clients[c].points for c in cards)
    assert points_of(cards) == base + 3 + 2


def test_silhouette_scores_its_colour_and_majority_skips_it():
    cards = [C["The Baker"], C["The Cook"], C["The Farmer"], C["The Bartender"]]  # 3 green, 1 purple
    base = sum(card_set().clients[c].points for c in cards)
    green = 0  # COLOURS index of green
    assert points_of(cards, (green,)) == base + 3 + 1  # silhouette 3; "?" counts purple (1)


def test_game_ends_after_the_action_phase_with_tie_breaks():
    """M8: 12 points after the action phase ends the game; ties: Moon tokens, then validated
    Clients, then a shared place."""
    big = ["The Grand Chef", "The Caterer", "The Gourmet"]  # 5 + 4 + 3 = 12
    a = seat(BLIND_PIG, se=(1, 0, 0), clients=("The Baker",), validated=big)
    b = seat(VELVET, se=(1, 0, 0), clients=("The Crooner",), validated=("The Jazz Legend", "The Tap Dancer", "The Saxophonist"))
    c = seat(CELLAR, se=(0, 0, 0), clients=("The Doorman",), validated=("The Prohibition Baron", "The Wine Merchant", "The Gin Maker"))
    state = make([a, b, c], deck=list(range(44, 56)))
    end = play(state, {0: "moon", 1: "moon", 2: "moon"}).state
    end = play(end, {s: codes_of(end, s)[0] for s in G.to_act(end)}).state
    assert end.phase == "over" and G.to_act(end) == frozenset()
    out = G.outcome(end)
    assert out.scores == (12, 12, 12)
    assert out.ranks == (1, 1, 3)  # a and b have 2 tokens, c has 1
    with pytest.raises(IllegalAction):
        play(end, {})
    # validated count breaks a token tie
    a2 = replace(a, validated=a.validated + (C["The Baker"],), clients=())
    b2 = replace(b, validated=b.validated)
    st2 = make([replace(a2, clients=(C["The Crooner"],)), b2], deck=list(range(44, 56)))
    st2 = replace(st2, seats=(replace(st2.seats[0], clients=(C["The Cook"],)), st2.seats[1]))
    end2 = play(st2, {0: "moon", 1: "moon"}).state
    end2 = play(end2, {s: codes_of(end2, s)[0] for s in G.to_act(end2)}).state
    assert G.outcome(end2).ranks == (1, 2)


def test_no_end_below_the_target():
    a = seat(BLIND_PIG, clients=("The Baker",), validated=("The Grand Chef", "The Caterer"))
    state = make([a, seat(VELVET, clients=("The Crooner",))], deck=list(range(44, 56)))
    new = play(state, {0: "moon", 1: "moon"}).state
    new = play(new, {s: codes_of(new, s)[0] for s in G.to_act(new)}).state
    assert new.phase == "roll" and G.outcome(new) is None


# --- Regular variant ------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_regular_draft_sizes_by_position(players):
    state = G.setup(99, players, {"variant": "regular"})
    assert state.phase == "draft" and state.target == 15
    for s, seat_state in enumerate(state.seats):
        pos = (s - state.first) % players
        assert len(seat_state.queue[0].cards) == DRAFT_SIZES[pos]
        assert seat_state.queue[0].n == 2
    assert len(state.deck) == 70 - sum(DRAFT_SIZES[:players])
    codes = {s: codes_of(state, s)[0] for s in range(players)}
    new = play(state, codes).state
    assert new.phase == "setup" and all(len(s.clients) == 2 for s in new.seats)
    assert len(new.discard) == sum(DRAFT_SIZES[:players]) - 2 * players


def test_regular_instants_after_setup_gains_then_losses():
    butcher, chef = C["The Butcher"], C["The Pastry Chef"]
    a = seat(BLIND_PIG, queue=(FollowUp(kind="draft", cards=(butcher, chef, 0, 1), n=2),))
    b = seat(VELVET, queue=(FollowUp(kind="draft", cards=(14, 15, 16, 17, 18), n=2),))
    state = make([a, b], phase="draft", variant="regular", round=0)
    state = play(state, {0: f"draft.{butcher}.{chef}", 1: "draft.14.15"}).state
    assert state.phase == "setup"
    state = play(state, {0: "pl.s0", 1: "pl.s0"}).state
    assert state.phase == "instants"
    assert [q.kind for q in state.seats[0].queue] == ["place", "place", "place"]  # +2 and +1
    # seat 1 has no gain to place: its only token is lost at once (a single holding)
    assert state.seats[1].lose == 0 and state.seats[1].se_tokens == (0, 0, 0)
    state = play(state, {0: "pl.s1"}).state
    state = play(state, {0: "pl.s1"}).state  # the last token has one place left: automatic
    assert state.phase == "roll" and state.round == 1 and tokens(state.seats[0]) == 4
    assert state.seats[0].se_tokens == (1, 2, 1)  # Regular Blind Pig: [1 orange][2 any][1 music]


def test_regular_goal_is_15_points():
    state = G.setup(3, 3, {"variant": "regular"})
    assert state.target == 15
    assert G.view(state, None).target == 15


# --- codes, views, hidden information -----------------------------------------------------------


@pytest.mark.parametrize("code", ["", "val", "val.", "val.1234", "rr", "rr.3", "rr.0.0", "dis.s0d", "dis.x1a",
                                  "draft.1.1", "pl.s3", "lose.x", "keep.none", "pick.1.2", "qqq"])
def test_malformed_codes_are_refused(code):
    with pytest.raises(IllegalAction):
        canonical_code(code)


def test_codes_are_canonical():
    assert canonical_code("rr.b.0") == "rr.0.b"
    assert canonical_code("draft.5.12") == "draft.12.5"
    assert canonical_code("val.07") == "val.7"
    assert canonical_code("dis.s1b.c12a") == "dis.c12a.s1a"


def test_views_hide_other_seats_offers_and_the_deck():
    s0 = seat(BLIND_PIG, clients=("The Baker",), queue=(FollowUp(kind="keep", cards=(40, 41, 42)),))
    s1 = seat(VELVET, clients=("The Crooner",), queue=(FollowUp(kind="pick", cards=(43, 44, 45)),))
    state = make([s0, s1], phase="resolve")
    pub = G.view_json(state, None)
    text = json.dumps(pub)
    assert "private" not in pub and "deck_order" not in text
    assert pub["seats"][0]["pending"] == [{"kind": "keep", "n": 3}]
    mine = G.view_json(state, 0)
    assert mine["private"]["queue"][0]["cards"] == [40, 41, 42]
    assert "43" not in json.dumps(mine["private"])
    for seat_ in (None, 0, 1):
        for salt in (1, 2, 3):
            variant = G.hidden_variant(state, seat_, salt)
            assert G.view(variant, seat_) == G.view(state, seat_)
    assert G.hidden_variant(state, 0, 1).seats[1].queue[0].cards != (43, 44, 45) or \
        G.hidden_variant(state, 0, 2).seats[1].queue[0].cards != (43, 44, 45)


def test_state_round_trips_through_json():
    state = G.setup(5, 4, {"variant": "regular"})
    assert G.load_state(json.loads(json.dumps(G.dump_state(state)))) == state


def _next_roll(speakeasy: int, die_tokens: int, rules: int, variant: str = "standard", slot: int = 1) -> tuple[str, ...]:
    """The dice of the next roll when seat 1 (the next active player) holds ``speakeasy`` with
    ``die_tokens`` tokens on its die slot (upper slot ``slot``: the second on the Standard sides)."""
    s0 = seat(BLIND_PIG, clients=("The Baker",), queue=(FollowUp(kind="keep", cards=(C["The Cook"], C["The Pianist"])),))
    s1 = seat(speakeasy, se=tuple(die_tokens if k == slot else 0 for k in range(3)), clients=("The Crooner", "The Flapper"))
    new = play(make([s0, s1], phase="resolve", active=0, rules=rules, variant=variant), {0: f"keep.{C['The Cook']}"}).state
    assert new.active == 1 and new.phase == "roll"
    return new.dice


def test_rules_4_moonlit_garage_needs_three_tokens_for_the_blue_die():
    """Rules 4 (docs/rules/moonshine.md, "The Speakeasies"): The Moonlit Garage's blue-die slot has
    three spaces (two in rules 3): two tokens there no longer roll the blue die, three do."""
    garage3, garage4 = 5 + 4, 10 + 4  # global Speakeasy ids: set 1 (rules 3), set 2 (rules 4)

    assert _next_roll(garage3, 2, 3)[3] != ""  # rules 3: two tokens give the blue die
    assert _next_roll(garage4, 2, 4)[3] == ""
    assert _next_roll(garage4, 3, 4)[3] != ""


def test_rules_5_hush_room_needs_three_tokens_for_the_orange_die():
    """Rules 5 (docs/rules/moonshine.md, "The Speakeasies"): The Hush Room's orange-die slot has
    three spaces (two in rules 4): two tokens there no longer roll the orange die, three do."""
    hush4, hush5 = 10 + 3, 15 + 3  # global Speakeasy ids: set 2 (rules 4), set 3 (rules 5)

    assert _next_roll(hush4, 2, 4)[4] != ""  # dice[4]: the orange die
    assert _next_roll(hush5, 2, 5)[4] == "" and _next_roll(hush5, 3, 5)[4] != ""


def test_rules_6_standard_moonlit_garage_rolls_the_blue_die_with_two_tokens():
    """Rules 6 (docs/rules/moonshine.md, "The Speakeasies"): the Standard Moonlit Garage's
    blue-die slot has two spaces again (three in rules 4 and 5): two tokens roll the blue die."""
    garage5, garage6 = 15 + 4, 20 + 4  # global Speakeasy ids: set 3 (rules 5), set 4 (rules 6)

    assert _next_roll(garage5, 2, 5)[3] == ""  # dice[3]: the blue die
    assert _next_roll(garage6, 2, 6)[3] != "" and _next_roll(garage6, 1, 6)[3] == ""


def test_rules_7_regular_copper_still_rolls_the_orange_die_with_one_token():
    """Rules 7 (docs/rules/moonshine.md, "The Speakeasies"): the Regular Copper Still's orange-die
    slot (its first upper slot) has one space (two in rules 5 and 6): one token rolls the orange die."""
    still6, still7 = 20 + 2, 25 + 2  # global Speakeasy ids: set 4 (rules 6), set 5 (rules 7)

    def orange(still: int, tokens: int, rules: int) -> str:
        return _next_roll(still, tokens, rules, variant="regular", slot=0)[4]  # dice[4]: the orange die

    assert orange(still6, 1, 6) == "" and orange(still6, 2, 6) != ""
    assert orange(still7, 1, 7) != "" and orange(still7, 0, 7) == ""


def test_rules_8_regular_hush_room_one_space_slot_gives_food_or_music():
    """Rules 8 (docs/rules/moonshine.md, "The Speakeasies"): the Regular Hush Room's one-space slot
    (its second upper slot) gives Food or Music (Food or Drink in rules 3 to 7). With one token
    there and three white dice, The Baker (3 Food, 1 Drink) is paid under rules 7 only and The
    Distiller (1 Music, 3 Drink) under rules 8 only."""
    hush7, hush8 = 25 + 3, 30 + 3  # global Speakeasy ids: set 5 (rules 7), set 6 (rules 8)
    baker, distiller = C["The Baker"], C["The Distiller"]

    def payable(hush: int, rules: int, white: str, tokens: int = 1) -> set[int]:
        me = seat(hush, se=(0, tokens, 0), clients=("The Baker", "The Distiller"))
        state = make([seat(BLIND_PIG, clients=("The Crooner", "The Flapper")), me],
                     dice=(white, white, white, "", ""), variant="regular", rules=rules)
        return {c for c in (baker, distiller) if f"val.{c}" in codes_of(state, 1)}

    assert payable(hush7, 7, "food") == {baker} and payable(hush7, 7, "drink") == set()
    assert payable(hush8, 8, "food") == set() and payable(hush8, 8, "drink") == {distiller}
    assert payable(hush8, 8, "drink", tokens=0) == set()  # the slot works only with its token


@pytest.mark.parametrize("rules", range(1, Moonshine.rules_version + 1))
def test_every_rules_version_plays_whole_games_of_arbitrary_legal_moves(rules):
    """Games of both variants and every seat count, with a mix of the baseline AI's moves and
    arbitrary legal ones (instants, discards, reshuffles, losses), reach the end (M8 or the
    round cap) with every state a stored table can round-trip."""
    from engine.moonshine.phases import deal

    for variant in ("standard", "regular"):
        for players in range(2, 6):
            state, k = deal(players * 11 + rules, players, variant, rules), 0
            while acting := G.to_act(state):
                actions = {}
                for s in sorted(acting):
                    legal = G.legal_actions(state, s)
                    actions[s] = G.ai_action(state, s) if (k + s) % 3 else legal[k % len(legal)]
                k += 1
                state = G.apply(state, actions).state
                if k % 5 == 0:
                    assert G.load_state(json.loads(json.dumps(G.dump_state(state)))) == state
            assert state.phase == "over" and G.outcome(state) is not None
