"""Moonshine: the straight-line steps (``engine.moonshine.straight``) give exactly the states
and events of the general machine (a ``Work``, ``settle``), step by step, under every rules
version, both variants and every seat count (issue 11, part 1); the roll steps too (the roll's
own shortcut, ``fast_roll``, and the gains after it).

Games are played with a scripted mix of moves (the baseline AI's choice, and the legal actions
taken in turn), so that the straight lines meet places, losses, picks of none, keeps, and the
cases they leave to the general path (instant bonuses, discards, reshuffles, the game's end).
"""

from __future__ import annotations

from typing import Any

import pytest

from engine.moonshine import Moonshine, phases, straight
from engine.moonshine.roll import fast_roll
from engine.moonshine.rules import _run

GAME = Moonshine()


def _reference(state: Any, actions: dict[int, Any]) -> tuple[Any, tuple[Any, ...]]:
    """The step by the general path alone (the Work and settle; events logged)."""
    w = _run(state, actions, None, True)
    return w.freeze(), tuple(w.events)


@pytest.mark.parametrize("rules", [1, 2, 3, 4, 5, 6, 7, 8])
def test_straight_line_steps_match_the_general_machine(rules: int) -> None:
    used = {"actions": 0, "answers": 0, "gains": 0}
    ended = 0
    for variant in ("standard", "regular"):
        for players in range(2, 6):
            for seed in (players * 11 + rules, players * 13 + rules + 100):
                state = phases.deal(seed, players, variant, rules)
                k = 0
                while acting := GAME.to_act(state):
                    actions = {}
                    for seat in sorted(acting):
                        legal = GAME.legal_actions(state, seat)
                        actions[seat] = GAME.ai_action(state, seat) if (k + seat) % 3 else legal[k % len(legal)]
                    k += 1
                    if state.phase == "roll":
                        action = actions[state.active]
                        fast = fast_roll(state, action)
                        if fast is None or isinstance(fast, tuple):
                            used["gains"] += straight.plain_gains(state, action, fast) is not None
                    elif state.phase == "action":
                        used["actions"] += straight.plain_actions(state, actions) is not None
                    else:
                        used["answers"] += straight.plain_answers(state, actions) is not None
                    step = GAME.apply(state, actions)
                    want_state, want_events = _reference(state, actions)
                    assert step.state == want_state
                    assert GAME.dump_state(step.state) == GAME.dump_state(want_state)
                    assert step.events == want_events
                    state = step.state
                ended += state.phase == "over"
    assert ended == 16
    assert used["actions"] > 20 and used["answers"] > 100 and used["gains"] > 5  # the straight lines were taken
