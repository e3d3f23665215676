"""Chance for the engines: every draw derived from the state (``seed``, ``version``) and a salt,
so a seed and an action log replay the same game (``docs/ARCHITECTURE.md``, "Chance"). The
engine never uses the global ``random``.

- :func:`rng_for`: a private ``random.Random`` of ``seed:version:salt``;
- :func:`rng_draws`: the first ``n`` values of ``rng_for(...).randrange(below)``, in bulk;
- :func:`hashed_draws`: a counter-based generator (BLAKE2b), cheaper than seeding a Mersenne
  Twister, for games whose rules version chose it;
- :func:`variant_seed`: the seed of a determinization (``Game.hidden_variant``).
"""

from __future__ import annotations

import _random
import random
from functools import cache
from hashlib import blake2b, sha512
from typing import Any

__all__ = ["hashed_draws", "rng_draws", "rng_for", "variant_seed"]


def rng_for(state: Any, salt: str = "") -> random.Random:
    """A private ``random.Random`` derived from ``(seed, version, salt)`` of ``state``.

    The same state always yields the same draws, so a game is reproducible from its seed and
    action log. Never use the global ``random`` in the engine. For a batch of ``randrange``
    draws, :func:`rng_draws` gives the same values faster.
    """
    return random.Random(f"{state.seed}:{state.version}:{salt}")


def variant_seed(seed: int, salt: int) -> int:
    """The seed of a ``hidden_variant`` drawn with ``salt`` (it decides every future draw of the
    variant; see :meth:`Game.hidden_variant`)."""
    return (seed * 7919 + salt + 1) % (2**62)


_new_generator = _random.Random.__new__
_seed_generator = _random.Random.seed


@cache
def _draw_tables(below: int) -> tuple[bytes, bytes]:
    """``bytes.translate`` tables turning the top byte of each 32-bit Mersenne Twister word into
    the value ``randrange(below)`` reads from it (its top ``k`` bits, ``k = below.bit_length()``),
    and deleting the words ``randrange`` rejects (values ``>= below``)."""
    shift = 8 - below.bit_length()
    table = bytes(b >> shift for b in range(256))
    return table, bytes(b for b in range(256) if b >> shift >= below)


def rng_draws(state: Any, salt: str, n: int, below: int) -> bytes:
    """The first ``n`` values of ``rng_for(state, salt).randrange(below)`` (``1 <= below <=
    255``), as a ``bytes`` of ``n`` values: identical draws, computed in bulk.

    ``randrange(below)`` takes one 32-bit word of the Mersenne Twister per attempt, keeps its top
    ``below.bit_length()`` bits and retries when they are ``>= below``; this reads the same words
    with one ``getrandbits`` call and keeps the same values (a CPython detail that
    ``tests/test_engine_core.py`` pins). Raises ``ValueError`` for ``below`` outside 1..255.

    >>> class S: seed, version = 7, 3
    >>> rng = rng_for(S(), "roll")
    >>> list(rng_draws(S(), "roll", 5, 6)) == [rng.randrange(6) for _ in range(5)]
    True
    """
    if not 1 <= below <= 255:
        raise ValueError("below must be in 1..255")
    if n <= 0:
        return b""
    text = f"{state.seed}:{state.version}:{salt}".encode()
    # A generator taken from the pool (list.pop/append are atomic: threads never share one).
    gen = _generators.pop() if _generators else _new_generator(_random.Random)
    # random.Random.seed(str) (version 2) seeds with this integer: the same generator state.
    _seed_generator(gen, int.from_bytes(text + sha512(text).digest(), "big"))
    table, rejected = _draw_tables(below)
    out = b""
    while len(out) < n:
        words = (n - len(out)) * 3 // 2 + 4
        out += gen.getrandbits(32 * words).to_bytes(4 * words, "little")[3::4].translate(table, rejected)
    _generators.append(gen)
    return out[:n]


#: Spare generators for :func:`rng_draws` (each is fully re-seeded before use).
_generators: list[_random.Random] = []


@cache
def _hash_tables(below: int) -> tuple[bytes, bytes]:
    """``bytes.translate`` tables for :func:`hashed_draws`: byte ``b`` -> ``b % below``, and the
    bytes ``>= 256 - 256 % below`` deleted (rejected, so that every value is equally likely)."""
    keep = 256 - 256 % below
    return bytes(b % below for b in range(256)), bytes(range(keep, 256))


def hashed_draws(state: Any, salt: str, n: int, below: int) -> bytes:
    """``n`` values, each uniform in ``0..below-1`` (``1 <= below <= 255``), derived from
    ``(seed, version, salt)`` of ``state`` by a counter-based generator: cheap (no generator to
    seed) and the same on every platform and Python version.

    Block ``k`` (``k = 0, 1, …``) is the 64-byte BLAKE2b digest (RFC 7693, ``hashlib.blake2b``,
    default parameters) of the ASCII text ``"{seed}:{version}:{salt}"`` for ``k = 0`` and
    ``"{seed}:{version}:{salt}:{k}"`` after; the blocks' bytes are read in order, a byte ``b``
    gives the value ``b % below`` when ``b < 256 - 256 % below`` and is skipped otherwise
    (rejection: exactly uniform). For dice (``below = 6``) one block gives about 63 values.
    About a sixth of the work of :func:`rng_draws` for a roll (it seeds a Mersenne Twister).
    Raises ``ValueError`` for ``below`` outside 1..255.

    >>> class S: seed, version = 7, 3
    >>> list(hashed_draws(S(), "roll", 5, 6)) == list(hashed_draws(S(), "roll", 9, 6))[:5]
    True
    """
    tables = _HASH_TABLES.get(below)
    if tables is None:
        if not 1 <= below <= 255:
            raise ValueError("below must be in 1..255")
        tables = _HASH_TABLES[below] = _hash_tables(below)
    key = b"%d:%d:%s" % (state.seed, state.version, salt.encode())
    out = blake2b(key).digest().translate(*tables)
    if len(out) >= n:
        return out[:n] if n > 0 else b""
    block = 0
    while len(out) < n:
        block += 1
        out += blake2b(b"%s:%d" % (key, block)).digest().translate(*tables)
    return out[:n]


#: :func:`_hash_tables` by ``below``, read without a call on the hot path.
_HASH_TABLES: dict[int, tuple[bytes, bytes]] = {}

