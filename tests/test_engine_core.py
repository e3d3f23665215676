"""The hot-path helpers of ``engine/core.py`` give exactly what the slow forms give.

``rng_draws`` against ``rng_for(...).randrange``, ``hashed_draws`` against its documented derivation and
for uniformity (it relies on how CPython's Mersenne Twister
serves ``getrandbits``: this test pins it), ``replacer`` / ``replace_state`` against
``dataclasses.replace``, and ``to_json`` on the kinds of values views hold.
"""

from __future__ import annotations

import dataclasses
import enum
from collections import Counter
from dataclasses import dataclass
from hashlib import blake2b

import pytest

from engine.chance import hashed_draws, rng_draws, rng_for
from engine.core import State, to_json
from engine.fast import replace_state, replacer


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


def test_hashed_draws_follow_their_documented_derivation() -> None:
    """Block 0 is BLAKE2b of ``seed:version:salt``, block k of ``seed:version:salt:k``; bytes
    ``>= 252`` are skipped, the others give ``b % 6`` (pinned: rules-3 games depend on it)."""
    state = _Toy(seed=2**61 + 12345, version=41, players=2)
    stream = b"".join(blake2b(b"%d:41:roll" % state.seed + (b":%d" % k if k else b"")).digest() for k in range(3))
    expected = [b % 6 for b in stream if b < 252]
    assert list(hashed_draws(state, "roll", 150, 6)) == expected[:150]
    assert list(hashed_draws(state, "roll", 7, 6)) == expected[:7]
    assert hashed_draws(state, "roll", 0, 6) == b""
    assert hashed_draws(state, "roll", 20, 6) != hashed_draws(_Toy(seed=state.seed, version=42, players=2), "roll", 20, 6)
    assert hashed_draws(state, "roll", 20, 6) != hashed_draws(state, "deal", 20, 6)
    for bad in (0, 256, -1):
        with pytest.raises(ValueError):
            hashed_draws(state, "roll", 3, bad)


@pytest.mark.parametrize("below", [2, 6, 7, 255])
def test_hashed_draws_are_uniform(below: int) -> None:
    """Over 3,000 states (about 30,000 draws for dice), every value comes up within 5 standard
    deviations of its expected count, and no value is out of range."""
    seen: Counter[int] = Counter()
    for version in range(3000):
        seen.update(hashed_draws(_Toy(seed=77, version=version, players=2), "roll", 10, below))
    total = sum(seen.values())
    assert total == 30000 and set(seen) <= set(range(below))
    p = 1 / below
    mean, sd = total * p, (total * p * (1 - p)) ** 0.5
    assert all(abs(seen[v] - mean) < 5 * sd for v in range(below)), seen


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
