"""Baseline Moonshine AI: a deterministic greedy player (no look-ahead, no randomness).

- Action phase: validates the best affordable Client (points, then the worth of its lower
  bonus); otherwise takes a Moon token when a Client needs tokens or a slot is one token from a
  useful bonus, else draws cards when its Clients are far out of reach.
- Token placement: the slot whose bonus helps most with its Clients' costs (completing a slot
  counts fully, progress on a multi-space slot partly; die access it lacks is worth a lot; a
  Client with a Moon cost is a good place to store tokens, as they pay for it).
- Discards and losses: the tokens whose loss costs the least bonus.
- Rerolls (active player): one ply of look-ahead: for stopping and every reroll of at most
  :data:`LOOKAHEAD_DICE` usable dice (plus the greedy choice: the dice that do not help the
  closest Client), the exact expected worth of the best Client affordable after the roll
  (die faces enumerated; Moon faces worth a little while a slot has room); stops on equal worth.
- Drafting, keeping and picking cards: the cards with the best worth for their estimated cost
  ("typical" dice Food, Food, Music plus its permanent bonuses); a drawn card replaces its worst
  Client only when clearly better.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, product

from engine.moonshine.actions import (
    Discard,
    Draft,
    DrawCards,
    Keep,
    Lose,
    MoonshineAction,
    Pick,
    Place,
    Replace,
    Reroll,
    Stop,
    TakeMoon,
    Validate,
    encode,
)
from engine.moonshine.dice import FACE_MASK, shortfall, sources_of
from engine.moonshine.icons import BLUE, CLIENT, DISC, DRAW, MAJ, NB, ORANGE, REROLL, client_info, side_info
from engine.moonshine.legal import legal_actions
from engine.moonshine.scoring import points_of
from engine.moonshine.state import MoonshineState, SeatState, seat_bundle, slot_keys

__all__ = ["LOOKAHEAD_DICE", "choose", "card_worth", "sure_wins"]

#: Largest reroll the look-ahead enumerates (besides the greedy choice).
LOOKAHEAD_DICE = 3
#: Each die's faces as (resource mask, chance): Moon faces are mask 0.
_DIE_OUTCOMES: tuple[tuple[tuple[int, float], ...], ...] = (
    ((1, 0.5), (2, 1 / 3), (4, 1 / 6)),
    ((1, 0.5), (2, 1 / 3), (4, 1 / 6)),
    ((1, 0.5), (2, 1 / 3), (4, 1 / 6)),
    ((1, 1 / 3), (0, 0.5), (7, 1 / 6)),
    ((0, 1 / 6), (2, 1 / 6), (4, 1 / 3), (7, 1 / 3)),
)
#: Worth of a Moon face for the active player while one of its slots has room (M3 gain).
_MOON_FACE = 0.8

_RES_WORTH = (0.0, 0.8, 0.9, 1.0, 1.0, 1.0, 1.0, 1.3)  # by mask: F, M, FM, D, FD, MD, any


def _typical_sources(bundle: Sequence[int]) -> list[int]:
    """Permanent resources plus typical white dice (Food, Food, Music) and an "any" for orange."""
    src = list(bundle[:8])
    src[1] += 2
    src[2] += 1
    if bundle[ORANGE]:
        src[7] += 1
    src[0] = 0
    return src


def _bonus_worth(b: Sequence[int], mine: Sequence[int], needs: Sequence[int]) -> float:
    """Worth of the icons ``b`` for a seat with active icons ``mine`` (bundle); ``needs`` =
    (food, music, drink, moon) still missing over its Clients."""
    w = 0.0
    for mask in range(1, 8):
        if b[mask]:
            useful = sum(needs[i] for i in range(3) if mask & (1 << i))
            w += b[mask] * (_RES_WORTH[mask] * (0.6 + 0.2 * min(useful, 2)))
    w += b[REROLL] * 0.4 + b[DRAW] * 0.25 + b[CLIENT] * 1.0
    if b[BLUE] and not mine[BLUE]:
        w += 0.8
    if b[ORANGE] and not mine[ORANGE]:
        w += 1.0
    w += b[DISC] * (0.4 + 0.3 * min(needs[3], 2))
    return w


def _needs(seat: SeatState, bundle: Sequence[int]) -> tuple[int, int, int, int]:
    """Resources and tokens the seat's Clients ask for beyond its permanent bonuses."""
    f = m = d = moon = 0
    for cid in seat.clients:
        ci = client_info(cid)
        f += ci.cost[0]
        m += ci.cost[1]
        d += ci.cost[2]
        moon += max(0, ci.moon - bundle[DISC])
    return (max(0, f - bundle[1] - 2), max(0, m - bundle[2] - 1), max(0, d - bundle[4]),
            max(0, moon - sum(seat.se_tokens) - sum(seat.cl_tokens)))


def card_worth(cid: int, seat: SeatState, bundle: Sequence[int], variant: str, late: float) -> float:
    """Points plus bonus worth of Client ``cid`` if validated by ``seat`` (``late`` in 0..1 lowers
    the weight of bonuses near the end of the game)."""
    ci = client_info(cid)
    sil = side_info(seat.speakeasy, variant).silhouettes
    gain: float = points_of((*seat.validated, cid), sil) - points_of(seat.validated, sil)
    if ci.lower[MAJ]:
        gain += 0.5
    bonus = _bonus_worth(ci.lower, bundle, _needs(seat, bundle))
    return gain + bonus * (1.0 - 0.8 * late)


def _distance(cid: int, seat: SeatState, bundle: Sequence[int], tokens: int) -> float:
    """Estimated effort to validate ``cid``: missing resources with typical dice + missing tokens."""
    ci = client_info(cid)
    short = shortfall(ci.cost, _typical_sources(bundle))
    moon = max(0, ci.moon - bundle[DISC] - tokens)
    return short + 0.8 * moon


def _late(state: MoonshineState) -> float:
    best = max(points_of(s.validated, side_info(s.speakeasy, state.variant).silhouettes) for s in state.seats)
    return min(1.0, best / state.target)


def _offer_score(cid: int, seat: SeatState, bundle: Sequence[int], variant: str, late: float) -> float:
    tokens = sum(seat.se_tokens) + sum(seat.cl_tokens)
    return card_worth(cid, seat, bundle, variant, late) - 1.1 * _distance(cid, seat, bundle, tokens)


def _slot_worth(seat: SeatState, variant: str, bundle: Sequence[int], key: str, tokens: int) -> float:
    """Worth of holding ``tokens`` tokens on slot ``key`` (full slots count fully)."""
    if tokens <= 0:
        return 0.0
    if key[0] == "s":
        spaces, b = side_info(seat.speakeasy, variant).slots[int(key[1:])]
        store = 0.0
    else:
        ci = client_info(int(key[1:]))
        spaces, b = ci.spaces, ci.slot
        store = 0.35 * min(tokens, ci.moon)
    mine = list(bundle)
    if tokens >= spaces:
        for i in range(NB):
            mine[i] -= b[i]
    worth = _bonus_worth(b, mine, _needs(seat, bundle))
    if tokens >= spaces:
        return worth + store + 0.05
    return worth * 0.45 * tokens / spaces + store


def _layout_worth(seat: SeatState, variant: str, bundle: Sequence[int], counts: dict[str, int]) -> float:
    return sum(_slot_worth(seat, variant, bundle, k, t) for k, t in counts.items())


def _place(state: MoonshineState, seat: int, legal: Sequence[Place]) -> Place:
    s = state.seats[seat]
    bundle = seat_bundle(s, state.variant)
    held = {k: t for k, t, _ in slot_keys(s, state.variant)}
    best, best_gain = legal[0], -1e9
    for action in legal:
        key = action.slot
        gain = (_slot_worth(s, state.variant, bundle, key, held[key] + 1)
                - _slot_worth(s, state.variant, bundle, key, held[key]))
        if gain > best_gain + 1e-9:
            best, best_gain = action, gain
    return best


def _remove(state: MoonshineState, seat: int,
            options: Sequence[tuple[MoonshineAction, tuple[tuple[str, int], ...]]]) -> MoonshineAction:
    """Among (action, option) removals, the one keeping the most worth."""
    s = state.seats[seat]
    bundle = seat_bundle(s, state.variant)
    held = {k: t for k, t, _ in slot_keys(s, state.variant)}
    best, best_w = options[0][0], -1e9
    for code, option in options:
        counts = dict(held)
        for k, c in option:
            counts[k] -= c
        w = _layout_worth(s, state.variant, bundle, counts)
        if w > best_w + 1e-9:
            best, best_w = code, w
    return best


def _roll(state: MoonshineState, seat: int) -> Stop | Reroll:
    greedy = _greedy_roll(state, seat)
    s = state.seats[seat]
    if not s.clients:
        return greedy
    bundle = seat_bundle(s, state.variant)
    tokens = sum(s.se_tokens) + sum(s.cl_tokens)
    late = _late(state)
    clients = []
    for cid in s.clients:
        ci = client_info(cid)
        if tokens >= max(0, ci.moon - bundle[DISC]):
            clients.append((max(0.5, card_worth(cid, s, bundle, state.variant, late)), ci.cost))
    clients.sort(key=lambda c: -c[0])
    room = any(t < sp for _, t, sp in slot_keys(s, state.variant))
    usable = [i for i in range(5) if state.dice[i] and (i < 3 or bundle[BLUE if i == 3 else ORANGE])]
    perm = list(bundle[:8])
    perm[0] = 0
    memo: dict[tuple[int, ...], float] = {}

    def worth(masks: tuple[int, ...]) -> float:
        key = tuple(sorted(masks))
        got = memo.get(key)
        if got is None:
            src = list(perm)
            moons = 0
            for m in masks:
                if m:
                    src[m] += 1
                else:
                    moons += 1
            got = next((w for w, cost in clients if shortfall(cost, src) == 0), 0.0)
            got += _MOON_FACE * min(moons, 1) if room else 0.0
            memo[key] = got
        return got

    def expected(reroll: tuple[int, ...]) -> float:
        kept = tuple(FACE_MASK[state.dice[i]] if state.dice[i] != "moon" else 0 for i in usable if i not in reroll)
        total = 0.0
        for outcome in product(*(_DIE_OUTCOMES[i] for i in reroll)):
            p = 1.0
            for _, q in outcome:
                p *= q
            total += p * worth(kept + tuple(m for m, _ in outcome))
        return total

    best_value = expected(())
    best: Stop | Reroll = Stop()
    candidates = [c for k in range(1, min(LOOKAHEAD_DICE, len(usable)) + 1) for c in combinations(usable, k)]
    if isinstance(greedy, Reroll):
        g = tuple(i for i in range(5) if "012bo"[i] in greedy.dice and i in usable)
        if g and g not in candidates:
            candidates.append(g)
    for reroll in candidates:
        value = expected(reroll)
        if value > best_value + 1e-9:
            best_value, best = value, Reroll(tuple(sorted("012bo"[i] for i in reroll)))
    return best


def _greedy_roll(state: MoonshineState, seat: int) -> Stop | Reroll:
    s = state.seats[seat]
    bundle = seat_bundle(s, state.variant)
    tokens = sum(s.se_tokens) + sum(s.cl_tokens)
    src = sources_of(bundle, state.dice)
    if not s.clients:
        return Stop()
    scored = []
    for cid in s.clients:
        ci = client_info(cid)
        short = shortfall(ci.cost, src)
        moon_short = max(0, ci.moon - bundle[DISC] - tokens)
        if short == 0 and moon_short == 0:
            return Stop()
        scored.append((short + moon_short, -client_info(cid).points, cid))
    scored.sort()
    _, _, target = scored[0]
    ci = client_info(target)
    base = shortfall(ci.cost, src)
    if base == 0:
        return Stop()
    usable = [0, 1, 2] + ([3] if bundle[BLUE] else []) + ([4] if bundle[ORANGE] else [])
    room = any(t < sp for _, t, sp in slot_keys(s, state.variant))
    reroll = []
    cur = list(src)
    for i in range(5):
        face = state.dice[i]
        if not face:
            continue
        if i not in usable:
            continue  # rerolling a die we cannot use only changes others' resources
        if face == "moon":
            if not room:
                reroll.append(i)
            continue
        test = list(cur)
        test[FACE_MASK[face]] -= 1
        if shortfall(ci.cost, test) == base:
            reroll.append(i)
            cur = test
    if not reroll:
        return Stop()
    return Reroll(tuple(sorted("012bo"[i] for i in reroll)))


def _action(state: MoonshineState, seat: int, legal: Sequence[MoonshineAction]) -> MoonshineAction:
    s = state.seats[seat]
    bundle = seat_bundle(s, state.variant)
    late = _late(state)
    vals = [a for a in legal if isinstance(a, Validate)]
    if vals:
        return max(vals, key=lambda a: (card_worth(a.card, s, bundle, state.variant, late), -a.card))
    tokens = sum(s.se_tokens) + sum(s.cl_tokens)
    if not s.clients:
        return DrawCards()
    dist = sorted((_distance(c, s, bundle, tokens), c) for c in s.clients)
    best_d, best_c = dist[0]
    can_moon = TakeMoon() in legal
    if can_moon:
        ci = client_info(best_c)
        if ci.moon - bundle[DISC] > tokens:
            return TakeMoon()
        held = {k: (t, sp) for k, t, sp in slot_keys(s, state.variant)}
        for k, (t, sp) in held.items():
            if t < sp and _slot_worth(s, state.variant, bundle, k, t + 1) - _slot_worth(s, state.variant, bundle, k, t) > 0.55:
                return TakeMoon()
    if best_d >= 2.5 or not can_moon:
        return DrawCards()
    return TakeMoon()


def _points_after(state: MoonshineState, seat: int, card: int | None) -> int:
    """``seat``'s points (M8) once Client ``card`` is validated (``None``: as it stands)."""
    s = state.seats[seat]
    validated = s.validated if card is None else (*s.validated, card)
    return points_of(validated, side_info(s.speakeasy, state.variant).silhouettes)


def sure_wins(state: MoonshineState, seat: int) -> tuple[Validate, ...]:
    """The validations legal to ``seat`` in the action phase that win the game whatever the
    others do: after it the seat has at least ``state.target`` points, so the game ends after
    this action phase (M8), and more points than any other seat can have by then (its points
    now, or after any validation legal to it now: validations only add the validator's points,
    and the dice are shared, M4). Empty outside the action phase. The normal level and the
    strong search never pass one up."""
    if state.phase != "action":
        return ()
    mine = [a for a in legal_actions(state, seat) if isinstance(a, Validate)]
    if not mine:
        return ()
    best = {a: _points_after(state, seat, a.card) for a in mine}
    if max(best.values()) < state.target:
        return ()
    others = 0
    for o in range(state.players):
        if o != seat:
            reach = [_points_after(state, o, a.card) for a in legal_actions(state, o) if isinstance(a, Validate)]
            others = max(others, _points_after(state, o, None), *reach)
    return tuple(a for a in mine if best[a] >= state.target and best[a] > others)


def choose(state: MoonshineState, seat: int) -> MoonshineAction:
    """The AI's action for ``seat`` (must be to act; ``ValueError`` otherwise). Deterministic: a
    pure function of the state."""
    legal = legal_actions(state, seat)
    if not legal:
        raise ValueError(f"seat {seat} has nothing to do")
    if len(legal) == 1:
        return legal[0]
    ph = state.phase
    if ph == "roll":
        return _roll(state, seat)
    if ph == "action":
        action = _action(state, seat, legal)
        wins = sure_wins(state, seat)
        if wins and action not in wins:
            return max(wins, key=lambda a: (_points_after(state, seat, a.card), -a.card))
        return action
    s = state.seats[seat]
    bundle = seat_bundle(s, state.variant)
    late = _late(state)

    def score(cid: int) -> float:
        return _offer_score(cid, s, bundle, state.variant, late)

    head = legal[0]
    if isinstance(head, Place):
        return _place(state, seat, [a for a in legal if isinstance(a, Place)])
    if isinstance(head, (Discard, Lose)):
        options: list[tuple[MoonshineAction, tuple[tuple[str, int], ...]]] = []
        for a in legal:
            if isinstance(a, Lose):
                options.append((a, ((a.slot, 1),)))
            elif isinstance(a, Discard):
                options.append((a, tuple(a.counts())))
        return _remove(state, seat, options)
    if isinstance(head, Keep):
        keeps = [a for a in legal if isinstance(a, Keep)]
        return max(keeps, key=lambda a: (score(a.card), -a.card))
    if isinstance(head, Pick):
        cards = [a.card for a in legal if isinstance(a, Pick) and a.card is not None]
        best = max(cards, key=lambda c: (score(c), -c))
        worst = min(score(c) - 0.4 * t for c, t in zip(s.clients, s.cl_tokens)) if s.clients else -1e9  # noqa: B905
        return Pick(best) if score(best) > worst + 0.5 else Pick(None)
    if isinstance(head, Replace):
        pairs = list(zip(s.clients, s.cl_tokens))  # noqa: B905
        worst_pair = min(pairs, key=lambda p: (score(p[0]) - 0.4 * p[1], p[0]))
        return Replace(worst_pair[0])
    if isinstance(head, Draft):
        drafts = [a for a in legal if isinstance(a, Draft)]
        return max(drafts, key=lambda a: (sum(score(x) for x in a.cards), encode(a)))
    return head
