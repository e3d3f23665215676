"""Moonshine's representation for speed gives exactly what the plain forms give: the inlined
shuffle, the roll made on the frozen state, the work that becomes the next state in place, the
bundle and room tables of the compiled Speakeasy sides, the events made when read. And the chance
of rules 5 (dice and reshuffles from ``engine.chance.hashed_draws``) against its definition.

The seeded-game digests (``tests/test_digests.py`` over ``tests/data_speed/moonshine-r*.json``) pin whole games of every rules
version; these tests name the piece that breaks.
"""

from __future__ import annotations

import dataclasses
import random
from itertools import product

import pytest

from engine.chance import hashed_draws, rng_draws
from engine.fast import replace_state
from engine.moonshine import Moonshine, Reroll, Stop, phases
from engine.moonshine.dice import DIE_FACES, DIE_NAMES, hashed_shuffle
from engine.moonshine.icons import CLIENT_INFOS, NB, SE_KEYS, SIDE_INFOS, bundle_of
from engine.moonshine.legal import legal_actions
from engine.moonshine.state import MoonshineState, SeatState, seat_bundle
from engine.moonshine.work import LoggedWork, Work, WorkSeat, rng_shuffle, work_on

GAME = Moonshine()


@pytest.mark.parametrize("size", [0, 1, 2, 3, 17, 64, 140])
def test_the_inlined_shuffle_draws_as_random_shuffle(size):
    for seed in range(5):
        mine, theirs = list(range(size)), list(range(size))
        rng_shuffle(random.Random(f"{seed}:shuffle:{size}"), mine)
        random.Random(f"{seed}:shuffle:{size}").shuffle(theirs)
        assert mine == theirs


def _roll_states():
    """Roll-phase states of several seeded games: with rerolls left, the last reroll, a Moon
    face on the blue or orange die."""
    out = []
    for seed, players, variant in ((3, 2, "standard"), (8, 3, "regular"), (21, 4, "standard")):
        state = GAME.setup(seed, players, {"variant": variant})
        while GAME.to_act(state) and len(out) < 40 * seed:
            if state.phase == "roll":
                out.append(state)
            state = GAME.apply(state, {s: GAME.ai_action(state, s) for s in GAME.to_act(state)}).state
    return out


def _logged(step):
    return [(e.key, e.params, e.audience) for e in step.events]


def test_a_reroll_with_its_drawn_faces_forced_is_the_same_step():
    """The faces a reroll draws, forced (``resolve_reroll``), give the same state and events:
    without a gain (on the frozen state), and with the Moon-token gains (through a work)."""
    seen = set()
    for state in _roll_states():
        for action in legal_actions(state, state.active):
            if not isinstance(action, Reroll):
                continue
            step = GAME.apply(state, {state.active: action})
            which = [DIE_NAMES.index(d) for d in action.dice]
            forced = GAME.resolve_reroll(state, action, [step.state.dice[i] for i in which])
            assert forced.state == step.state and _logged(forced) == _logged(step)
            seen.add(step.state.phase)
    assert {"roll", "action", "gain"} <= seen


def test_a_roll_without_a_gain_ends_in_the_action_phase_with_the_dice_logged():
    done = 0
    for state in _roll_states():
        if state.dice[3] == "moon" or state.dice[4] == "moon":
            continue
        step = GAME.apply(state, {state.active: Stop()})
        assert step.state == dataclasses.replace(state, version=state.version + 1, phase="action", rerolls=0)
        assert _logged(step) == [("ms.ev.dice", {"seat": state.active, "dice": list(state.dice)}, None)]
        done += 1
    assert done > 10


def test_a_work_copies_a_seat_on_its_first_change_and_becomes_the_next_state():
    state = GAME.setup(5, 3, {})
    w = work_on(state)
    assert type(w) is Work and w.seats == list(state.seats) and w.version == state.version + 1
    s = w.own(1)
    assert type(s) is WorkSeat and w.own(1) is s and w.seats[0] is state.seats[0]
    s.lose += 1
    frozen = w.freeze()
    assert frozen is w and type(frozen) is MoonshineState and type(frozen.seats[1]) is SeatState
    assert frozen.seats[1].lose == state.seats[1].lose + 1 and frozen.seats[0] is state.seats[0]
    assert work_on(state).freeze() == dataclasses.replace(state, version=state.version + 1)  # every field
    plain, logged = work_on(state), work_on(state, [])
    plain.own(0).lose += 1
    logged.own(0).lose += 1
    assert type(logged) is LoggedWork and logged.freeze() == plain.freeze()


def _slow_bundle(side, se_tokens, clients, cl_tokens, validated):
    b = list(side.base)
    for (spaces, bundle), t in zip(side.slots, se_tokens, strict=True):
        if t >= spaces:
            b = [x + y for x, y in zip(b, bundle, strict=True)]
    for cid, t in zip(clients, cl_tokens, strict=True):
        ci = CLIENT_INFOS[cid]
        if ci.spaces and t >= ci.spaces:
            b = [x + y for x, y in zip(b, ci.slot, strict=True)]
    for cid in validated:
        b = [x + y for x, y in zip(b, CLIENT_INFOS[cid].lower, strict=True)]
    return tuple(b)


def test_bundles_and_rooms_from_the_tables_match_the_slot_by_slot_sums():
    rng = random.Random(11)
    for variant, sides in SIDE_INFOS.items():
        for side in sides:
            spaces = [sp for sp, _ in side.slots]
            for tokens in product(*(range(sp + 2) for sp in spaces)):  # one beyond: off the tables
                ids = rng.sample(range(len(CLIENT_INFOS)), 5)
                clients, validated = ids[:2], ids[2:]
                cl = [rng.randrange(CLIENT_INFOS[c].spaces + 1) for c in clients]
                got = bundle_of(side, tokens, clients, cl, validated)
                assert len(got) == NB and got == _slow_bundle(side, tokens, clients, cl, validated), (variant, tokens)
                assert bundle_of(side, list(tokens), [], [], []) == _slow_bundle(side, tokens, (), (), ())
                rooms = tuple(SE_KEYS[i] for i, (sp, t) in enumerate(zip(spaces, tokens, strict=True)) if t < sp)
                assert side.room_by_tokens.get(tokens, rooms) == rooms == side.rooms(tokens)


# --- rules 5: dice and reshuffles from engine.chance.hashed_draws ---------------------------------


class _Chance:
    def __init__(self, seed, version):
        self.seed, self.version = seed, version


def _roll_state(rules):
    """A roll-phase state of a seeded AI game under ``rules``, with every die rolled once."""
    state = phases.deal(7, 3, "standard", rules)
    while GAME.to_act(state):
        if state.phase == "roll" and state.rerolls:
            return state
        state = GAME.apply(state, {s: GAME.ai_action(state, s) for s in GAME.to_act(state)}).state
    pytest.fail("no roll with a reroll left")


@pytest.mark.parametrize("rules", [4, 5])
def test_a_reroll_draws_the_dice_of_its_rules_version(rules):
    state = _roll_state(rules)
    dice = tuple(sorted(DIE_NAMES[i] for i in range(5) if state.dice[i]))
    which = [DIE_NAMES.index(d) for d in dice]
    chance = _Chance(state.seed, state.version + 1)
    values = (hashed_draws if rules >= 5 else rng_draws)(chance, "reroll", len(which), 6)
    new = GAME.apply(state, {state.active: Reroll(dice)}).state
    assert [new.dice[i] for i in which] == [DIE_FACES[i][v] for i, v in zip(which, values, strict=True)]


def _reshuffled(rules):
    state = GAME.setup(3, 3, {})
    state = replace_state(state, rules=rules, deck=(), discard=(9, 4, 7, 1, 30, 22, 15))
    w = work_on(state)
    return w.draw(3) + list(w.deck), w


def test_rules_5_reshuffle_is_the_hashed_shuffle_of_the_sorted_discard_pile():
    got, w = _reshuffled(5)
    want = sorted(got)
    hashed_shuffle(w, "shuffle:0", want)
    assert got == want and w.shuffles == 1 and w.discard == ()
    old, _ = _reshuffled(4)
    pile = sorted(old)
    random.Random(f"{w.seed}:shuffle:0").shuffle(pile)
    assert old == pile


def _reference_shuffle(chance, salt, x):
    """The docstring of ``hashed_shuffle`` read literally, from one long stream of 7-bit values."""
    stream = iter(hashed_draws(chance, salt, 4096, 128))
    for i in range(len(x) - 1, 0, -1):
        j = next(stream) & ((1 << i.bit_length()) - 1)
        while j > i:
            j = next(stream) & ((1 << i.bit_length()) - 1)
        x[i], x[j] = x[j], x[i]


@pytest.mark.parametrize("size", [0, 1, 2, 5, 64, 70, 128])
def test_hashed_shuffle_is_its_documented_permutation(size):
    for seed in range(4):
        mine, ref = list(range(size)), list(range(size))
        hashed_shuffle(_Chance(seed, 9), "shuffle:2", mine)
        _reference_shuffle(_Chance(seed, 9), "shuffle:2", ref)
        assert mine == ref and sorted(mine) == list(range(size))
    with pytest.raises(ValueError):
        hashed_shuffle(_Chance(1, 1), "x", list(range(129)))


def test_hashed_shuffle_reads_on_when_its_first_values_run_out(monkeypatch):
    import engine.moonshine.dice as dice

    want = list(range(70))
    hashed_shuffle(_Chance(5, 2), "s", want)
    short = lambda chance, salt, n, below: hashed_draws(chance, salt, n, below)[: n // 3]  # noqa: E731
    monkeypatch.setattr(dice, "hashed_draws", short)
    got = list(range(70))
    hashed_shuffle(_Chance(5, 2), "s", got)
    assert got == want


def test_events_are_made_when_read_and_are_those_of_the_logged_step():
    import pickle

    from engine.fast import LazyStep

    state, seen = GAME.setup(12, 3, {"variant": "regular"}), set()
    while GAME.to_act(state) and len(seen) < 200:
        acts = {s: GAME.ai_action(state, s) for s in GAME.to_act(state)}
        step = GAME.apply(state, acts)
        assert isinstance(step, LazyStep)
        events: list = []
        assert phases.step(state, acts, None, None) == step.state == phases.step(state, acts, None, events)
        assert step.events == tuple(events)
        assert pickle.loads(pickle.dumps(step)) == step
        seen.add(state.phase)
        state = step.state
    assert {"draft", "roll", "action", "resolve"} <= seen


def test_a_works_bundles_are_the_seats_bundles():
    state, checked = GAME.setup(9, 4, {}), 0
    while GAME.to_act(state) and checked < 20:
        w = work_on(state)
        for seat in range(state.players):
            assert w.bundle(seat) == seat_bundle(state.seats[seat], state.variant)
        checked += 1
        state = GAME.apply(state, {s: GAME.ai_action(state, s) for s in GAME.to_act(state)}).state
    assert checked == 20
