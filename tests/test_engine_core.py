"""The hot-path helpers of ``engine/core.py`` give exactly what the slow forms give.

``rng_draws`` against ``rng_for(...).randrange`` (it relies on how CPython's Mersenne Twister
serves ``getrandbits``: this test pins it), ``replacer`` / ``replace_state`` against
``dataclasses.replace``, and ``to_json`` on the kinds of values views hold.
"""

from __future__ import annotations

import dataclasses
import enum
from dataclasses import dataclass

import pytest

from engine.core import State, replace_state, replacer, rng_draws, rng_for, to_json


@dataclass(frozen=True, slots=True, kw_only=True)
class _Toy(State):
    hand: tuple[int, ...] = ()
    turn: int = 0
    name: str = "x"


@dataclass(frozen=True, kw_only=True)
class _Unslotted:
    seed: int
    turn: int = 0


@pytest.mark.parametrize("below", [1, 2, 3, 5, 6, 7, 8, 9, 22, 100, 128, 129, 200, 255])
def test_rng_draws_are_randrange(below: int) -> None:
    for seed in (0, 1, 2**61 + 12345, 987654321):
        for version, n in ((0, 1), (3, 7), (41, 48), (7, 130)):
            state = _Toy(seed=seed, version=version, players=2)
            rng = rng_for(state, "roll")
            assert list(rng_draws(state, "roll", n, below)) == [rng.randrange(below) for _ in range(n)]


def test_rng_draws_edges() -> None:
    state = _Toy(seed=5, players=2)
    assert rng_draws(state, "roll", 0, 6) == b""
    for bad in (0, 256, -1):
        with pytest.raises(ValueError):
            rng_draws(state, "roll", 3, bad)


def test_replacer_equals_dataclasses_replace() -> None:
    state = _Toy(seed=9, version=2, players=3, hand=(1, 2), turn=1)
    bump = replacer(_Toy, "version", "turn")
    new = bump(state, 3, 2)
    assert new == dataclasses.replace(state, version=3, turn=2)
    assert type(new) is _Toy and state.turn == 1  # a copy; the original is untouched
    with pytest.raises(dataclasses.FrozenInstanceError):
        new.turn = 5  # type: ignore[misc]
    with pytest.raises(TypeError):
        replacer(_Toy, "nope")
    with pytest.raises(TypeError):
        replacer(_Toy, "turn", "turn")
    with pytest.raises(TypeError):
        replacer(_Unslotted, "turn")


def test_replace_state() -> None:
    state = _Toy(seed=9, players=3, hand=(4,))
    assert replace_state(state, name="y", seed=1) == dataclasses.replace(state, name="y", seed=1)
    assert replace_state(state) == state
    with pytest.raises(TypeError):
        replace_state(state, nope=1)
    plain = _Unslotted(seed=1)
    assert replace_state(plain, turn=4) == _Unslotted(seed=1, turn=4)  # falls back to dataclasses.replace


class _Colour(enum.Enum):
    RED = "red"


class _Level(enum.IntEnum):
    HIGH = 2


def test_to_json_kinds() -> None:
    @dataclass(frozen=True, slots=True)
    class Inner:
        tiles: tuple[tuple[int, int], ...]
        seen: frozenset[int]

    value = {"a": Inner(((6, 4),), frozenset({3, 1})), "b": [None, True, 1.5, _Colour.RED, _Level.HIGH]}
    assert to_json(value) == {"a": {"tiles": [[6, 4]], "seen": [1, 3]}, "b": [None, True, 1.5, "red", 2]}
    with pytest.raises(TypeError):
        to_json(object())
    with pytest.raises(TypeError):
        to_json(Inner)  # a class, not an instance
