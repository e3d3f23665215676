"""Three-Player Moon: a domino trick-taking game for exactly 3 players (RULINGS T1–T7).

Tiles are ``(high, low)`` pairs of pips with ``high >= low`` (``Tile``), drawn ``[6|4]``.

Rules implemented (see ``shared/rules/three-player-moon-fr.txt`` and RULINGS T1–T7):

- T1. 22 tiles: the double-six set without the blank suit but keeping ``[0|0]``. Each hand deals
  7 tiles to each seat and 1 face down (the *widow*). :func:`deal_order` takes an explicit tile
  order so tests can stack hands; the engine draws the order from ``rng_for(state, "deal")``.
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
- Safety cap: if :data:`MAX_HANDS` hands have been played (all-pass redeals included) and the game
  has not ended, it ends with the current scores (shared top = shared first place). Never reached
  in normal play; it only guarantees termination.

Action codes: ``b0`` (pass), ``b4``..``b7``, ``b21``; ``d<high><low>`` (discard, e.g. ``d64``);
``t0``..``t6``, ``tD``, ``tN`` (trumps); ``p<high><low>`` (play, e.g. ``p64``).
"""

from __future__ import annotations

import random
from functools import lru_cache
from typing import Any, ClassVar, Iterable, Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from engine.core import (
    PydanticAction as Action,
    Event,
    Game,
    GameOptions,
    IllegalAction,
    Outcome,
    PydanticState as State,
    Step,
    ranks_from_scores,
    rng_for,
)

__all__ = [
    "ALL_TILES",
    "Bid",
    "Discard",
    "HandResult",
    "MAX_HANDS",
    "MoonState",
    "NameTrump",
    "Play",
    "TARGET",
    "TRUMP_OPTIONS",
    "TRUMP_SUIT",
    "ThreePlayerMoon",
    "belongs",
    "deal_order",
    "estimate_tricks",
    "is_trump",
    "led_suit",
    "legal_plays",
    "rank_in",
    "sort_hand",
    "start_hand",
    "suit_tiles",
    "tile_str",
    "trick_winner",
]

Tile = tuple[int, int]

#: The 22 tiles (T1): ``[0|0]`` plus every ``[a|b]`` with ``1 <= b <= a <= 6``.
ALL_TILES: tuple[Tile, ...] = ((0, 0),) + tuple((a, b) for a in range(1, 7) for b in range(1, a + 1))
#: Points to reach (T7).
TARGET = 21
#: The moon bid (T2).
MOON = 21
#: Trump choices (T3): suits ``"0"``..``"6"``, doubles ``"D"``, no trump ``"N"``.
TRUMP_OPTIONS: tuple[str, ...] = ("0", "1", "2", "3", "4", "5", "6", "D", "N")
#: Pseudo-suit number standing for "the trump suit" in :func:`led_suit` / :func:`belongs`.
TRUMP_SUIT = 7
#: Safety cap on the number of hands (see module docstring).
MAX_HANDS = 200
#: Number of tricks in a hand.
TRICKS = 7


def tile_str(tile: Sequence[int]) -> str:
    """Neutral display of a tile: ``(6, 4) -> "[6|4]"``."""
    return f"[{tile[0]}|{tile[1]}]"


def is_trump(tile: Tile, trump: str | None) -> bool:
    """True when ``tile`` is a trump for ``trump`` (T4): carries the trump number, is a double
    under doubles trumps; never under no trump (``"N"``) or before trumps are named (``None``)."""
    if trump is None or trump == "N":
        return False
    if trump == "D":
        return tile[0] == tile[1]
    t = int(trump)
    return t in tile


def led_suit(tile: Tile, trump: str | None) -> int:
    """The suit a led tile asks for (T5): :data:`TRUMP_SUIT` for a trump, else its higher end."""
    return TRUMP_SUIT if is_trump(tile, trump) else tile[0]


def belongs(tile: Tile, suit: int, trump: str | None) -> bool:
    """True when ``tile`` belongs to ``suit`` (a number 0–6 or :data:`TRUMP_SUIT`) under ``trump`` (T4)."""
    if suit == TRUMP_SUIT:
        return is_trump(tile, trump)
    return not is_trump(tile, trump) and suit in tile


def rank_in(tile: Tile, suit: int, trump: str | None) -> int:
    """Rank of ``tile`` inside ``suit`` (higher is better), assuming it belongs there (T4).

    The double ranks 7 (top); another tile ranks by its other end. In the doubles trump suit a
    double ranks by its pips (``[6|6]`` = 6 high, ``[0|0]`` = 0 low).
    """
    if suit == TRUMP_SUIT:
        if trump == "D":
            return tile[0]
        suit = int(trump)  # type: ignore[arg-type]
    if tile[0] == tile[1]:
        return 7
    return tile[0] + tile[1] - suit


@lru_cache(maxsize=None)
def suit_tiles(suit: int, trump: str | None) -> tuple[Tile, ...]:
    """Every tile of ``suit`` under ``trump``, highest first."""
    return tuple(
        sorted((t for t in ALL_TILES if belongs(t, suit, trump)), key=lambda t: -rank_in(t, suit, trump))
    )


def legal_plays(hand: Iterable[Tile], trick: Sequence[tuple[int, Tile]], trump: str | None) -> tuple[Tile, ...]:
    """Tiles of ``hand`` that may be played on ``trick`` (T5): any tile on the lead; else the
    tiles of the led suit if there are some, else any tile. Sorted like the hand."""
    hand = tuple(hand)
    if not trick:
        return hand
    suit = led_suit(trick[0][1], trump)
    follow = tuple(t for t in hand if belongs(t, suit, trump))
    return follow or hand


def trick_winner(trick: Sequence[tuple[int, Tile]], trump: str | None) -> int:
    """Seat winning ``trick`` (``(seat, tile)`` in play order, at least one): the highest trump,
    else the highest tile of the led suit (T5)."""
    suit = led_suit(trick[0][1], trump)
    trumps = [(rank_in(t, TRUMP_SUIT, trump), s) for s, t in trick if is_trump(t, trump)]
    if trumps:
        return max(trumps)[1]
    return max((rank_in(t, suit, trump), s) for s, t in trick if belongs(t, suit, trump))[1]


def sort_hand(tiles: Iterable[Tile]) -> tuple[Tile, ...]:
    """Canonical order of a hand: highest end first, then the other end (``[6|6]`` first)."""
    return tuple(sorted(tiles, reverse=True))


def deal_order(order: Sequence[Tile]) -> tuple[tuple[tuple[Tile, ...], ...], Tile]:
    """Split a permutation of :data:`ALL_TILES` into 3 hands of 7 (in seat order: tiles 0–6 to
    seat 0, 7–13 to seat 1, 14–20 to seat 2) and the widow (tile 21) (T1).

    Raises ``ValueError`` when ``order`` is not a permutation of the 22 tiles.
    """
    order = tuple(tuple(t) for t in order)  # type: ignore[misc]
    if len(order) != len(ALL_TILES) or set(order) != set(ALL_TILES):
        raise ValueError("order must be a permutation of the 22 tiles")
    hands = tuple(sort_hand(order[7 * i : 7 * i + 7]) for i in range(3))
    return hands, order[21]  # type: ignore[return-value]


class HandResult(BaseModel):
    """The result of a scored hand (shown until the next one is scored).

    Attributes: ``hand_no``; ``bidder``; ``bid`` (4–7 or 21); ``trump`` (a :data:`TRUMP_OPTIONS`
    code); ``tricks`` per seat; ``points`` scored per seat this hand (T6); ``made``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    hand_no: int
    bidder: int
    bid: int
    trump: str
    tricks: tuple[int, int, int]
    points: tuple[int, int, int]
    made: bool


class MoonState(State):
    """Whole game state (private: holds every hand, the widow and the discard).

    Attributes:
        scores: points per seat (may be negative).
        hand_no: 1-based number of the current hand (redeals count as hands).
        first_bidder: the seat that bids first this hand (T2).
        phase: ``"bid"``, ``"discard"``, ``"trump"``, ``"play"`` or ``"over"``.
        hands: the tiles of each seat, sorted by :func:`sort_hand`.
        widow: this hand's widow tile (face down during ``bid``; afterwards known to the bidder only).
        discard: the bidder's discard (``None`` until made; known to the bidder only).
        bids: ``(seat, bid)`` in bidding order this hand (0 = pass).
        bidder / bid: the high bidder and the bid (``None`` / 0 before any bid).
        trump: a :data:`TRUMP_OPTIONS` code once named.
        turn: the seat to act (meaningless when over).
        leader: the seat that led the current trick.
        trick: ``(seat, tile)`` played in the current trick.
        tricks_won: tricks per seat this hand.
        played: every tile played this hand, in order (public).
        last_trick / last_winner: the previous completed trick of this hand.
        last_hand: the result of the last scored hand.
        moon_winner: the seat that made a 21 bid (game over at once).
    """

    scores: tuple[int, int, int] = (0, 0, 0)
    hand_no: int = 1
    first_bidder: int = 0
    phase: str = "bid"
    hands: tuple[tuple[Tile, ...], ...] = ((), (), ())
    widow: Tile | None = None
    discard: Tile | None = None
    bids: tuple[tuple[int, int], ...] = ()
    bidder: int | None = None
    bid: int = 0
    trump: str | None = None
    turn: int = 0
    leader: int | None = None
    trick: tuple[tuple[int, Tile], ...] = ()
    tricks_won: tuple[int, int, int] = (0, 0, 0)
    played: tuple[Tile, ...] = ()
    last_trick: tuple[tuple[int, Tile], ...] = ()
    last_winner: int | None = None
    last_hand: HandResult | None = None
    moon_winner: int | None = None


class Bid(Action):
    """A bid: 0 = pass, 4–7, or 21 (shoot the moon). Code ``b<n>``."""

    bid: int


class Discard(Action):
    """The bidder's discard (face down). Code ``d<high><low>``."""

    tile: Tile


class NameTrump(Action):
    """Trumps named by the bidder: ``"0"``..``"6"``, ``"D"`` (doubles), ``"N"`` (no trump). Code ``t<x>``."""

    trump: str


class Play(Action):
    """Play a tile to the trick. Code ``p<high><low>``."""

    tile: Tile


MoonAction = Bid | Discard | NameTrump | Play


def start_hand(
    state: MoonState, order: Sequence[Tile], first_bidder: int, hand_no: int
) -> MoonState:
    """``state`` with a fresh hand dealt from ``order`` (see :func:`deal_order`), bidding open.

    Scores and ``last_hand`` are kept; everything of the previous hand is cleared. Does not bump
    the version (callers do). Raises ``ValueError`` on a bad order.
    """
    hands, widow = deal_order(order)
    return state.model_copy(
        update=dict(
            hand_no=hand_no,
            first_bidder=first_bidder,
            phase="bid",
            hands=hands,
            widow=widow,
            discard=None,
            bids=(),
            bidder=None,
            bid=0,
            trump=None,
            turn=first_bidder,
            leader=None,
            trick=(),
            tricks_won=(0, 0, 0),
            played=(),
            last_trick=(),
            last_winner=None,
        )
    )


def _shuffled(rng: random.Random) -> list[Tile]:
    order = list(ALL_TILES)
    rng.shuffle(order)
    return order


def _tile_code(tile: Tile) -> str:
    return f"{tile[0]}{tile[1]}"


def _parse_tile(text: str) -> Tile:
    if len(text) != 2 or not text.isdigit():
        raise IllegalAction("malformed tile")
    tile = (int(text[0]), int(text[1]))
    if tile not in ALL_TILES:
        raise IllegalAction("no such tile")
    return tile


# --- AI helpers ------------------------------------------------------------------------------


def _throw_value(tile: Tile, trump: str | None) -> tuple:
    """Sort key of how much we want to keep a tile (low = throw first)."""
    return (is_trump(tile, trump), tile[0] == tile[1], tile[0], tile[1])


def estimate_tricks(hand: Sequence[Tile], trump: str, gone: Iterable[Tile] = ()) -> tuple[float, bool]:
    """Heuristic count of the tricks ``hand`` takes as the leader with ``trump``.

    Trumps: leading the top trump pulls (about) two opposing trumps; a trump below an opposing
    one loses. Non-trumps: a tile is a winner when every higher tile of its (higher-end) suit is
    in the hand or ``gone``; it counts 1 when the opposing trumps are drawn, else 1/2.

    Returns ``(estimate capped at 7, sure)`` where ``sure`` means every tile wins whatever the
    other hands hold (used for the moon bid).
    """
    mine = set(hand)
    gone = set(gone)
    tricks = 0.0
    sure = True
    drawn = True
    if trump != "N":
        order = suit_tiles(TRUMP_SUIT, trump)
        my = [t for t in order if t in mine]
        opp = [t for t in order if t not in mine and t not in gone]
        if opp and (not my or rank_in(my[-1], TRUMP_SUIT, trump) < rank_in(opp[0], TRUMP_SUIT, trump)
                    or len(my) < len(opp)):
            sure = False
        my_left, opp_left = list(my), list(opp)
        while my_left and opp_left:
            t = my_left.pop(0)
            if rank_in(t, TRUMP_SUIT, trump) > rank_in(opp_left[0], TRUMP_SUIT, trump):
                tricks += 1
                del opp_left[-2:]
            else:
                sure = False
                opp_left.pop(0)
                if opp_left:
                    opp_left.pop()
        tricks += len(my_left)
        drawn = not opp_left
    for t in hand:
        if is_trump(t, trump):
            continue
        suit = t[0]
        above = [u for u in suit_tiles(suit, trump) if rank_in(u, suit, trump) > rank_in(t, suit, trump)]
        if all(u in mine or u in gone for u in above):
            tricks += 1.0 if drawn else 0.5
        else:
            sure = False
    return min(float(TRICKS), tricks), sure and len(hand) >= TRICKS


def _best_trump(hand: Sequence[Tile], gone: Iterable[Tile] = ()) -> tuple[str, float, bool]:
    """Best trump choice for ``hand``: ``(trump, estimate, any choice makes every tile sure)``.
    Ties go to a sure choice, then to more trumps, then to the first of :data:`TRUMP_OPTIONS`."""
    best: tuple[float, bool, int, str] | None = None
    for trump in TRUMP_OPTIONS:
        est, sure = estimate_tricks(hand, trump, gone)
        ntr = sum(1 for t in hand if is_trump(t, trump))
        key = (est, sure, ntr, trump)
        if best is None or key[:3] > best[:3]:
            best = key
    assert best is not None
    return best[3], best[0], best[1]


class ThreePlayerMoon(Game[MoonState, MoonAction, dict]):
    """Three-Player Moon (registry key ``three-player-moon``, exactly 3 seats). See the module docstring."""

    key: ClassVar[str] = "three-player-moon"
    min_players: ClassVar[int] = 3
    max_players: ClassVar[int] = 3
    state_model: ClassVar[type[State]] = MoonState
    options_model: ClassVar[type[GameOptions]] = GameOptions

    # --- lifecycle -------------------------------------------------------------------------
    def setup(self, seed: int, players: int, options: GameOptions | Mapping[str, Any] | None = None) -> MoonState:
        """Deal hand 1 with a random first bidder (T1, T2). Raises ``ValueError`` unless ``players == 3``."""
        if players != 3:
            raise ValueError("Three-Player Moon needs exactly 3 players")
        self.parse_options(options)
        rng = random.Random(f"{seed}:setup")
        first = rng.randrange(3)
        base = MoonState(seed=seed, players=3)
        return start_hand(base, _shuffled(rng), first, 1)

    def to_act(self, state: MoonState) -> frozenset[int]:
        """The single seat to act, or nobody once the game is over."""
        if state.phase == "over":
            return frozenset()
        return frozenset({state.turn})

    def legal_actions(self, state: MoonState, seat: int) -> tuple[MoonAction, ...]:
        """Legal actions of ``seat`` now (T2, T3, T5); empty when it is not to act."""
        if state.phase == "over" or seat != state.turn:
            return ()
        if state.phase == "bid":
            bids = [Bid(bid=0)] + [Bid(bid=n) for n in range(4, 8) if n > state.bid] + [Bid(bid=MOON)]
            return tuple(bids)
        if state.phase == "discard":
            return tuple(Discard(tile=t) for t in state.hands[seat])
        if state.phase == "trump":
            return tuple(NameTrump(trump=x) for x in TRUMP_OPTIONS)
        return tuple(Play(tile=t) for t in legal_plays(state.hands[seat], state.trick, state.trump))

    def apply(self, state: MoonState, actions: Mapping[int, MoonAction]) -> Step:
        """Apply the acting seat's action; raises :class:`IllegalAction` if it is not legal."""
        self.check_actions(state, actions)
        seat = state.turn
        action = actions[seat]
        events: list[Event] = []
        if isinstance(action, Bid):
            new = self._bid(state, seat, action.bid, events)
        elif isinstance(action, Discard):
            new = self._discard(state, seat, action.tile, events)
        elif isinstance(action, NameTrump):
            new = self._name_trump(state, seat, action.trump, events)
        else:
            new = self._play(state, seat, action.tile, events)
        return Step(new.model_copy(update={"version": state.version + 1}), tuple(events))

    # --- phases ----------------------------------------------------------------------------
    def _bid(self, state: MoonState, seat: int, bid: int, events: list[Event]) -> MoonState:
        bids = state.bids + ((seat, bid),)
        bidder, high = state.bidder, state.bid
        if bid:
            bidder, high = seat, bid
            events.append(Event("tpm.moon_bid" if bid == MOON else "tpm.bid", {"seat": seat, "bid": bid}))
        else:
            events.append(Event("tpm.pass", {"seat": seat}))
        if bid != MOON and len(bids) < 3:
            return state.model_copy(update={"bids": bids, "bidder": bidder, "bid": high, "turn": (seat + 1) % 3})
        if bidder is None:
            events.append(Event("tpm.redeal", {"hand": state.hand_no}))
            return self._next_hand(state, events)
        hand = sort_hand(state.hands[bidder] + (state.widow,))  # type: ignore[operator]
        hands = tuple(hand if s == bidder else h for s, h in enumerate(state.hands))
        events.append(Event("tpm.widow_taken", {"bidder": bidder}))
        events.append(
            Event("tpm.widow_tile", {"bidder": bidder, "tile": tile_str(state.widow)}, frozenset({bidder}))  # type: ignore[arg-type]
        )
        return state.model_copy(
            update={"bids": bids, "bidder": bidder, "bid": high, "hands": hands, "phase": "discard", "turn": bidder}
        )

    def _discard(self, state: MoonState, seat: int, tile: Tile, events: list[Event]) -> MoonState:
        hands = tuple(tuple(t for t in h if t != tile) if s == seat else h for s, h in enumerate(state.hands))
        events.append(Event("tpm.discarded", {"bidder": seat}))
        events.append(Event("tpm.discard_tile", {"bidder": seat, "tile": tile_str(tile)}, frozenset({seat})))
        return state.model_copy(update={"hands": hands, "discard": tile, "phase": "trump"})

    def _name_trump(self, state: MoonState, seat: int, trump: str, events: list[Event]) -> MoonState:
        if trump == "D":
            events.append(Event("tpm.trump_doubles", {"bidder": seat}))
        elif trump == "N":
            events.append(Event("tpm.trump_none", {"bidder": seat}))
        else:
            events.append(Event("tpm.trump_suit", {"bidder": seat, "suit": int(trump)}))
        return state.model_copy(update={"trump": trump, "phase": "play", "turn": seat, "leader": seat})

    def _play(self, state: MoonState, seat: int, tile: Tile, events: list[Event]) -> MoonState:
        hands = tuple(tuple(t for t in h if t != tile) if s == seat else h for s, h in enumerate(state.hands))
        trick = state.trick + ((seat, tile),)
        played = state.played + (tile,)
        events.append(Event("tpm.play", {"seat": seat, "tile": tile_str(tile)}))
        if len(trick) < 3:
            return state.model_copy(update={"hands": hands, "trick": trick, "played": played, "turn": (seat + 1) % 3})
        winner = trick_winner(trick, state.trump)
        won = tuple(n + (s == winner) for s, n in enumerate(state.tricks_won))
        number = sum(won)
        events.append(Event("tpm.trick", {"winner": winner, "trick": number}))
        new = state.model_copy(
            update={
                "hands": hands,
                "trick": (),
                "played": played,
                "turn": winner,
                "leader": winner,
                "tricks_won": won,
                "last_trick": trick,
                "last_winner": winner,
            }
        )
        if number < TRICKS:
            return new
        return self._score(new, events)

    def _score(self, state: MoonState, events: list[Event]) -> MoonState:
        """Score a finished hand (T6), then end the game (T7) or deal the next hand."""
        bidder, bid = state.bidder, state.bid
        assert bidder is not None and state.trump is not None
        took = state.tricks_won[bidder]
        made = took == TRICKS if bid == MOON else took >= bid
        points = tuple((bid if made else -bid) if s == bidder else state.tricks_won[s] for s in range(3))
        scores = tuple(a + b for a, b in zip(state.scores, points))
        key = "tpm.made" if made else "tpm.set"
        if bid == MOON:
            key = "tpm.moon_made" if made else "tpm.moon_failed"
        events.append(Event(key, {"bidder": bidder, "bid": bid, "tricks": took}))
        for s in range(3):
            events.append(Event("tpm.scored", {"seat": s, "points": points[s], "score": scores[s]}))
        result = HandResult(
            hand_no=state.hand_no,
            bidder=bidder,
            bid=bid,
            trump=state.trump,
            tricks=state.tricks_won,
            points=points,  # type: ignore[arg-type]
            made=made,
        )
        state = state.model_copy(update={"scores": scores, "last_hand": result})
        if bid == MOON and made:
            events.append(Event("tpm.game_end_moon", {"winner": bidder}))
            return state.model_copy(update={"phase": "over", "moon_winner": bidder})
        top = max(scores)
        if top >= TARGET:
            leaders = [s for s in range(3) if scores[s] == top]
            if len(leaders) == 1:
                events.append(Event("tpm.game_end", {"winner": leaders[0], "score": top}))
                return state.model_copy(update={"phase": "over"})
            events.append(Event("tpm.tie_continue", {"score": top}))
        return self._next_hand(state, events)

    def _next_hand(self, state: MoonState, events: list[Event]) -> MoonState:
        """Deal the next hand (T2 rotation), or stop at the safety cap."""
        if state.hand_no >= MAX_HANDS:
            events.append(Event("tpm.game_end_cap", {"hands": state.hand_no}))
            return state.model_copy(update={"phase": "over"})
        first = (state.first_bidder + 1) % 3
        new = start_hand(state, _shuffled(rng_for(state, "deal")), first, state.hand_no + 1)
        events.append(Event("tpm.hand_start", {"hand": new.hand_no, "seat": first}))
        return new

    # --- views -----------------------------------------------------------------------------
    def view(self, state: MoonState, seat: int | None) -> dict[str, Any]:
        """JSON view. Public keys:

        ``phase``, ``hand_no``, ``first_bidder``, ``scores`` (3 ints), ``target`` (21),
        ``bids`` (``[[seat, bid], ...]``, 0 = pass), ``bidder``, ``bid``, ``trump`` (code or None),
        ``turn`` (seat or None), ``to_act`` (list), ``leader``, ``trick`` (``[[seat, [hi, lo]], ...]``),
        ``tricks_won`` (3 ints), ``hand_sizes`` (3 ints), ``widow_down`` (the widow still lies
        face down), ``discarded`` (bool), ``played`` (tiles played this hand), ``last_trick``,
        ``last_winner``, ``last_hand`` (dict of :class:`HandResult` or None), ``moon_winner``,
        ``winners`` (list, once over).

        A seat view adds ``seat`` and ``hand`` (sorted tiles); the bidder's also adds ``widow``
        and ``discard`` (tiles it knows, after the pickup / the discard).
        """
        over = state.phase == "over"
        out = self.outcome(state)
        v: dict[str, Any] = {
            "phase": state.phase,
            "hand_no": state.hand_no,
            "first_bidder": state.first_bidder,
            "scores": list(state.scores),
            "target": TARGET,
            "bids": [[s, b] for s, b in state.bids],
            "bidder": state.bidder,
            "bid": state.bid,
            "trump": state.trump,
            "turn": None if over else state.turn,
            "to_act": sorted(self.to_act(state)),
            "leader": state.leader,
            "trick": [[s, list(t)] for s, t in state.trick],
            "tricks_won": list(state.tricks_won),
            "hand_sizes": [len(h) for h in state.hands],
            "widow_down": state.phase == "bid",
            "discarded": state.discard is not None,
            "played": [list(t) for t in state.played],
            "last_trick": [[s, list(t)] for s, t in state.last_trick],
            "last_winner": state.last_winner,
            "last_hand": state.last_hand.model_dump(mode="json") if state.last_hand else None,
            "moon_winner": state.moon_winner,
            "winners": list(out.winners) if out else [],
        }
        if seat is not None and 0 <= seat < 3:
            v["seat"] = seat
            v["hand"] = [list(t) for t in state.hands[seat]]
            if seat == state.bidder and state.phase != "bid":
                v["widow"] = list(state.widow) if state.widow else None
                v["discard"] = list(state.discard) if state.discard else None
        return v

    def hidden_variant(self, state: MoonState, seat: int | None, salt: int) -> MoonState:
        """Re-deal every tile ``seat`` cannot see (other hands, the face-down widow, the discard
        unless ``seat`` is the bidder) keeping the counts; also changes the seed."""
        rng = random.Random(f"{state.seed}:{salt}:variant")
        knows_bidder_info = seat is not None and seat == state.bidder and state.phase != "bid"
        others = [s for s in range(3) if s != seat]
        pool: list[Tile] = [t for s in others for t in state.hands[s]]
        in_bid = state.phase == "bid"
        hide_discard = state.discard is not None and not knows_bidder_info
        if in_bid:
            pool.append(state.widow)  # type: ignore[arg-type]
        if hide_discard:
            pool.append(state.discard)  # type: ignore[arg-type]
        pool.sort()
        rng.shuffle(pool)
        hands = list(state.hands)
        for s in others:
            n = len(state.hands[s])
            hands[s] = sort_hand(pool[:n])
            pool = pool[n:]
        widow, discard = state.widow, state.discard
        if in_bid:
            widow = pool.pop()
        if hide_discard:
            discard = pool.pop()
        if not in_bid and not knows_bidder_info and state.bidder is not None:
            # The widow's identity is unknown to this seat: pick a tile consistent with the deal.
            widow = discard if discard is not None else hands[state.bidder][0]
        seed = (state.seed * 7919 + salt + 1) % (2**62)
        return state.model_copy(update={"hands": tuple(hands), "widow": widow, "discard": discard, "seed": seed})

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
        keys = [(s == moon, x) for s, x in enumerate(scores)]
        return Outcome(ranks=ranks_from_scores(keys), scores=tuple(scores))

    # --- codecs ----------------------------------------------------------------------------
    def encode(self, action: MoonAction) -> str:
        """``b<n>``, ``d<hi><lo>``, ``t<x>``, ``p<hi><lo>``."""
        if isinstance(action, Bid):
            return f"b{action.bid}"
        if isinstance(action, Discard):
            return "d" + _tile_code(action.tile)
        if isinstance(action, NameTrump):
            return "t" + action.trump
        if isinstance(action, Play):
            return "p" + _tile_code(action.tile)
        raise IllegalAction("unknown action")

    def decode(self, code: str) -> MoonAction:
        """Inverse of :meth:`encode`; raises :class:`IllegalAction` on a malformed code
        (including a tile written low end first, e.g. ``p46``)."""
        self.check_code(code)
        kind, rest = code[0], code[1:]
        if kind == "b":
            if rest not in ("0", "4", "5", "6", "7", "21"):
                raise IllegalAction("malformed bid")
            return Bid(bid=int(rest))
        if kind == "t":
            if rest not in TRUMP_OPTIONS:
                raise IllegalAction("malformed trump")
            return NameTrump(trump=rest)
        if kind == "d":
            return Discard(tile=_parse_tile(rest))
        if kind == "p":
            return Play(tile=_parse_tile(rest))
        raise IllegalAction("malformed action code")

    # --- AI --------------------------------------------------------------------------------
    def ai_action(self, state: MoonState, seat: int) -> MoonAction:
        """Deterministic baseline AI using only what ``seat`` may see.

        Bidding: the best :func:`estimate_tricks` over the 9 trump choices, bid if >= 4 (capped
        at 7) and above the current bid; 21 only with a hand where every tile is a sure trick.
        Discard: the tile whose removal leaves the best estimate (the weakest non-trump).
        Trumps: the best estimate. Play: pull trumps with the top trump, cash sure winners,
        else lead low; when following, win with the cheapest winning tile, else throw the
        lowest tile (keeping trumps and doubles).
        """
        legal = self.legal_actions(state, seat)
        if not legal:
            raise IllegalAction("seat is not to act")
        hand = state.hands[seat]
        if state.phase == "bid":
            trump, est, sure = _best_trump(hand)
            if sure:
                return Bid(bid=MOON)
            n = min(7, int(est))
            if n >= 4 and n > state.bid:
                return Bid(bid=n)
            return Bid(bid=0)
        if state.phase == "discard":
            best: tuple | None = None
            for tile in hand:
                rest = [t for t in hand if t != tile]
                trump, est, _ = _best_trump(rest, (tile,))
                key = (est, not is_trump(tile, trump), tuple(-x for x in _throw_value(tile, trump)))
                if best is None or key > best[0]:
                    best = (key, tile)
            assert best is not None
            return Discard(tile=best[1])
        if state.phase == "trump":
            gone = (state.discard,) if state.discard else ()
            trump, _, _ = _best_trump(hand, gone)
            return NameTrump(trump=trump)
        return Play(tile=self._ai_play(state, seat))

    def _ai_play(self, state: MoonState, seat: int) -> Tile:
        trump = state.trump
        hand = state.hands[seat]
        legal = legal_plays(hand, state.trick, trump)
        if len(legal) == 1:
            return legal[0]
        known = set(hand) | set(state.played)
        if seat == state.bidder and state.discard:
            known.add(state.discard)

        def top_of_suit(tile: Tile, suit: int) -> bool:
            r = rank_in(tile, suit, trump)
            return all(u in known for u in suit_tiles(suit, trump) if rank_in(u, suit, trump) > r)

        throw = lambda tiles: min(tiles, key=lambda t: _throw_value(t, trump))  # noqa: E731
        if not state.trick:
            my_trumps = sorted((t for t in hand if is_trump(t, trump)), key=lambda t: -rank_in(t, TRUMP_SUIT, trump))
            trumps_out = [t for t in suit_tiles(TRUMP_SUIT, trump) if t not in known] if trump != "N" else []
            if my_trumps and trumps_out and top_of_suit(my_trumps[0], TRUMP_SUIT):
                return my_trumps[0]
            winners = [t for t in hand if not is_trump(t, trump) and top_of_suit(t, t[0])]
            if winners:
                return max(winners, key=lambda t: (t[0] == t[1], t[0], t[1]))
            if my_trumps and not trumps_out:
                return my_trumps[-1]
            non_trumps = [t for t in hand if not is_trump(t, trump)]
            return throw(non_trumps or hand)
        winning = [t for t in legal if trick_winner(state.trick + ((seat, t),), trump) == seat]
        if winning:
            if len(state.trick) == 1:
                safe = []
                for t in winning:
                    suit = TRUMP_SUIT if is_trump(t, trump) else led_suit(state.trick[0][1], trump)
                    if top_of_suit(t, suit):
                        safe.append(t)
                if safe:
                    return throw(safe)
            return throw(winning)
        return throw(legal)
