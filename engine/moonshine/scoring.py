"""Moonshine scoring and the end of the game (RULINGS M8; ``docs/rules/moonshine.md``).

Points = card points + for the k-th "?" icon the count of the k-th majority colour + for a
silhouette the count of its colour; "?" icons never count a colour that has a silhouette of
that player. Ties: most Moon tokens, then most validated Clients, then a shared place.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.core import Outcome, ranks_from_scores
from engine.moonshine.icons import MAJ, client_info, side_info
from engine.moonshine.state import MoonshineState

__all__ = ["MAX_ROUNDS", "TARGET", "outcome_of", "points_of"]

#: Points that end the game after an action phase, by variant (RULINGS M8, M9).
TARGET = {"standard": 12, "regular": 15}
#: Safety cap on the number of rounds: never reached by sensible play; it guarantees that any
#: playout ends.
MAX_ROUNDS = 60


def points_of(validated: Sequence[int], silhouettes: Sequence[int] = ()) -> int:
    """Points of a set of validated Clients (M8): card points, "?" and silhouette icons.

    The k-th "?" icon scores the count of the k-th majority colour among colours without a
    silhouette; each silhouette (a colour index) scores the count of its colour. Memoized.
    """
    key: Any = (validated, silhouettes)
    try:  # the rules pass tuples: no copies (lists are accepted, as before)
        hit = _POINTS.get(key)
    except TypeError:
        key = (tuple(validated), tuple(silhouettes))
        hit = _POINTS.get(key)
    if hit is not None:
        return hit
    if len(_POINTS) >= 1 << 14:
        _POINTS.clear()
    pts = _POINTS[key] = _points(*key)
    return pts


#: Memo of :func:`points_of`.
_POINTS: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}


def _points(validated: Sequence[int], silhouettes: Sequence[int]) -> int:
    counts = [0] * 5
    pts = 0
    maj = 0
    for cid in validated:
        ci = client_info(cid)
        counts[ci.colour] += 1
        pts += ci.points
        maj += ci.lower[MAJ]
    for c in silhouettes:
        pts += counts[c]
    if maj:
        ranked = sorted((counts[c] for c in range(5) if c not in silhouettes), reverse=True)
        pts += sum(ranked[:maj])
    return pts


def outcome_of(state: MoonshineState) -> Outcome:
    """The ranking of ``state`` as if the game ended now (M8): points, then Moon tokens, then
    validated Clients; seats equal on all three share a place."""
    keys, scores = [], []
    for s in state.seats:
        p = points_of(s.validated, side_info(s.speakeasy, state.variant).silhouettes)
        scores.append(p)
        keys.append((p, sum(s.se_tokens) + sum(s.cl_tokens), len(s.validated)))
    return Outcome(ranks_from_scores(keys), tuple(scores))
