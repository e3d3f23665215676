"""High Card (``high-card``), 2–3 players: the :class:`HighCard` game. Test-only: it exists to
prove that ``docs/ARCHITECTURE.md``, "How to add a game", is complete.

Rules: ``tests/fifth_game/rules.md``.

Game flow
---------
Each seat is dealt ``rounds`` cards (values 1–15, one of each, shuffled). A round has two steps:

1. **play** (simultaneous): every seat puts one card of its hand face down (:class:`Play`);
   once all have chosen, the cards are revealed together.
2. **decide** (turn-based): from the round's leader clockwise, each seat keeps its revealed card
   (:class:`Keep`) or swaps it for the top card of the deck (:class:`Redraw`, while the deck has
   cards).

The highest revealed card wins the round: one point (the cards are distinct, so one seat wins
it). After the last round the most points win; ties share the place.

Events (public unless noted; seats are ints)
--------------------------------------------
``hc.dealt`` {seat, cards} (audience: that seat; an opening event) · ``hc.reveal`` {cards (one per
seat)} · ``hc.keep`` {seat, card} · ``hc.redraw`` {seat, old, new} · ``hc.round`` {round,
winners, card} · ``hc.end`` {winners, points}.

Chance
------
The only chance is the deal: :func:`deal` shuffles the cards with a private ``random.Random``
derived from the seed; redraws take the top of the dealt deck. Tests script the deal with
:func:`scripted_setup` (exact hands and deck order).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from pydantic import Field

from engine.core import Event, Game, GameOptions, IllegalAction, Outcome, Step
from tests.fifth_game.high_card import ai
from tests.fifth_game.high_card.actions import KEEP, REDRAW, HighCardAction, Play, Redraw, decode, encode
from tests.fifth_game.high_card.state import CARDS, MAX_ROUNDS, HighCardState, decide_order
from tests.fifth_game.high_card.view import HighCardView, outcome_of, view_of

__all__ = ["HighCard", "HighCardOptions", "deal", "scripted_setup"]


class HighCardOptions(GameOptions):
    """Table options: ``rounds`` (2 or 3; the cards dealt to each seat)."""

    rounds: int = Field(default=MAX_ROUNDS, ge=2, le=MAX_ROUNDS)


def deal(seed: int, players: int, rounds: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """The chance helper: ``(hands, deck)`` shuffled from ``seed``; each hand sorted.

    >>> hands, deck = deal(7, 2, 3)
    >>> [len(h) for h in hands], len(deck), sorted(sum(hands, deck)) == list(CARDS)
    ([3, 3], 9, True)
    """
    cards = list(CARDS)
    random.Random(f"high-card:{seed}:deal").shuffle(cards)
    hands = tuple(tuple(sorted(cards[s * rounds:(s + 1) * rounds])) for s in range(players))
    return hands, tuple(cards[players * rounds:])


def _set(t: tuple[int, ...], i: int, v: int) -> tuple[int, ...]:
    return t[:i] + (v,) + t[i + 1:]


class HighCard(Game[HighCardState, HighCardAction, HighCardView]):
    """High Card for 2–3 players (``tests/fifth_game/rules.md``). Rules version 1."""

    key = "high-card"
    min_players = 2
    max_players = 3
    state_model = HighCardState
    options_model = HighCardOptions
    rules_version = 1
    conformance_options = ({}, {"rounds": 2})

    def setup(self, seed: int, players: int, options: GameOptions | Mapping[str, Any] | None = None) -> HighCardState:
        """Deal ``rounds`` cards to each seat (:func:`deal`). Raises ``ValueError`` unless
        ``2 <= players <= 3`` (or on bad options: ``pydantic.ValidationError``)."""
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"High Card needs 2 to 3 players, not {players}")
        opts = self.parse_options(options)
        assert isinstance(opts, HighCardOptions)
        hands, deck = deal(seed, players, opts.rounds)
        return HighCardState(seed=seed, players=players, rules=self.rules_version, hands=hands, deck=deck,
                             rounds=opts.rounds, points=(0,) * players)

    def opening_events(self, state: HighCardState) -> tuple[Event, ...]:
        """Each seat is told its hand privately."""
        return tuple(Event("hc.dealt", {"seat": s, "cards": list(h)}, frozenset({s}))
                     for s, h in enumerate(state.hands))

    def to_act(self, state: HighCardState) -> frozenset[int]:
        """Every seat during ``play``; the deciding seat during ``decide``; nobody when over."""
        if state.phase == "play":
            return frozenset(range(state.players))
        current = state.current
        return frozenset() if current is None else frozenset((current,))

    def legal_actions(self, state: HighCardState, seat: int) -> tuple[HighCardAction, ...]:
        """A :class:`Play` per card in hand (``play``); :class:`Keep`, then :class:`Redraw` while
        the deck has cards (``decide``); nothing for a seat not to act."""
        if seat not in self.to_act(state):
            return ()
        if state.phase == "play":
            return tuple(Play(c) for c in state.hands[seat])
        return (KEEP, REDRAW) if state.deck else (KEEP,)

    def apply(self, state: HighCardState, actions: Mapping[int, HighCardAction]) -> Step[HighCardState]:
        """Reveal the played cards, or apply the deciding seat's keep/redraw (then score the
        round after the last seat). Raises :class:`IllegalAction` unless ``actions`` is one legal
        action per seat of ``to_act``."""
        self.check_actions(state, actions)
        version = state.version + 1
        if state.phase == "play":
            played = tuple(actions[s].card for s in range(state.players))  # type: ignore[union-attr]
            hands = tuple(tuple(c for c in h if c != played[s]) for s, h in enumerate(state.hands))
            events = [Event("hc.reveal", {"cards": list(played)})]
            return Step(replace(state, version=version, hands=hands, shown=played, phase="decide", turn=0),
                        tuple(events))
        seat = decide_order(state)[state.turn]
        action = actions[seat]
        shown, deck = state.shown, state.deck
        if isinstance(action, Redraw):
            shown, deck = _set(shown, seat, deck[0]), deck[1:]
            events = [Event("hc.redraw", {"seat": seat, "old": state.shown[seat], "new": shown[seat]})]
        else:
            events = [Event("hc.keep", {"seat": seat, "card": shown[seat]})]
        new = replace(state, version=version, shown=shown, deck=deck, turn=state.turn + 1)
        if new.turn < state.players:
            return Step(new, tuple(events))
        return Step(self._score(new, events), tuple(events))

    def _score(self, state: HighCardState, events: list[Event]) -> HighCardState:
        """End of the round: the seat of the highest revealed card scores a point."""
        best = max(state.shown)
        winners = [s for s, c in enumerate(state.shown) if c == best]
        points = tuple(p + (1 if s in winners else 0) for s, p in enumerate(state.points))
        events.append(Event("hc.round", {"round": state.round, "winners": winners, "card": best}))
        if state.round >= state.rounds:
            events.append(Event("hc.end", {"winners": list(outcome_of(points).winners), "points": list(points)}))
            return replace(state, points=points, phase="over", turn=0)
        return replace(state, points=points, round=state.round + 1, phase="play", shown=(), turn=0)

    def view(self, state: HighCardState, seat: int | None) -> HighCardView:
        """The typed view of ``seat`` (``None`` = public); see :mod:`tests.fifth_game.high_card.view`."""
        return view_of(state, seat)

    def outcome(self, state: HighCardState) -> Outcome | None:
        """Ranks by points (ties share); scores = points. ``None`` until the game is over."""
        return outcome_of(state.points) if state.phase == "over" else None

    def hidden_variant(self, state: HighCardState, seat: int | None, salt: int) -> HighCardState:
        """Other seats' hands and the deck re-dealt among themselves from ``salt`` (sizes kept)."""
        base = super().hidden_variant(state, seat, salt)
        others = [s for s in range(state.players) if s != seat]
        pool = [c for s in others for c in state.hands[s]] + list(state.deck)
        random.Random(f"variant:{salt}").shuffle(pool)
        hands = list(state.hands)
        for s in others:
            n = len(state.hands[s])
            hands[s], pool = tuple(sorted(pool[:n])), pool[n:]
        return replace(base, hands=tuple(hands), deck=tuple(pool))

    def ai_action(self, state: HighCardState, seat: int) -> HighCardAction:
        """The baseline AI (:func:`tests.fifth_game.high_card.ai.choose`); raises
        :class:`IllegalAction` when ``seat`` is not to act."""
        if seat not in self.to_act(state):
            raise IllegalAction(f"seat {seat} is not to act")
        return ai.choose(state, seat)

    def encode(self, action: HighCardAction) -> str:
        """``p{card}``, ``k`` or ``r`` (:mod:`tests.fifth_game.high_card.actions`)."""
        return encode(action)

    def decode(self, code: str) -> HighCardAction:
        """Inverse of :meth:`encode`; raises :class:`IllegalAction` on a malformed code."""
        return decode(code)


def scripted_setup(hands: Iterable[Iterable[int]], deck: Iterable[int] = (), *, seed: int = 0) -> HighCardState:
    """A new game with exactly these ``hands`` (one per seat, same size = the rounds) and this
    ``deck`` order: the chance helper for scripted tests.

    Raises ``ValueError`` on a bad seat count, hands of different or bad sizes, or cards that
    are not distinct values of 1–15.
    """
    hs = tuple(tuple(sorted(h)) for h in hands)
    dk = tuple(deck)
    if not HighCard.min_players <= len(hs) <= HighCard.max_players:
        raise ValueError("2 or 3 hands")
    rounds = len(hs[0])
    if any(len(h) != rounds for h in hs) or not 2 <= rounds <= MAX_ROUNDS:
        raise ValueError("every hand must hold 2 or 3 cards")
    every = [c for h in hs for c in h] + list(dk)
    if len(set(every)) != len(every) or not set(every) <= set(CARDS):
        raise ValueError("cards must be distinct values of 1-15")
    return HighCardState(seed=seed, players=len(hs), rules=HighCard.rules_version, hands=hs, deck=dk,
                         rounds=rounds, points=(0,) * len(hs))
