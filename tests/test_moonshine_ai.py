"""Moonshine baseline AI: legal, deterministic, sensible; and a small balance smoke test (the full
figures are in docs/balance.md)."""

from __future__ import annotations

import random

from engine.moonshine import FollowUp, Moonshine
from engine.moonshine.ai import choose as choose_action
from engine.moonshine.sim import simulate
from tests.test_moonshine import BLIND_PIG, CELLAR, VELVET, C, codes_of, make, seat

G = Moonshine()


def choose(state, seat_: int) -> str:
    """The AI's choice as a code."""
    return G.encode(choose_action(state, seat_))


def test_ai_is_legal_and_deterministic_over_games():
    for players, variant in ((2, "regular"), (5, "standard")):
        state = G.setup(77 + players, players, {"variant": variant})
        while G.to_act(state):
            acts = {}
            for s in sorted(G.to_act(state)):
                a = G.ai_action(state, s)
                assert a in G.legal_actions(state, s) and G.ai_action(state, s) == a
                acts[s] = a
            state = G.apply(state, acts).state
        assert G.outcome(state) is not None


def test_ai_validates_the_best_affordable_client():
    # dice Food Food Food + Food-or-Music bonus: both the Baker (0 pts) and the Cook (0 pts, new
    # Client icon) are affordable; the Cook's Client-card icon is worth more
    s = seat(BLIND_PIG, se=(0, 2, 1), clients=("The Baker", "The Cook"))
    state = make([s, seat(VELVET, clients=("The Crooner",))], dice=("food", "food", "food", "", ""))
    legal = codes_of(state, 0)
    assert {f"val.{C['The Baker']}", f"val.{C['The Cook']}"} <= set(legal)
    assert choose(state, 0) == f"val.{C['The Cook']}"
    # a card with points beats a 0-point one when both are affordable: Waiter (1 pt) over Baker
    s2 = seat(BLIND_PIG, se=(0, 2, 1), clients=("The Baker", "The Waiter"), validated=("The Card Sharp",))
    st2 = make([s2, seat(VELVET, clients=("The Crooner",))], dice=("food", "food", "music", "", ""))
    assert {f"val.{C['The Waiter']}", f"val.{C['The Baker']}"} <= set(codes_of(st2, 0))
    assert choose(st2, 0) == f"val.{C['The Waiter']}"


def test_ai_places_tokens_where_they_unlock_what_it_needs():
    # the Bartender and the Doorman need Drink: the 1-space Drink bonus of the Blind Pig is best
    s = seat(BLIND_PIG, clients=("The Bartender", "The Doorman"), queue=(FollowUp(kind="place"),))
    state = make([s, seat(VELVET, clients=("The Crooner",))], phase="setup", round=0)
    assert choose(state, 0) == "pl.s2"
    # with Music-hungry Clients, the Velvet Door's 1-space Music bonus
    s = seat(VELVET, clients=("The Crooner", "The Flapper"), queue=(FollowUp(kind="place"),))
    state = make([s, seat(BLIND_PIG, clients=("The Baker",))], phase="setup", round=0)
    assert choose(state, 0) == "pl.s2"


def test_ai_takes_a_token_when_its_client_needs_tokens():
    s = seat(CELLAR, clients=("The Night Owl", "The Food Critic"))  # both cost 2 Moon tokens, none held
    state = make([s, seat(VELVET, clients=("The Crooner",))], dice=("drink", "drink", "drink", "", ""))
    assert choose(state, 0) == "moon"


def test_ai_rerolls_only_useless_dice_and_stops_when_it_can_validate():
    # needs Food x3, Drink (Baker); has Food, Food, Music: reroll the Music die only
    s = seat(VELVET, clients=("The Baker",), validated=("The Bartender",))  # Bartender: lower Drink
    state = make([s, seat(BLIND_PIG, clients=("The Crooner",))], phase="roll", dice=("food", "food", "music", "", ""),
                 rerolls=1)
    assert choose(state, 0) == "rr.2"
    done = make([s, seat(BLIND_PIG, clients=("The Crooner",))], phase="roll", dice=("food", "food", "food", "", ""),
                rerolls=1)
    assert choose(done, 0) == "stop"


def test_ai_drafts_cards_it_can_soon_pay_for():
    cheap = (C["The Baker"], C["The Crooner"])
    dear = (C["The Grand Chef"], C["The High Roller"], C["The Jazz Legend"], C["The Prohibition Baron"])
    s = seat(BLIND_PIG, queue=(FollowUp(kind="draft", cards=dear + cheap, n=2),))
    state = make([s, seat(VELVET, queue=(FollowUp(kind="draft", cards=(40, 41, 42, 43), n=2),))], phase="draft",
                 variant="regular", round=0)
    code = choose(state, 0)
    kept = {int(x) for x in code.split(".")[1:]}
    assert kept == set(cheap)


def test_ai_beats_random_players():
    wins = 0
    for seed in range(12):
        rng = random.Random(seed)
        state = G.setup(seed, 4, {})
        ai = seed % 4
        while G.to_act(state):
            state = G.apply(state, {s: G.ai_action(state, s) if s == ai else rng.choice(G.legal_actions(state, s))
                                    for s in G.to_act(state)}).state
        wins += ai in G.outcome(state).winners
    assert wins >= 10


def test_balance_smoke_four_players():
    rep = simulate(40, 4, "standard", seed=500)
    assert 10 <= rep.median_rounds <= 25
    assert rep.capped == 0
    assert all(v > 0 for v in rep.wins_by_position)


def test_the_ai_reads_the_rules_through_the_helper_modules_never_the_game():
    """The AI (and whatever it imports) never imports the Game module: the Game imports the AI for
    ``ai_action``, so the other way round would be a cycle."""
    import grimp

    graph = grimp.build_graph("engine", cache_dir=None)
    assert not graph.chain_exists(importer="engine.moonshine.ai", imported="engine.moonshine.rules")
