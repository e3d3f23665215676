"""Moonshine's hot-path shortcuts give exactly what the plain forms give (issue 11, part 1).

The seeded-game digests (``tests/test_speed_digests_moonshine_shop.py``, and
``tests/test_speed_digests_moonshine_r3.py`` for rules 3) pin whole games; these tests pin each
shortcut on its own, so that a failure names it: the inlined reshuffle, the roll step without a
``Work``, ``Work.of``, and the bundle and room tables of the compiled Speakeasy sides.
"""

from __future__ import annotations

import random
from itertools import product

import pytest

from engine.moonshine import Moonshine, Reroll, Stop, phases
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


def test_work_of_copies_like_the_constructor():
    state = GAME.setup(5, 3, {})
    a, b = Work(state), Work.of(state)
    for name in Work.__slots__:
        if name != "seats":
            assert getattr(a, name) == getattr(b, name), name
    assert a.seats.orig is b.seats.orig and a.seats.work == b.seats.work == [None] * 3
    assert b.seats[1].clients == list(state.seats[1].clients) and b.seats.work[1] is b.seats[1]


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
