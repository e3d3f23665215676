"""Gang of Dice's fast paths give what the plain code gives: the compiled card
rules, the inlined dice derivation, and the steps whose events are built when read."""

from __future__ import annotations

import itertools
import pickle
import random

import pytest

from engine.chance import hashed_draws
from engine.core import Step
from engine.gang_of_dice import CARDS, GangOfDice, apply_with_faces, roll_faces, scripted_setup
from engine.gang_of_dice.actions import Reroll
from engine.gang_of_dice.cards import compiled_hit

GAME = GangOfDice()


@pytest.mark.parametrize("card", sorted(CARDS))
def test_compiled_hits_answer_as_the_rules(card: str) -> None:
    rule = CARDS[card].rule
    hit = compiled_hit(rule)
    for c in itertools.product(range(3), repeat=6):
        assert bool(hit(c)) is rule.hit(c), (card, c)
    for c in ((9, 0, 0, 0, 0, 0), (0, 7, 0, 0, 0, 0), (0, 0, 0, 0, 0, 8), (3, 4, 5, 6, 7, 8)):
        assert bool(hit(c)) is rule.hit(c), (card, c)


def test_roll_faces_are_hashed_draws_for_every_roll_size() -> None:
    state = scripted_setup(3, seed=123456789)
    for version in (0, 5, 77):
        at = GAME.load_state({**GAME.dump_state(state), "version": version})
        for n in range(1, 140):
            assert bytes(roll_faces(at, n)) == hashed_draws(at, "roll", n, 6)


def test_steps_events_are_those_of_the_scripted_step() -> None:
    """A random playout: every apply equals apply_with_faces with the same dice (events, state,
    equality both ways), and pickles as a plain Step."""
    rng = random.Random(5)
    state = GAME.setup(11, 3)
    checked = 0
    while GAME.to_act(state):
        seat = state.current
        assert seat is not None
        action = rng.choice(GAME.legal_actions(state, seat))
        n = action.dice if hasattr(action, "dice") else sum(state.marks) if isinstance(action, Reroll) else 0
        faces = list(roll_faces(state, n)) if n else None
        step = GAME.apply(state, {seat: action})
        scripted = apply_with_faces(state, action, faces)
        assert step.state == scripted.state
        if checked < 60:  # the equality and pickling checks on the first steps (kept quick)
            assert step == scripted and scripted == step
            copy = pickle.loads(pickle.dumps(step))
            assert type(copy) is Step and copy == scripted
        assert step.events == scripted.events
        assert step.events is step.events  # built once
        checked += 1
        state = step.state
    assert checked > 30


def test_setup_draws_are_those_of_random_shuffle_and_randrange() -> None:
    for seed in [*range(300), 2**61 + 12345, 987654321987654321]:
        for players in (2, 3, 4):
            rng = random.Random(f"gang-of-dice:{seed}:setup")
            deck = list(CARDS)
            rng.shuffle(deck)
            state = GAME.setup(seed, players)
            assert state.deck == tuple(deck)
            assert state.first == rng.randrange(players)


def test_events_read_late_show_the_dice_rolled_even_if_roll_faces_is_patched(monkeypatch) -> None:
    """The step keeps its dice: a patched, stateful ``roll_faces`` is not asked again."""
    from engine.gang_of_dice import rules

    script = [(5, 5, 4), (1, 2, 3)]
    monkeypatch.setattr(rules, "roll_faces", lambda state, n: script.pop(0))
    state = scripted_setup(2, cards=["sum13"])
    step = GAME.apply(state, {0: GAME.decode("c3")})
    assert step.state.faces[0] == (4, 5, 5) and script == [(1, 2, 3)]
    roll = [e for e in step.events if e.key == "god.roll"]
    assert roll[0].params["faces"] == [4, 5, 5] and script == [(1, 2, 3)]
