"""Determinization of Three-Player Moon: a full state a seat cannot tell apart from the real one
(``Game.hidden_variant``; ``docs/rules/three-player-moon.md``, RULINGS T1, T3, T5).

What a seat knows: its own hand, every tile played this hand and who played it (``played`` is
public and in order; the bidder leads the first trick, T5, and each trick's winner leads the
next), hence the suits each player has shown it lacks (a player who did not follow the led suit
holds none of it for the rest of the hand); after the pickup the bidder also knows the widow
and the discard (T3). Everything else (the other hands, the face-down widow during the bidding,
the discard for the others) is re-dealt so that no player holds a tile of a suit it has shown
void in. The widow's identity, unknown to a non-bidder after the pickup, is drawn among the
tiles the bidder held after the pickup (its hand, the discard and the tiles it has played).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from engine.chance import rng_for, variant_seed
from engine.three_player_moon.state import MoonState, evolve
from engine.three_player_moon.tiles import Tile, belongs, led_suit, sort_hand, trick_winner

__all__ = ["hidden_variant", "played_by", "voids"]

#: Rejection-sampling tries before the constructive fallback.
_TRIES = 64


def played_by(state: MoonState) -> list[tuple[int, Tile]]:
    """``(seat, tile)`` for every tile of ``state.played``, in play order (derived from the
    public order of play: the bidder leads the first trick, each trick's winner the next, T5)."""
    out: list[tuple[int, Tile]] = []
    if state.bidder is None or not state.played:
        return out
    leader = state.bidder
    for k in range(0, len(state.played), 3):
        trick = tuple(((leader + j) % 3, t) for j, t in enumerate(state.played[k : k + 3]))
        out.extend(trick)
        if len(trick) == 3:
            leader = trick_winner(trick, state.trump)
    return out


def voids(state: MoonState) -> tuple[frozenset[int], frozenset[int], frozenset[int]]:
    """The suits (0-6, or ``TRUMP_SUIT`` for trumps) each seat has shown it lacks this hand:
    it played a tile outside the led suit (T5: follow suit if you can)."""
    out: list[set[int]] = [set(), set(), set()]
    seq = played_by(state)
    for k in range(0, len(seq), 3):
        trick = seq[k : k + 3]
        suit = led_suit(trick[0][1], state.trump)
        for s, t in trick[1:]:
            if not belongs(t, suit, state.trump):
                out[s].add(suit)
    return frozenset(out[0]), frozenset(out[1]), frozenset(out[2])


def _fits(tile: Tile, void: frozenset[int], trump: str | None) -> bool:
    return not any(belongs(tile, s, trump) for s in void)


def _deal(pool: list[Tile], sizes: Sequence[int], void_of: Sequence[frozenset[int]],
          trump: str | None, rng: random.Random) -> list[list[Tile]]:
    """Split ``pool`` into groups of ``sizes`` where group ``g`` holds no tile of a suit of
    ``void_of[g]`` (its voids): uniform rejection sampling, then a constructive fallback (the
    real deal is always a solution, so one exists)."""
    for _ in range(_TRIES):
        rng.shuffle(pool)
        groups: list[list[Tile]] = []
        i = 0
        for n in sizes:
            groups.append(pool[i : i + n])
            i += n
        if all(_fits(t, void_of[g], trump) for g, grp in enumerate(groups) for t in grp):
            return groups
    # Fallback: most constrained tiles first, each to a random group with room (backtracking).
    order = sorted(pool, key=lambda t: (sum(_fits(t, a, trump) for a in void_of), rng.random()))
    fill: list[list[Tile]] = [[] for _ in sizes]

    def place(k: int) -> bool:
        if k == len(order):
            return True
        t = order[k]
        options = [g for g in range(len(sizes)) if len(fill[g]) < sizes[g] and _fits(t, void_of[g], trump)]
        rng.shuffle(options)
        for g in options:
            fill[g].append(t)
            if place(k + 1):
                return True
            fill[g].pop()
        return False

    if not place(0):  # pragma: no cover - the real deal is a solution
        raise ValueError("no deal fits the shown voids")
    return fill


def hidden_variant(state: MoonState, seat: int | None, salt: int) -> MoonState:
    """``state`` with every tile ``seat`` (``None`` = the public) cannot see re-dealt from
    ``salt`` (reproducible), consistent with the voids shown this hand, with a new seed
    (:func:`engine.chance.variant_seed`).
    Hand sizes, the multiset of the 22 tiles and what ``seat`` sees are kept."""
    rng = rng_for(state, f"variant:{seat}:{salt}")
    bidder = state.bidder
    in_bid = state.phase == "bid" or bidder is None
    bidder_knows = seat is not None and seat == bidder and not in_bid
    void = voids(state)
    others = [s for s in range(3) if s != seat]
    pool: list[Tile] = [t for s in others for t in state.hands[s]]
    sizes = [len(state.hands[s]) for s in others]
    void_of = [void[s] for s in others]
    hide_widow = in_bid and state.widow is not None
    hide_discard = state.discard is not None and not bidder_knows
    if hide_widow:
        assert state.widow is not None
        pool.append(state.widow)
    if hide_discard:
        assert state.discard is not None
        pool.append(state.discard)
    extra = len(pool) - sum(sizes)
    sizes.append(extra)
    void_of.append(frozenset())  # the widow / the discard: no constraint
    pool.sort()
    groups = _deal(pool, sizes, void_of, state.trump, rng)
    hands = list(state.hands)
    for s, grp in zip(others, groups, strict=False):
        hands[s] = sort_hand(grp)
    rest = groups[-1]
    widow, discard = state.widow, state.discard
    if hide_widow:
        widow = rest.pop()
    if hide_discard:
        discard = rest.pop()
    if not in_bid and not bidder_knows and bidder is not None:
        held = list(hands[bidder]) + [t for s, t in played_by(state) if s == bidder]
        if discard is not None:
            held.append(discard)
        held.sort()
        widow = held[rng.randrange(len(held))]
    return evolve(state, hands=tuple(hands), widow=widow, discard=discard, seed=variant_seed(state.seed, salt))
