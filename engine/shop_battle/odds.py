"""The chooser's chance to win the round with each announcement (RULINGS S2, S4, S5; rules 5:
S3), over exactly the cards it has not seen: the one place of the engine where an announcement's
round is played out in the worlds the chooser cannot tell from the true one. The normal AI's
refusal of dominated announcements (:func:`engine.shop_battle.ai.dominated`, which the strong
search also prunes with) and the losing-move checker (``tests/blunders/shop_battle.py``) both
count on it; each judges the results by its own rule.

Whatever is announced, the same cards are revealed (S4), and most rounds are settled by the
first card the chooser cannot see that the round reveals (:func:`first_unseen`: usually the
top card of the next opponent). That card is counted exactly: every card the
chooser has not seen (the others' face-down cards, its own cards under its top, the face-down
pot, the cards set aside by the deal) lies there in the same number of worlds
(:func:`~engine.shop_battle.hidden.pinned_variants`), the rest of the unseen cards re-dealt at
random in each. A round that reveals no unseen card but that one, and asks no Collector's
target, ends the same way in every world with that card there, so it is played once for them
all (the results are those of playing every world). The other unseen cards a round reveals
(after a Collector, in a bataille) are sampled, so the deals per card set the precision there.

Where its speed comes from: a decision's worlds are dealt once and serve every announcement
(:class:`Rounds`; :class:`~engine.shop_battle.hidden.Pinned` finds the unseen places once); a
round is played only to its end (``advance(..., round_end=True)``: its result is read from its
:class:`~engine.shop_battle.state.LastRound`, the next chooser and pre-choice are not run); and
an announcement's rounds are played only as far as its caller asks (the normal level stops
playing an announcement once it can no longer dominate the one judged:
:func:`engine.shop_battle.ai.safe_action`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from engine.shop_battle.actions import Choose, Target
from engine.shop_battle.hidden import Pinned, hidden_variant
from engine.shop_battle.round import advance
from engine.shop_battle.state import LastRound, ShopBattleState, knowledge

__all__ = ["Rounds", "TargetPick", "first_unseen", "round_results"]

#: ``pick(state, owner)``: the target a Collector's owner picks (phase ``target``, ``state.pending``).
TargetPick = Callable[[ShopBattleState, int], Target]


def first_unseen(state: ShopBattleState, seat: int) -> tuple[int, int] | None:
    """The place ``(pile seat, index)`` of the first card ``seat`` (the chooser) does not know
    that a round is likely to reveal: the top-most such card of the first other player still in,
    in reveal order (S4: the current direction from the chooser), whose pile holds one; when it
    knows every card of the others' piles, the top-most such card of its own pile (revealed in a
    bataille, or handed to another player by a ``swap``); ``None`` when it knows every card of
    every pile."""
    know = knowledge(state, seat)
    n = state.players
    for o in [(seat + state.direction * k) % n for k in range(1, n)] + [seat]:
        if state.out[o] is not None:
            continue
        for i, c in enumerate(state.piles[o]):
            if c not in know:
                return o, i
    return None


def _play(state: ShopBattleState, seat: int, action: Choose, pick: TargetPick) -> tuple[LastRound, bool]:
    """The round ``seat`` announces ``action`` in, played to its end by the rules (``advance``
    up to the round's end, a Collector's target by ``pick``): ``(the round's summary, whether a
    target was picked)``."""
    out, _ = advance(state, action, round_end=True)
    picked = False
    while isinstance(out, ShopBattleState):  # stopped at a Collector's target
        assert out.phase == "target" and out.pending is not None
        out, _ = advance(out, pick(out, out.pending.owner), round_end=True)
        picked = True
    return out, picked


def _settled(last: LastRound, picked: bool, know: frozenset[int], card: int) -> bool:
    """Whether a round was settled by the known cards ``know`` and ``card`` alone: no target
    picked, no other unseen card revealed (it then ends the same in every deal of ``card``)."""
    return not picked and all(c in know or c == card for plays in last.plays for c, _level in plays)


def _result(last: LastRound, seat: int) -> int:
    """2 when ``seat`` took the pot, 1 when nobody did (carried, S5), 0 when another player did."""
    return 1 if last.winner is None else (2 if last.winner == seat else 0)


class Rounds:
    """The rounds of one chooser's decision: each announcement's results in the worlds of
    :func:`round_results` (the same arguments), every world dealt once and kept for every
    announcement, each announcement's rounds played as far as they are asked for
    (:meth:`results`: all of them; :meth:`progress`: a few worlds at a time). ``size``: the
    number of worlds. ``ValueError`` outside the chooser's decision."""

    def __init__(self, state: ShopBattleState, seat: int, deals: int, *, salt: int, pick: TargetPick) -> None:
        if state.phase != "choose" or seat != state.chooser or not state.piles[seat]:
            raise ValueError("round_results is for the chooser's announcement")
        self._state, self._seat, self._deals, self._salt, self._pick = state, seat, deals, salt, pick
        place = first_unseen(state, seat)
        self._pinned = None if place is None else Pinned(state, seat, place)
        self._cards = [] if self._pinned is None else sorted(self._pinned.cards)
        self._know = knowledge(state, seat)
        self.size = deals * (len(self._cards) or 1)
        self._worlds: dict[int, ShopBattleState] = {}
        self._results: dict[Choose, list[int]] = {}  # -1: not played yet
        self._work: dict[Choose, Iterator[list[int]]] = {}
        self._dealt: set[int] = set()  # the cards whose round revealed another unseen card

    def _world(self, j: int) -> ShopBattleState:
        """World ``j``: with a first unseen place, deal ``j // u`` of the ``j % u``-th unseen
        card there; without, ``hidden_variant`` of salt ``salt + j``."""
        world = self._worlds.get(j)
        if world is None:
            if self._pinned is None:
                world = hidden_variant(self._state, self._seat, self._salt + j)
            else:
                d, i = divmod(j, len(self._cards))
                world = self._pinned(self._salt + d, self._cards[i])
            self._worlds[j] = world
        return world

    def _rounds(self, action: Choose, results: list[int]) -> Iterator[list[int]]:
        """Plays ``action``'s rounds into ``results``, yielding after each play the worlds it
        settled: a round settled by the known cards and the card at the first unseen place
        (no other unseen card revealed, no target picked) settles every deal of that card. Such
        a round is tried first in the true state with that card placed
        (:meth:`~engine.shop_battle.hidden.Pinned.placed`): the round reads the same cards in
        every world with that card there, so its result is theirs; when it reveals another unseen
        card (for one announcement: the others are then played in the dealt worlds at once), the
        dealt worlds are played."""
        seat, pick = self._seat, self._pick
        if self._pinned is None:
            for j in range(self.size):
                results[j] = _result(_play(self._world(j), seat, action, pick)[0], seat)
                yield [j]
            return
        know, cards, u = self._know, self._cards, len(self._cards)
        assert self._pinned is not None
        redo = []
        for i, card in enumerate(cards):
            if i not in self._dealt:  # first in the world of the true state with the card placed
                last, picked = _play(self._pinned.placed(card), seat, action, pick)
                if _settled(last, picked, know, card):
                    yield self._fill(results, i, _result(last, seat))
                    continue
                self._dealt.add(i)  # other unseen cards count here: the dealt worlds from now on
            last, picked = _play(self._world(i), seat, action, pick)
            results[i] = _result(last, seat)
            if _settled(last, picked, know, card):  # the same in every deal of this card
                yield self._fill(results, i, results[i])
            else:
                redo.append(i)
                yield [i]
        for d in range(1, self._deals):
            for i in redo:
                j = d * u + i
                results[j] = _result(_play(self._world(j), seat, action, pick)[0], seat)
                yield [j]

    def _fill(self, results: list[int], i: int, result: int) -> list[int]:
        """``result`` in every deal of the ``i``-th unseen card; those worlds."""
        every = list(range(i, self.size, len(self._cards)))
        for j in every:
            results[j] = result
        return every

    def progress(self, action: Choose) -> tuple[list[int], Iterator[list[int]]]:
        """``(results, steps)``: ``action``'s results so far (2 won, 1 carried, 0 lost, -1 not
        played yet), and an iterator that plays the next rounds into that list, yielding the
        worlds each play settled (empty once every world is settled)."""
        results = self._results.get(action)
        if results is None:
            results = self._results[action] = [-1] * self.size
            self._work[action] = self._rounds(action, results)
        return results, self._work[action]

    def results(self, action: Choose) -> tuple[int, ...]:
        """``action``'s result in every world (2 won, 1 carried, 0 lost), as :func:`round_results`."""
        results, steps = self.progress(action)
        for _ in steps:
            pass
        return tuple(results)


def round_results(state: ShopBattleState, seat: int, actions: Iterable[Choose], deals: int, *, salt: int,
                  pick: TargetPick) -> dict[Choose, tuple[int, ...]]:
    """Each announcement of ``actions`` and its results (2 won, 1 carried, 0 lost, as
    :func:`_result`) in the same worlds, for the chooser ``seat`` (phase ``choose``): world
    ``d * u + i`` (``d`` < ``deals``, ``u`` the number of cards ``seat`` has not seen) holds the
    ``i``-th of those cards (by id) at :func:`first_unseen`, the other unseen cards dealt by
    ``salt + d``; when ``seat`` knows every card of every pile, ``deals`` worlds of
    ``hidden_variant`` (salts ``salt``, ``salt + 1``, ...). Reproducible from ``state`` and
    ``salt``. ``ValueError`` outside the chooser's decision. (:class:`Rounds` keeps the worlds
    for more announcements.)"""
    rounds = Rounds(state, seat, deals, salt=salt, pick=pick)
    return {a: rounds.results(a) for a in actions}
