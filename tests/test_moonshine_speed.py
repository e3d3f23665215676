"""Moonshine's hot-path shortcuts give exactly what the plain forms give (issue 11, part 1).

The seeded-game digests (``tests/test_digests.py``, every rules version) pin whole games; these
tests pin each shortcut on its own, so that a failure names it: the inlined reshuffle, the roll
step without a ``Work``, and the bundle and room tables of the compiled Speakeasy sides. And the
chance of rules 5 (dice and reshuffles from ``engine.chance.hashed_draws``) against its definition.
"""

from __future__ import annotations

import random
from itertools import product

import pytest

from engine.chance import hashed_draws, rng_draws
from engine.fast import replace_state
from engine.moonshine import Moonshine, Reroll, Stop, phases
from engine.moonshine.dice import DIE_FACES, DIE_NAMES, hashed_shuffle
from engine.moonshine.icons import CLIENT_INFOS, NB, SE_KEYS, SIDE_INFOS, bundle_of
from engine.moonshine.legal import legal_actions
from engine.moonshine.work import Work, _shuffle

GAME = Moonshine()


@pytest.mark.parametrize("size", [0, 1, 2, 3, 17, 64, 140])
def test_the_inlined_shuffle_draws_as_random_shuffle(size):
    for seed in range(5):
        mine, theirs = list(range(size)), list(range(size))
        _shuffle(random.Random(f"{seed}:shuffle:{size}"), mine)
        random.Random(f"{seed}:shuffle:{size}").shuffle(theirs)
        assert mine == theirs


def _slow_roll(state, action, faces=None):
    """The general roll path (a Work, roll_step, settle), as apply ran it before the shortcut."""
    w = Work(state)
    phases.roll_step(w, action, faces)
    if not phases.settled_roll(w):
        phases.settle(w)
    return w.freeze(), [(e.key, e.params, e.audience) for e in w.events]


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


def test_the_roll_shortcut_gives_the_general_paths_step():
    seen = set()
    for state in _roll_states():
        for action in legal_actions(state, state.active):
            fast = phases.fast_roll(state, action)
            if isinstance(fast, tuple):  # a Moon-token gain: the general path with these faces
                seen.add("gain")
                continue
            want = _slow_roll(state, action)
            if fast is None:
                seen.add("stop-gain")
                continue
            seen.add("fast")
            assert fast.state == want[0]
            assert [(e.key, e.params, e.audience) for e in fast.events] == want[1]
            step = GAME.apply(state, {state.active: action})
            assert step.state == want[0]
    assert {"fast", "gain"} <= seen


def test_a_reroll_with_a_gain_draws_the_dice_once():
    for state in _roll_states():
        for action in legal_actions(state, state.active):
            if isinstance(action, Reroll):
                fast = phases.fast_roll(state, action)
                if isinstance(fast, tuple):
                    assert GAME.apply(state, {state.active: action}).state == _slow_roll(state, action)[0]
                    assert _slow_roll(state, action, fast) == _slow_roll(state, action)
                    return
    pytest.fail("no reroll with a Moon-token gain in these games")


def test_a_stop_is_applied_as_before():
    for state in _roll_states()[:30]:
        assert GAME.apply(state, {state.active: Stop()}).state == _slow_roll(state, Stop())[0]


def test_work_copies_seats_on_write():
    state = GAME.setup(5, 3, {})
    b = Work(state, False)
    assert b.work == [None] * 3
    assert b.copy(1).clients == state.seats[1].clients and b.work[1] is not None and b.peek(1) is b.work[1]
    assert b.freeze().seats[1] == state.seats[1]


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
                assert side.room_by_tokens.get(tokens, rooms) == rooms


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
    w = Work(state)
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
    from engine.moonshine.rules import _run

    state, seen = GAME.setup(12, 3, {"variant": "regular"}), set()
    while GAME.to_act(state) and len(seen) < 200:
        acts = {s: GAME.ai_action(state, s) for s in GAME.to_act(state)}
        step = GAME.apply(state, acts)
        assert isinstance(step, LazyStep)
        if state.phase != "roll":  # (a roll without a gain is fast_roll's, pinned above)
            quiet = _run(state, acts, None, False)
            assert quiet.events == [] and quiet.freeze() == step.state
            assert step.events == tuple(_run(state, acts, None, True).events)
        assert pickle.loads(pickle.dumps(step)) == step
        seen.add(state.version)
        state = step.state


def test_frozen_work_seats_are_seat_states_and_a_second_freeze_gives_the_same_state():
    from engine.moonshine.state import SeatState

    state = GAME.setup(5, 3, {})
    w = Work(state, False)
    w.copy(0).lose += 1
    first = w.freeze()
    assert type(first.seats[0]) is SeatState and first.seats[0].lose == state.seats[0].lose + 1
    assert first.seats[1] is state.seats[1]  # untouched seats are shared
    assert w.freeze() == first


def test_the_bundles_read_back_from_the_action_phase_legal_actions_are_the_seats_bundles():
    from engine.moonshine.state import ACTION_BUNDLES, seat_bundle

    state, checked = GAME.setup(9, 4, {}), 0
    while GAME.to_act(state) and checked < 20:
        if state.phase == "action":
            for seat in range(state.players):
                legal_actions(state, seat)
            assert ACTION_BUNDLES[0][0] is state
            w = Work(state, False)
            for seat in range(state.players):
                assert w.bundle(seat) == seat_bundle(state.seats[seat], state.variant)
            checked += 1
        state = GAME.apply(state, {s: GAME.ai_action(state, s) for s in GAME.to_act(state)}).state
    assert checked >= 10
