"""The baseline Shop Battle AI (deterministic; uses only what its seat knows).

A player knows every card ever revealed face up (``state.public``) and what it saw privately
(``state.known[seat]``: own top cards, peeks, scouts); because every later move of a card is
public, it knows where each of those cards lies. See ``docs/rules/shop-battle.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.shop_battle.actions import AI_ORDER, TARGETS, Choose, ShopBattleAction, Target
from engine.shop_battle.cards import CollectorCard, card_table
from engine.shop_battle.odds import Rounds
from engine.shop_battle.state import CCW, ShopBattleState, knowledge

__all__ = ["DEALS", "MARGIN", "SLACK", "choose_action", "contest", "dominated", "safe_action", "win_chance"]


def win_chance(state: ShopBattleState, seat: int, top: int, char: str, hi: bool,
               pool: list[int], know: frozenset[int]) -> float:
    """Chance (0..1) that card ``top`` beats every other active player's top card on
    ``char``/``hi``: a top card ``seat`` knows counts exactly, an unknown one is drawn from
    ``pool`` (ties count half)."""
    vals = card_table(state.cards, state.rules).values[char]
    mine = vals[top]
    assert mine is not None
    pool_vals = [v for v in (vals[c] for c in pool) if v is not None]
    if pool_vals:
        beat = sum(1 for v in pool_vals if (v < mine if hi else v > mine))
        tie = sum(1 for v in pool_vals if v == mine)
        p_unknown = (beat + 0.5 * tie) / len(pool_vals)
    else:
        p_unknown = 0.5
    p = 1.0
    for o in range(state.players):
        if o == seat or state.out[o] is not None or not state.piles[o]:
            continue
        t = state.piles[o][0]
        v = vals[t]
        if t in know and v is not None:
            p *= 1.0 if (v < mine if hi else v > mine) else (0.5 if v == mine else 0.0)
        else:
            p *= p_unknown
    return p


def contest(state: ShopBattleState, seat: int, top: int, char: str, hi: bool,
            pool: list[int], know: frozenset[int]) -> tuple[float, float, int]:
    """``(p_win, p_tie, gain)`` of revealing card ``top`` on ``char``/``hi``: the chance that it
    beats every other active player's card outright, the chance that nobody beats it but
    somebody ties it (a bataille, S5), and the cards won with an outright win (the pot plus every
    card the others reveal).

    Each other player's card is read from its pile as far as ``seat`` knows it: a known
    Collector on top is revealed, goes to the pot and its owner reveals the next card (S2), so
    the next card counts (a player left with no card drops out: beaten); a known shop card
    counts exactly; an unknown card is drawn from ``pool`` (the shop cards ``seat`` never saw)."""
    vals = card_table(state.cards, state.rules).values[char]
    mine = vals[top]
    assert mine is not None
    pool_vals = [v for v in (vals[c] for c in pool) if v is not None]
    if pool_vals:
        b_unknown = sum(1 for v in pool_vals if (v < mine if hi else v > mine)) / len(pool_vals)
        t_unknown = sum(1 for v in pool_vals if v == mine) / len(pool_vals)
    else:
        b_unknown, t_unknown = 0.5, 0.0
    p_win = p_safe = 1.0
    gain = len(state.pot)
    for o in range(state.players):
        if o == seat or state.out[o] is not None or not state.piles[o]:
            continue
        b, t = 1.0, 0.0  # a player whose known Collectors are its last cards has no card
        for c in state.piles[o]:
            gain += 1
            if c not in know:
                b, t = b_unknown, t_unknown
                break
            v = vals[c]
            if v is not None:
                b, t = (1.0, 0.0) if (v < mine if hi else v > mine) else ((0.0, 1.0) if v == mine else (0.0, 0.0))
                break
        p_win *= b
        p_safe *= b + t
    return p_win, p_safe - p_win, gain


def _pool(state: ShopBattleState, seat: int, exclude: int | None) -> tuple[list[int], frozenset[int]]:
    """Shop cards ``seat`` has never seen (all shops but ``exclude`` if it has seen them all)."""
    know = knowledge(state, seat)
    shops = [i for i in card_table(state.cards, state.rules).shops if i != exclude]
    pool = [i for i in shops if i not in know]
    return (pool or shops), know


#: Worlds per card the chooser has not seen in which :func:`dominated` plays each announcement
#: (:func:`engine.shop_battle.odds.round_results`: the first unseen card faced counted exactly).
DEALS = 16
#: Share of the worlds more that another announcement must win (with no more than :data:`SLACK`
#: of them more lost) for an announcement to be dominated by chance.
MARGIN, SLACK = 0.03, 0.02
#: Salts of those worlds (apart from any other user of the determinizations).
_SALT = 7_000_000


def _pick(state: ShopBattleState, owner: int) -> Target:
    """A Collector's target in the rounds :func:`dominated` plays out: :func:`choose_action`'s."""
    assert state.pending is not None
    choice = choose_action(state, owner, tuple(TARGETS[t] for t in state.pending.targets))
    assert isinstance(choice, Target)
    return choice


def _beats(better: Sequence[int], worse: Sequence[int], margin: float, slack: float) -> bool:
    """Whether results ``better`` dominate ``worse`` (:func:`dominated`'s rule: more wins by
    ``margin`` with at most ``slack`` more losses, or as good in every world and better in two)."""
    return better.count(2) >= worse.count(2) + margin and better.count(0) <= worse.count(0) + slack or (
        all(y >= x for x, y in zip(worse, better, strict=True)) and sum(y > x for x, y in zip(worse, better, strict=True)) >= 2)


def _rounds(state: ShopBattleState, seat: int) -> Rounds:
    """The rounds :func:`dominated` plays for the chooser ``seat``: :data:`DEALS` worlds per
    unseen card, salts from :data:`_SALT`, Collectors' targets by :func:`_pick`."""
    return Rounds(state, seat, DEALS, salt=_SALT, pick=_pick)


def dominated(state: ShopBattleState, seat: int) -> frozenset[Choose]:
    """The announcements of the chooser ``seat`` (phase ``choose``) whose chance to win the round
    is dominated by another's on the same seen card. Each announcement's round is played to its
    end in the same worlds the seat cannot tell from the true one, the first card it cannot see
    counted exactly (:func:`engine.shop_battle.odds.round_results`, :data:`DEALS` worlds per
    unseen card, fixed salts), and ranked win > carried (S5) > lost; an announcement is dominated
    when another one wins in a share :data:`MARGIN` of the worlds more and loses in at most a
    share :data:`SLACK` more, or does at least as well in every world and better in two. The
    stakes do not depend on the announcement (the same cards are revealed and go to the round's
    winner, S4), so a dominated announcement only gives up rounds. Empty outside ``choose``.

    The strong search (:mod:`engine.shop_battle.search`) never plays one, nor does
    :func:`safe_action` (the normal level), which judges only the announcements it would play
    (:func:`_dominated`)."""
    if state.phase != "choose" or seat != state.chooser or not state.piles[seat]:
        return frozenset()
    rounds = _rounds(state, seat)
    results = {a: rounds.results(a) for a in AI_ORDER}
    margin, slack = MARGIN * rounds.size, SLACK * rounds.size
    return frozenset(a for a in AI_ORDER if any(_beats(results[b], results[a], margin, slack)
                                                for b in AI_ORDER if b is not a))


def _dominated(rounds: Rounds, action: Choose) -> bool:
    """Whether ``action`` is in :func:`dominated`'s set, each other announcement's rounds played
    only while it could still dominate ``action``: its wins so far plus the worlds left reach
    ``action``'s wins plus the margin with no more losses than ``action``'s plus the slack, or it
    is as good in every world so far with enough worlds left where ``action`` does not win."""
    mine = rounds.results(action)
    size = rounds.size
    margin, slack = MARGIN * size, SLACK * size
    wins, losses = mine.count(2), mine.count(0)
    for other in AI_ORDER:
        if other == action:
            continue
        theirs, steps = rounds.progress(other)
        seen = [j for j, r in enumerate(theirs) if r >= 0]
        won = sum(theirs[j] == 2 for j in seen)
        lost = sum(theirs[j] == 0 for j in seen)
        ahead = sum(theirs[j] > mine[j] for j in seen)
        level = all(theirs[j] >= mine[j] for j in seen)
        left = size - len(seen)
        open_ = sum(mine[j] < 2 for j in range(size)) - sum(mine[j] < 2 for j in seen)
        while won + left >= wins + margin and lost <= losses + slack or level and ahead + open_ >= 2:
            settled = next(steps, None)
            if settled is None:  # every world played: the rule itself
                if _beats(theirs, mine, margin, slack):
                    return True
                break
            for j in settled:
                r, m = theirs[j], mine[j]
                won += r == 2
                lost += r == 0
                ahead += r > m
                level = level and r >= m
                open_ -= m < 2
            left -= len(settled)
    return False


def safe_action(state: ShopBattleState, seat: int, legal: tuple[ShopBattleAction, ...]) -> ShopBattleAction:
    """The normal level (``ShopBattle.ai_action``): :func:`choose_action`, except that an
    announcement :func:`dominated` on its card is replaced by the best of the others by the
    same expected cards (the estimate of :func:`choose_action` can miss a Collector's effect,
    such as a known ``swap`` that hands the opponent the chooser's next card). The candidates
    are judged best first, each by :func:`_dominated`, so the others' rounds are played only
    as far as that judgement needs them."""
    choice = choose_action(state, seat, legal)
    if state.phase != "choose" or not state.piles[seat]:
        return choice
    rounds = _rounds(state, seat)
    left = legal
    while True:
        assert isinstance(choice, Choose)
        if not _dominated(rounds, choice):
            return choice
        left = tuple(a for a in left if a != choice)
        choice = choose_action(state, seat, left)


def choose_action(state: ShopBattleState, seat: int, legal: tuple[ShopBattleAction, ...]) -> ShopBattleAction:
    """The AI's choice among ``legal`` (non-empty) for ``seat``.

    Chooser: for every characteristic and direction, the expected cards won (:func:`contest`:
    an outright win takes the pot and every revealed card, a loss costs the card, a tie is a
    bataille worth about half of a bigger pot; a known Collector on an opponent's top is
    revealed and its next card counts; unknown cards are drawn from the shop cards it has never
    seen); picks the best (ties: characteristic order, higher before lower).
    ``peek``: the player with the most cards (ties: rotation order). ``swap``: the player whose
    top card is the strongest as far as it knows (unknown = average), then most cards.
    """
    if state.phase == "choose":
        top = state.piles[seat][0]
        pool, know = _pool(state, seat, top)
        best: tuple[float, int] | None = None
        choice: ShopBattleAction = legal[0]
        for rank, action in enumerate(AI_ORDER):
            if action not in legal:
                continue
            p_win, p_tie, won = contest(state, seat, top, action.char, action.hi, pool, know)
            # Expected cards: +gain on a win, -1 (the card) on a loss; a tie starts a bataille
            # for the pot and one more card each: about (gain + 1) / 2 won, 2 at stake (S5).
            value = p_win * won + p_tie * (won - 1) / 2 - (1.0 - p_win - p_tie)
            key = (round(value, 9), -rank)
            if best is None or key > best:
                best, choice = key, action
        return choice
    assert state.pending is not None
    card = state.cards[state.pending.card]
    targets = list(state.pending.targets)
    order = {s: k for k, s in enumerate((seat + CCW * k) % state.players for k in range(1, state.players))}
    if isinstance(card, CollectorCard) and card.kind == "swap":
        pool, know = _pool(state, seat, None)
        strength = card_table(state.cards, state.rules).strength
        avg = sum(strength[c] for c in pool) / len(pool)

        def gain(t: int) -> float:
            top = state.piles[t][0]
            return strength[top] if top in know else avg

        pick = max(targets, key=lambda t: (round(gain(t), 9), len(state.piles[t]), -order.get(t, 0)))
    else:
        pick = max(targets, key=lambda t: (len(state.piles[t]), -order.get(t, 0)))
    return Target(target=pick)

