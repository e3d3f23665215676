"""Three-Player Moon: a domino trick-taking game for exactly 3 players (RULINGS T1–T7).

Tiles are ``(high, low)`` pairs of pips with ``high >= low`` (``Tile``), drawn ``[6|4]``.

Rules implemented (see ``docs/rules/three-player-moon.md`` and RULINGS T1–T7):

- T1. 22 tiles: the double-six set without the blank suit but keeping ``[0|0]``. Each hand deals
  7 tiles to each seat and 1 face down (the *widow*). ``deal_order`` / ``deal_hands`` take an
  explicit deal so tests can stack hands; the engine draws the order from ``rng_for(state, "deal")``.
- T2. Bidding: the first bidder of hand 1 is random (from the seed), then moves one seat clockwise
  (``seat + 1 mod 3``) every hand, redeals included. Each seat bids once, clockwise from the first
  bidder: pass (``0``), a number 4–7 higher than the current bid, or 21 (*shoot the moon*), which
  ends the bidding at once. Three passes: the hand is redealt (a new hand number, same scores).
- T3. The high bidder takes the widow into hand (8 tiles), discards one face down (it may be the
  widow), then names trumps: a suit 0–6, doubles (``"D"``) or no trump (``"N"``).
- T4. Suits: a tile belongs to both of its numbers, a double to its number only. A trump tile
  belongs only to the trump suit. The double is the highest tile of its suit, the others rank by
  their other end. Doubles as trumps: the 7 doubles are the trump suit, ``[6|6]`` high to ``[0|0]``
  low, and belong to no number. No trump: every tile keeps its suits.
- T5. The bidder leads any tile. A led trump asks for trumps; a led non-trump tile asks for the
  suit of its higher end. Follow suit if you can (a tile follows a number suit through either
  end, unless it is a trump), otherwise play anything. Highest trump wins, else the highest tile
  of the led suit. The winner leads the next trick.
- T6. After 7 tricks: a made bid scores the bid (no overtricks), a set bidder loses the bid. A made
  21 wins the game at once; a failed 21 costs 21. The two others score 1 point per trick won.
- T7. After a hand where someone has 21 or more, the highest score wins; if the top is shared,
  more hands are played until one seat is strictly ahead. Scores may be negative.

Interpretations where the rules are silent:

- A bid of 21 is legal whatever the current bid (it is always higher), so bidding ends at once.
- A made moon wins the game at once (T6) and scores 21 like any made bid, even when that leaves
  the shooter's score below another seat's (e.g. -8 + 21 against 20): the outcome ranks the
  shooter first by the rule, and the two others by score.
- All 7 tricks are always played, even when the bid is already made or set (the others' tricks
  still score).
- The discard is never shown to anyone but the bidder, not even after the hand; the widow tile is
  known only to the bidder (after the pickup).
- Hands flow automatically: after the 7th trick the hand is scored and the next hand is dealt in
  the same step (no acknowledge step). ``last_hand`` in the view reports the result.
- Safety cap: if ``MAX_HANDS`` hands have been played (all-pass redeals included) and the game
  has not ended, it ends with the current scores (shared top = shared first place). Never reached
  in normal play; it only guarantees termination.

Action codes: see :mod:`engine.three_player_moon.actions`.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any, ClassVar

from engine.chance import rng_for
from engine.core import Event, Game, GameOptions, IllegalAction, Outcome, Step, ranks_from_scores
from engine.fast import event, replacer, step_of
from engine.three_player_moon import ai, hidden
from engine.three_player_moon.actions import Bid, Discard, MoonAction, NameTrump, Play, decode, encode
from engine.three_player_moon.state import MAX_HANDS, HandResult, MoonState, evolve, shuffled_tiles, start_hand
from engine.three_player_moon.tiles import (
    _FOLLOWERS,
    ALL_TILES,
    MOON,
    TARGET,
    TRICKS,
    TRUMP_OPTIONS,
    Tile,
    sort_hand,
    tile_str,
    trick_winner,
)
from engine.three_player_moon.view import BidderView, MoonView, SeatView

__all__ = ["ThreePlayerMoon"]


def _without(hands: tuple[tuple[Tile, ...], ...], seat: int, tile: Tile) -> tuple[tuple[Tile, ...], ...]:
    """``hands`` (three) with ``tile`` (held once) removed from ``seat``'s hand."""
    h0, h1, h2 = hands
    hand = hands[seat]
    i = hand.index(tile)
    rest = hand[:i] + hand[i + 1:]
    return (rest, h1, h2) if seat == 0 else (h0, rest, h2) if seat == 1 else (h0, h1, rest)


#: Shared action values (equal to new ones; legal action tuples are built from them).
_PLAYS: dict[Tile, Play] = {t: Play(t) for t in ALL_TILES}
_DISCARDS: dict[Tile, Discard] = {t: Discard(t) for t in ALL_TILES}
_NAME_TRUMPS: tuple[NameTrump, ...] = tuple(NameTrump(x) for x in TRUMP_OPTIONS)
#: The legal bids over each current bid (T2): pass, the numbers above it, the moon.
_BIDS: dict[int, tuple[Bid, ...]] = {
    high: (Bid(0), *(Bid(n) for n in range(4, 8) if n > high), Bid(MOON)) for high in (0, 4, 5, 6, 7, MOON)
}
_TILE_STR: dict[Tile, str] = {t: tile_str(t) for t in ALL_TILES}
_NOBODY: frozenset[int] = frozenset()
_ONLY: tuple[frozenset[int], ...] = (frozenset((0,)), frozenset((1,)), frozenset((2,)))
#: ``_FOLLOW_PLAYS[trump][led tile]``: the shared :class:`Play` of each tile that follows the
#: suit the led tile asks for (T5; ``_FOLLOWERS`` as actions).
_FOLLOW_PLAYS: dict[str | None, dict[Tile, dict[Tile, Play]]] = {
    trump: {lead: {t: _PLAYS[t] for t in ALL_TILES if t in members} for lead, members in by_lead.items()}
    for trump, by_lead in _FOLLOWERS.items()
}
# One copy per play (engine.fast.replacer): the fields a play sets.
_mid_trick = replacer(MoonState, "hands", "trick", "played", "turn", "version")
_trick_done = replacer(MoonState, "hands", "trick", "played", "turn", "leader", "tricks_won", "last_trick",
                       "last_winner", "version")


def _is_follow(trump: str | None, lead: Tile, tile: Tile, hand: tuple[Tile, ...]) -> bool:
    """T5: ``tile`` (held) may be played on a trick led by ``lead``: it follows the led suit, or
    ``hand`` has no tile of that suit."""
    members = _FOLLOWERS[trump][lead]
    return tile in members or members.isdisjoint(hand)


# The copies of the bidding steps (engine.fast.replacer).
_bid_on = replacer(MoonState, "bids", "bidder", "bid", "turn", "version")
_bid_won = replacer(MoonState, "bids", "bidder", "bid", "hands", "phase", "turn", "version")
_discarded = replacer(MoonState, "hands", "discard", "phase", "version")
_trump_named = replacer(MoonState, "trump", "phase", "turn", "leader", "version")
#: A new hand dealt (``start_hand``'s fields, the version, scores and last hand), in one copy.
_new_hand = replacer(MoonState, "hand_no", "first_bidder", "phase", "hands", "widow", "discard", "bids", "bidder",
                     "bid", "trump", "turn", "leader", "trick", "tricks_won", "played", "last_trick", "last_winner",
                     "version", "scores", "last_hand")


class ThreePlayerMoon(Game[MoonState, MoonAction, MoonView]):
    """Three-Player Moon (registry key ``three-player-moon``, exactly 3 seats). See the module docstring."""

    key: ClassVar[str] = "three-player-moon"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 3
    state_model: ClassVar[type[Any]] = MoonState
    options_model: ClassVar[type[GameOptions]] = GameOptions
    progress_unit: ClassVar[str] = "hands"

    # --- lifecycle -------------------------------------------------------------------------
    def setup(self, seed: int, players: int, options: GameOptions | Mapping[str, Any] | None = None) -> MoonState:
        """Deal hand 1 with a random first bidder (T1, T2). Raises ``ValueError`` unless ``players == 3``."""
        if players != 3:
            raise ValueError("Three-Player Moon needs exactly 3 players")
        self.parse_options(options)
        rng = random.Random(f"{seed}:setup")
        first = rng.randrange(3)
        base = MoonState(seed=seed, players=3, rules=self.rules_version)
        return start_hand(base, shuffled_tiles(rng), first, 1)

    def to_act(self, state: MoonState) -> frozenset[int]:
        """The single seat to act, or nobody once the game is over."""
        if state.phase == "over":
            return _NOBODY
        return _ONLY[state.turn]

    def legal_actions(self, state: MoonState, seat: int) -> tuple[MoonAction, ...]:
        """Legal actions of ``seat`` now (T2, T3, T5); empty when it is not to act."""
        phase = state.phase
        if phase == "over" or seat != state.turn:
            return ()
        if phase == "play":  # legal_plays (T5), inlined
            hand = state.hands[seat]
            trick = state.trick
            if trick:
                follow: tuple[MoonAction, ...] = tuple(filter(None, map(_FOLLOW_PLAYS[state.trump][trick[0][1]].get, hand)))
                if follow:
                    return follow
            return tuple(map(_PLAYS.__getitem__, hand))
        if phase == "bid":
            bids = _BIDS.get(state.bid)
            return bids if bids is not None else (Bid(0), *(Bid(n) for n in range(4, 8) if n > state.bid), Bid(MOON))
        if phase == "discard":
            return tuple(map(_DISCARDS.__getitem__, state.hands[seat]))
        return _NAME_TRUMPS

    def is_legal(self, state: MoonState, seat: int, action: object) -> bool:
        """``action in legal_actions(state, seat)``, without building the tuple (the hot path of
        :meth:`apply`)."""
        if state.phase == "over" or seat != state.turn:
            return False
        if state.phase == "play":
            if type(action) is not Play:
                return False
            hand = state.hands[seat]
            tile = action.tile
            if tile not in hand:
                return False
            if not state.trick:
                return True
            # T5 (as legal_plays): follow the led suit, or play anything when void in it.
            members = _FOLLOWERS[state.trump][state.trick[0][1]]
            return tile in members or members.isdisjoint(hand)
        if state.phase == "bid":
            if type(action) is not Bid:
                return False
            n = action.bid
            return n == 0 or n == MOON or (n in (4, 5, 6, 7) and n > state.bid)
        if state.phase == "discard":
            return type(action) is Discard and action.tile in state.hands[seat]
        return type(action) is NameTrump and action.trump in TRUMP_OPTIONS

    def apply(self, state: MoonState, actions: Mapping[int, MoonAction]) -> Step[MoonState]:
        """Apply the acting seat's action; raises :class:`IllegalAction` when the game is over,
        when ``actions`` is not exactly ``{turn: action}`` or when the action is not legal."""
        if state.phase == "over":
            raise IllegalAction("the game is over")
        seat = state.turn
        if len(actions) != 1 or seat not in actions:
            raise IllegalAction(f"expected actions from seats [{seat}], got {sorted(actions)}")
        action = actions[seat]
        v = state.version + 1  # every phase returns its state with this version: one copy per step
        kind = type(action)
        if kind is Play and state.phase == "play":  # the hot path: is_legal and _play, inlined
            tile = action.tile  # type: ignore[union-attr]
            hands = state.hands
            hand = hands[seat]
            trick = state.trick
            if tile not in hand or (trick and not _is_follow(state.trump, trick[0][1], tile, hand)):
                raise IllegalAction(f"seat {seat}: that action is not legal now")
            if len(trick) < 2:
                i = hand.index(tile)
                rest = hand[:i] + hand[i + 1:]
                h0, h1, h2 = hands
                hands = (rest, h1, h2) if seat == 0 else (h0, rest, h2) if seat == 1 else (h0, h1, rest)
                return step_of(_mid_trick(state, hands, trick + ((seat, tile),), state.played + (tile,),
                                          (seat + 1) % 3, v),
                               (event("tpm.play", {"seat": seat, "tile": _TILE_STR[tile]}),))
        if not self.is_legal(state, seat, action):
            raise IllegalAction(f"seat {seat}: that action is not legal now")
        events: list[Event] = []
        if kind is Play:
            new = self._play(state, seat, action.tile, events, v)  # type: ignore[union-attr]
        elif kind is Bid:
            new = self._bid(state, seat, action.bid, events, v)  # type: ignore[union-attr]
        elif kind is Discard:
            new = self._discard(state, seat, action.tile, events, v)  # type: ignore[union-attr]
        else:
            new = self._name_trump(state, seat, action.trump, events, v)  # type: ignore[union-attr]
        return step_of(new, tuple(events))

    # --- phases ----------------------------------------------------------------------------
    def _bid(self, state: MoonState, seat: int, bid: int, events: list[Event], v: int) -> MoonState:
        bids = state.bids + ((seat, bid),)
        bidder, high = state.bidder, state.bid
        if bid:
            bidder, high = seat, bid
            events.append(event("tpm.moon_bid" if bid == MOON else "tpm.bid", {"seat": seat, "bid": bid}))
        else:
            events.append(event("tpm.pass", {"seat": seat}))
        if bid != MOON and len(bids) < 3:
            return _bid_on(state, bids, bidder, high, (seat + 1) % 3, v)
        if bidder is None:
            events.append(event("tpm.redeal", {"hand": state.hand_no}))
            return self._next_hand(state, events, v)
        widow = state.widow
        assert widow is not None
        hand = sort_hand(state.hands[bidder] + (widow,))
        hands = tuple(hand if s == bidder else h for s, h in enumerate(state.hands))
        events.append(event("tpm.widow_taken", {"bidder": bidder}))
        events.append(event("tpm.widow_tile", {"bidder": bidder, "tile": tile_str(widow)}, frozenset((bidder,))))
        return _bid_won(state, bids, bidder, high, hands, "discard", bidder, v)

    def _discard(self, state: MoonState, seat: int, tile: Tile, events: list[Event], v: int) -> MoonState:
        events.append(event("tpm.discarded", {"bidder": seat}))
        events.append(event("tpm.discard_tile", {"bidder": seat, "tile": _TILE_STR[tile]}, _ONLY[seat]))
        return _discarded(state, _without(state.hands, seat, tile), tile, "trump", v)

    def _name_trump(self, state: MoonState, seat: int, trump: str, events: list[Event], v: int) -> MoonState:
        if trump == "D":
            events.append(event("tpm.trump_doubles", {"bidder": seat}))
        elif trump == "N":
            events.append(event("tpm.trump_none", {"bidder": seat}))
        else:
            events.append(event("tpm.trump_suit", {"bidder": seat, "suit": int(trump)}))
        return _trump_named(state, trump, "play", seat, seat, v)

    def _play(self, state: MoonState, seat: int, tile: Tile, events: list[Event], v: int) -> MoonState:
        hands = _without(state.hands, seat, tile)
        trick = state.trick + ((seat, tile),)
        played = state.played + (tile,)
        events.append(event("tpm.play", {"seat": seat, "tile": _TILE_STR[tile]}))
        if len(trick) < 3:
            return _mid_trick(state, hands, trick, played, (seat + 1) % 3, v)
        winner = trick_winner(trick, state.trump)
        w0, w1, w2 = state.tricks_won
        won = (w0 + (winner == 0), w1 + (winner == 1), w2 + (winner == 2))
        number = w0 + w1 + w2 + 1
        events.append(event("tpm.trick", {"winner": winner, "trick": number}))
        if number < TRICKS:
            return _trick_done(state, hands, (), played, winner, winner, won, trick, winner, v)
        return self._score(_trick_done(state, hands, (), played, winner, winner, won, trick, winner, state.version),
                           events, v)

    def _score(self, state: MoonState, events: list[Event], v: int) -> MoonState:
        """Score a finished hand (T6), then end the game (T7) or deal the next hand. ``state``
        still has the version before the step; the result has version ``v``."""
        bidder, bid, trump = state.bidder, state.bid, state.trump
        assert bidder is not None and trump is not None
        took = state.tricks_won[bidder]
        made = took == TRICKS if bid == MOON else took >= bid
        p0, p1, p2 = ((bid if made else -bid) if s == bidder else state.tricks_won[s] for s in range(3))
        points = (p0, p1, p2)
        s0, s1, s2 = state.scores
        scores = (s0 + p0, s1 + p1, s2 + p2)
        key = "tpm.made" if made else "tpm.set"
        if bid == MOON:
            key = "tpm.moon_made" if made else "tpm.moon_failed"
        events.append(event(key, {"bidder": bidder, "bid": bid, "tricks": took}))
        for s in range(3):
            events.append(event("tpm.scored", {"seat": s, "points": points[s], "score": scores[s]}))
        result = HandResult(
            hand_no=state.hand_no, bidder=bidder, bid=bid, trump=trump, tricks=state.tricks_won, points=points, made=made
        )
        if bid == MOON and made:
            events.append(event("tpm.game_end_moon", {"winner": bidder}))
            return evolve(state, scores=scores, last_hand=result, phase="over", moon_winner=bidder, version=v)
        top = max(scores)
        if top >= TARGET:
            leaders = [s for s in range(3) if scores[s] == top]
            if len(leaders) == 1:
                events.append(event("tpm.game_end", {"winner": leaders[0], "score": top}))
                return evolve(state, scores=scores, last_hand=result, phase="over", version=v)
            events.append(event("tpm.tie_continue", {"score": top}))
        return self._next_hand(state, events, v, scores, result)

    def _next_hand(self, state: MoonState, events: list[Event], v: int, scores: tuple[int, int, int] | None = None,
                   result: HandResult | None = None) -> MoonState:
        """Deal the next hand (T2 rotation), or stop at the safety cap; the result has version
        ``v`` (and ``scores`` / ``last_hand`` = ``result`` when given: the hand just scored).
        ``state`` still has the version before the step: the deal is drawn from
        ``rng_for(state, "deal")`` of that version. One copy of the state."""
        kept = {} if scores is None else {"scores": scores, "last_hand": result}
        if state.hand_no >= MAX_HANDS:
            events.append(event("tpm.game_end_cap", {"hands": state.hand_no}))
            return evolve(state, phase="over", version=v, **kept)
        first = (state.first_bidder + 1) % 3
        hand_no = state.hand_no + 1
        order = shuffled_tiles(rng_for(state, "deal"))  # the 22 tiles themselves: no check needed
        hands = (sort_hand(order[0:7]), sort_hand(order[7:14]), sort_hand(order[14:21]))
        events.append(event("tpm.hand_start", {"hand": hand_no, "seat": first}))
        return _new_hand(state, hand_no, first, "bid", hands, order[21], None, (), None, 0, None, first, None, (),
                         (0, 0, 0), (), (), None, v, *((scores, result) if scores is not None else (state.scores,
                                                                                                 state.last_hand)))

    # --- views -----------------------------------------------------------------------------
    def view(self, state: MoonState, seat: int | None) -> MoonView:
        """The public :class:`MoonView` (``seat`` ``None`` or out of range), a seat's
        :class:`SeatView` (adds its hand) or, after the pickup, the bidder's :class:`BidderView`
        (adds the widow and the discard it knows; T3). Never another seat's tiles."""
        over = state.phase == "over"
        out = self.outcome(state)
        public: dict[str, Any] = dict(
            phase=state.phase,
            hand_no=state.hand_no,
            first_bidder=state.first_bidder,
            scores=state.scores,
            target=TARGET,
            bids=state.bids,
            bidder=state.bidder,
            bid=state.bid,
            trump=state.trump,
            turn=None if over else state.turn,
            to_act=() if over else (state.turn,),
            leader=state.leader,
            trick=state.trick,
            tricks_won=state.tricks_won,
            hand_sizes=tuple(len(h) for h in state.hands),
            widow_down=state.phase == "bid",
            discarded=state.discard is not None,
            played=state.played,
            last_trick=state.last_trick,
            last_winner=state.last_winner,
            last_hand=state.last_hand,
            moon_winner=state.moon_winner,
            winners=out.winners if out else (),
        )
        if seat is None or not 0 <= seat < 3:
            return MoonView(**public)
        if seat == state.bidder and state.phase != "bid":
            return BidderView(**public, seat=seat, hand=state.hands[seat], widow=state.widow, discard=state.discard)
        return SeatView(**public, seat=seat, hand=state.hands[seat])

    def hidden_variant(self, state: MoonState, seat: int | None, salt: int) -> MoonState:
        """Unseen tiles re-dealt, shown voids kept (:func:`engine.three_player_moon.hidden.hidden_variant`)."""
        return hidden.hidden_variant(state, seat, salt)

    def turn_order(self, state: MoonState) -> tuple[int, ...]:
        """Seats clockwise from the first bidder of hand 1 (T2), for ``simulate``'s positions."""
        return tuple((state.first_bidder + k) % 3 for k in range(3))

    def progress(self, state: MoonState) -> int:
        """Hands dealt so far (redeals included), for ``simulate``."""
        return state.hand_no

    def outcome(self, state: MoonState) -> Outcome | None:
        """Competition ranks by score (T7). A made moon wins the game at once (T6) whatever the
        scores: its shooter ranks first, the two others rank by score behind."""
        if state.phase != "over":
            return None
        scores = state.scores
        moon = state.moon_winner
        keys: list[tuple[Any, ...]] = [(s == moon, x) for s, x in enumerate(scores)]
        return Outcome(ranks=ranks_from_scores(keys), scores=tuple(scores))

    # --- codecs ----------------------------------------------------------------------------
    def encode(self, action: MoonAction) -> str:
        """``b<n>``, ``d<hi><lo>``, ``t<x>``, ``p<hi><lo>`` (see :mod:`engine.three_player_moon.actions`)."""
        return encode(action)

    def decode(self, code: str) -> MoonAction:
        """Inverse of :meth:`encode`; raises :class:`IllegalAction` on a malformed code
        (including a tile written low end first, e.g. ``p46``)."""
        return decode(self.check_code(code))

    # --- AI --------------------------------------------------------------------------------
    def ai_action(self, state: MoonState, seat: int) -> MoonAction:
        """The deterministic baseline AI (:func:`engine.three_player_moon.ai.choose`), using only
        what ``seat`` may see. Raises :class:`IllegalAction` when ``seat`` is not to act."""
        if state.phase == "over" or seat != state.turn:
            raise IllegalAction("seat is not to act")
        return ai.choose(state, seat)
