"""Moonshine (2-5 players): the rules engine (``shared/rules/moonshine-rulebook-en.txt``, RULINGS M1-M9).

Round structure (``phase`` in the state):

- ``draft`` (Regular variant only, M9): every seat sees 4/5/5/6/6 cards (by position from the
  first player) and keeps as many as its Client-card icons (``draft.<ids>``), all in parallel.
- ``setup``: every seat places its starting Moon token (``pl.<slot>``), in parallel.
- ``instants`` (Regular only): instant bonuses of drafted cards: gains are placed first, then the
  other players' losses (rulebook note of the Regular variant).
- ``roll``: the round starts by rolling the 3 white dice, plus blue/orange when the active
  player has access. The active player rerolls any dice (``rr.<dice>``) as many times as their
  reroll icons, or stops (``stop``).
- ``gain``: for each die showing a Moon token, every player with access to that die colour gains a
  token and places it; all in parallel, before the action phase (M3).
- ``action``: every seat chooses at once and in secret (M2): ``val.<id>`` (validate a Client),
  ``moon`` (take a Moon token, only with an empty space, M5) or ``draw``. ``to_act`` is all seats;
  the state never holds a partial choice.
- ``resolve``: the actions resolve in seat order starting with the active player. Validations
  happen at once; a validator who has a real choice of tokens to discard answers ``dis.<tokens>``
  (all such seats in parallel); then the deck draws are made in seat order (validators' redraws,
  drawers' draws); then the private follow-ups are answered in parallel: ``keep.<id>`` (redraw:
  keep 1 of N), ``pick.<id>``/``pick.none`` then ``rep.<id>`` (draw action: keep one and replace a
  Client), ``pl.<slot>`` (place a gained token), ``lose.<slot>`` (lose a token to a +1/-1 Moon,
  at the end of one's own action, M6).
- ``over``: someone reached 12 points (15 in Regular) after an action phase (M8).

Slots: ``s0``..``s2`` are the upper slots of the seat's Speakeasy, ``c<id>`` the upper slot of a
Client card in front of the seat. Dice indexes: ``0``-``2`` white, ``b`` blue, ``o`` orange.

Events (keys of ``bot/i18n/*/moonshine.json``; ``seat`` is a seat, ``card``/``old`` Client ids,
``dice`` the 5 faces, ``slot`` a slot key; all public unless said):
``ms.ev.round`` {round, seat}, ``ms.ev.roll`` {seat, dice}, ``ms.ev.reroll`` {seat, dice, left},
``ms.ev.dice`` {seat, dice} (final dice), ``ms.ev.gain`` {seat, n}, ``ms.ev.place`` {seat, slot},
``ms.ev.token_lost`` {seat}, ``ms.ev.lose`` {seat, slot}, ``ms.ev.act_draw`` / ``ms.ev.act_moon``
{seat}, ``ms.ev.validate`` {seat, card, points, tokens}, ``ms.ev.discarded`` {seat, n},
``ms.ev.drew`` / ``ms.ev.redraw`` {seat, n}, ``ms.ev.drew_private`` {seat, cards} (audience: that
seat only), ``ms.ev.keep`` {seat, card}, ``ms.ev.pick_none`` {seat}, ``ms.ev.replace`` {seat, card,
old}, ``ms.ev.drafted`` {seat, cards} (the kept hand, face up), ``ms.ev.plus2`` /
``ms.ev.plus1minus1`` {seat, card}, ``ms.ev.reshuffle`` {n}, ``ms.ev.end`` {winners, scores}.

Rules and rulings implemented:

- Dice (rulebook "Content"): white Food x3, Music x2, Drink; blue Food x2, Moon x3, any; orange
  Moon, Music, Drink x2, any x2. The dice are shared: every player may use the same faces (M4);
  white always, blue/orange only with access (an active upper bonus or a validated lower bonus).
- Validation (M4): resources = usable dice faces + active upper bonuses (all spaces covered,
  including the card being validated) + lower bonuses of validated cards. Feasibility is decided
  exactly by Hall's condition over the 7 non-empty subsets of {Food, Music, Drink} (every source
  is one unit of a set of resources), which is exact for this bipartite matching. Then
  ``max(0, moon cost - discount icons)`` tokens are discarded; tokens left on the validated card
  are discarded too.
- Refill: after validating, for each missing Client (Client-card icons - Clients in front), draw
  as many cards as card-draw icons and keep 1 (twice when the validated card gives a Client icon).
- Instant effects apply when a card is chosen (kept after a redraw, picked after a draw, drafted):
  ``plus2_moon`` gains 2 tokens, ``plus1_minus1_moon`` gains 1 and every other player loses 1 at
  the end of their own action (M6; a player with no token loses nothing).
- Deck exhausted: the discard pile is shuffled into a new deck; if both are empty the draw takes
  what there is (M7).
- Scoring (M8): card points + for the k-th "?" icon the count of the k-th majority colour + for a
  silhouette the count of its colour; "?" icons never count a colour that has a silhouette of
  that player. Ties: most Moon tokens, then most validated Clients, then a shared place.

Interpretations where the texts are silent or contradict themselves:

- Worked example "Thomas's validation with redraw" says he draws 4 cards, keeps 1 and "discards
  the other 2". That contradicts itself (4 - 1 = 3). We follow the rule text: a redraw draws as
  many cards as card-draw icons, keeps 1 and discards all the others (3 in that example), because
  the icon explanation and the "Redraw cards" step both say so and the example's own "4 (card-draw
  icon)" fixes the number drawn.
- A Moon face is never a resource; a die that the active player cannot roll (no access) shows
  nothing for anyone that round, even for players who have access to it.
- The first player is chosen at random from the seed; the Active player card then moves to the
  next seat each round.
- Moon-token gains from the dice are decided from each player's access at the end of the roll
  (a token placed on a die bonus during the gain step does not gain a second token this round;
  it does give that die's face in the action phase, M3).
- A token that must be placed goes, when only one slot has room, to that slot without asking; a
  token with no room is lost (M5). A loss from +1/-1 is taken automatically when only one slot
  holds tokens.
- Discards on validation: the tokens on the validated card are always discarded first (they would
  be lost anyway, so keeping them instead of others can never help); the player chooses only
  among the remaining tokens, and only when there is a real choice.
- All deck draws of an action phase happen in seat order once every validator has chosen which
  tokens to discard (that choice may switch off a card-draw bonus). A double redraw (new Client
  icon) draws both sets at that moment. Cards set aside by a pending choice reach the discard
  pile when the choice is made, so a reshuffle in between does not include them.
- Drawing when you have fewer Client cards than Client-card icons (only possible once the deck
  ran dry): the kept card is added instead of replacing one.
- Client-card icons appear only in Speakeasy bases and in lower (validated) parts, so the number
  of Clients to hold only changes through validation, where the redraw step refills it.
- The discard pile is face down: only its size is public.
- The drafted cards a player does not keep go to the discard pile.
- Safety cap: the game also ends after round :data:`MAX_ROUNDS` (never reached by sensible play;
  it guarantees that any playout ends).
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any, ClassVar, Literal, Mapping, Sequence

from pydantic import BaseModel, ConfigDict

from engine.core import Event, Game, GameOptions, IllegalAction, Outcome, PydanticState as State, Step, ranks_from_scores
from engine.moonshine.cards import COLOURS, card_set

__all__ = [
    "BLUE_FACES",
    "DRAFT_SIZES",
    "FollowUp",
    "MAX_ROUNDS",
    "Moonshine",
    "MoonshineOptions",
    "MoonshineState",
    "ORANGE_FACES",
    "SeatState",
    "WHITE_FACES",
    "feasible",
    "points_of",
    "roll_faces",
    "seat_bundle",
    "shortfall",
]

WHITE_FACES: tuple[str, ...] = ("food", "food", "food", "music", "music", "drink")
BLUE_FACES: tuple[str, ...] = ("food", "food", "moon", "moon", "moon", "any")
ORANGE_FACES: tuple[str, ...] = ("moon", "music", "drink", "drink", "any", "any")
DIE_FACES = (WHITE_FACES, WHITE_FACES, WHITE_FACES, BLUE_FACES, ORANGE_FACES)
DIE_NAMES = ("0", "1", "2", "b", "o")
#: Cards seen in the Regular draft by position from the first player (M9).
DRAFT_SIZES = (4, 5, 5, 6, 6)
#: Safety cap on the number of rounds (see the module docstring).
MAX_ROUNDS = 60
TARGET = {"standard": 12, "regular": 15}

# Bundle layout: index = resource mask (Food 1, Music 2, Drink 4; 3/5/6 two-way, 7 any), then
# counters of the other icons.
REROLL, DRAW, CLIENT, BLUE, ORANGE, DISC, MAJ = range(8, 15)
NB = 15
RES_MASK = {"food": 1, "music": 2, "drink": 4, "food_or_music": 3, "food_or_drink": 5, "music_or_drink": 6, "any": 7}
FACE_MASK = {"food": 1, "music": 2, "drink": 4, "any": 7, "moon": 0, "": 0}
_KIND_INDEX = {"reroll": REROLL, "draw": DRAW, "client": CLIENT, "blue_die": BLUE, "orange_die": ORANGE,
               "discount": DISC, "majority": MAJ}
#: For each subset S of {Food, Music, Drink} (1..7): the source masks that can serve S.
_SERVES = tuple(tuple(m for m in range(1, 8) if m & s) for s in range(8))


# --- compiled card data --------------------------------------------------------------------------


def _bundle(icons) -> tuple[int, ...]:
    b = [0] * NB
    for i in icons:
        if i.kind == "resource":
            b[RES_MASK[i.res]] += 1
        elif i.kind in _KIND_INDEX:
            b[_KIND_INDEX[i.kind]] += 1
    return tuple(b)


@dataclass(frozen=True, slots=True)
class CInfo:
    """A Client card compiled for the rules (see :class:`engine.moonshine.cards.ClientCard`)."""

    id: int
    colour: int
    points: int
    cost: tuple[int, int, int]  # food, music, drink
    moon: int
    spaces: int  # 0 for an instant upper
    slot: tuple[int, ...]
    instant: str  # "" or the instant effect
    lower: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class SInfo:
    """A Speakeasy side compiled for the rules."""

    base: tuple[int, ...]
    slots: tuple[tuple[int, tuple[int, ...]], ...]  # (spaces, bundle)
    silhouettes: tuple[int, ...]  # colour indexes


@lru_cache(maxsize=1)
def _compiled() -> tuple[tuple[CInfo, ...], dict[str, tuple[SInfo, ...]]]:
    cs = card_set()
    clients = []
    for c in cs.clients:
        if c.upper.kind == "slot":
            spaces, slot, instant = c.upper.spaces, _bundle(c.upper.bonus), ""
        else:
            spaces, slot, instant = 0, (0,) * NB, c.upper.effect
        clients.append(CInfo(c.id, COLOURS.index(c.colour), c.points, (c.cost.food, c.cost.music, c.cost.drink),
                             c.cost.moon, spaces, slot, instant, _bundle(c.lower)))
    sides = {}
    for variant in ("standard", "regular"):
        sides[variant] = tuple(
            SInfo(_bundle(s.side(variant).base),
                  tuple((sl.spaces, _bundle(sl.bonus)) for sl in s.side(variant).slots),
                  tuple(COLOURS.index(c) for c in s.side(variant).silhouettes))
            for s in cs.speakeasies
        )
    return tuple(clients), sides


def client_info(cid: int) -> CInfo:
    """Compiled data of Client card ``cid``."""
    return _compiled()[0][cid]


def side_info(speakeasy: int, variant: str) -> SInfo:
    """Compiled data of a Speakeasy side."""
    return _compiled()[1][variant][speakeasy]


# --- state ---------------------------------------------------------------------------------------


class MoonshineOptions(GameOptions):
    """Table options: ``variant`` is ``"standard"`` (12 points) or ``"regular"`` (M9, 15 points)."""

    variant: Literal["standard", "regular"] = "standard"


class FollowUp(BaseModel):
    """A pending private choice of a seat.

    ``kind``: ``draft`` (keep ``n`` of ``cards``), ``discard`` (discard ``n`` tokens), ``keep``
    (keep 1 of ``cards``), ``pick`` (keep 0 or 1 of ``cards``), ``replace`` (the picked card
    ``cards[0]`` replaces a Client), ``place`` (place one gained token).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Literal["draft", "discard", "keep", "pick", "replace", "place"]
    cards: tuple[int, ...] = ()
    n: int = 0


class SeatState(BaseModel):
    """One seat: its Speakeasy (id), tokens per Speakeasy slot, Clients in front with their tokens,
    validated Clients, its own pending follow-ups and tokens still to lose (M6)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    speakeasy: int
    se_tokens: tuple[int, ...]
    clients: tuple[int, ...] = ()
    cl_tokens: tuple[int, ...] = ()
    validated: tuple[int, ...] = ()
    queue: tuple[FollowUp, ...] = ()
    lose: int = 0


class MoonshineState(State):
    """The whole game. ``deck[0]`` is the top card. ``dice`` = 3 white, blue, orange faces
    (``""`` = not rolled). ``to_draw`` lists the deck draws still to make in the resolve phase,
    as ``(seat, "keep" | "pick")`` in seat order."""

    variant: Literal["standard", "regular"] = "standard"
    target: int = 12
    phase: Literal["draft", "setup", "instants", "roll", "gain", "action", "resolve", "over"]
    round: int = 0
    first: int = 0
    active: int = 0
    dice: tuple[str, ...] = ("", "", "", "", "")
    rerolls: int = 0
    deck: tuple[int, ...] = ()
    discard: tuple[int, ...] = ()
    seats: tuple[SeatState, ...]
    to_draw: tuple[tuple[int, str], ...] = ()
    shuffles: int = 0


# --- pure helpers --------------------------------------------------------------------------------


def roll_faces(rng: random.Random, dice: Sequence[int]) -> tuple[str, ...]:
    """Faces for the dice indexes ``dice`` (0-2 white, 3 blue, 4 orange), drawn from ``rng``."""
    return tuple(DIE_FACES[d][rng.randrange(6)] for d in dice)


def shortfall(cost: Sequence[int], sources: Sequence[int]) -> int:
    """How many "any" resources are missing to pay ``cost`` = (food, music, drink).

    ``sources[mask]`` counts the units serving the resource set ``mask`` (1 Food, 2 Music, 4
    Drink, 3/5/6 two-way choices, 7 any). By Hall's theorem (deficiency version) the number of
    unmatched units of the best assignment is ``max over subsets S of demand(S) - supply(S)``, so
    0 means the cost can be paid exactly (RULINGS M4).
    """
    f, m, d = cost
    worst = 0
    for s in range(1, 8):
        dem = (f if s & 1 else 0) + (m if s & 2 else 0) + (d if s & 4 else 0)
        if dem <= worst:
            continue
        sup = 0
        for mask in _SERVES[s]:
            sup += sources[mask]
        if dem - sup > worst:
            worst = dem - sup
    return worst


def points_of(validated: Sequence[int], silhouettes: Sequence[int] = ()) -> int:
    """Points of a set of validated Clients (M8): card points, "?" and silhouette icons.

    The k-th "?" icon scores the count of the k-th majority colour among colours without a
    silhouette; each silhouette scores the count of its colour.
    """
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


def seat_bundle(seat: SeatState, variant: str) -> list[int]:
    """Every active icon of a seat: Speakeasy base and full slots, full Client slots, validated
    lower parts (see the bundle layout constants)."""
    side = side_info(seat.speakeasy, variant)
    return _bundle_of(side, seat.se_tokens, seat.clients, seat.cl_tokens, seat.validated)


def _bundle_of(side: SInfo, se_tokens, clients, cl_tokens, validated) -> list[int]:
    b = list(side.base)
    for (spaces, bb), t in zip(side.slots, se_tokens):
        if t >= spaces:
            for i in range(NB):
                b[i] += bb[i]
    for cid, t in zip(clients, cl_tokens):
        ci = client_info(cid)
        if ci.spaces and t >= ci.spaces:
            sl = ci.slot
            for i in range(NB):
                b[i] += sl[i]
    for cid in validated:
        lo = client_info(cid).lower
        for i in range(NB):
            b[i] += lo[i]
    return b


def sources_of(bundle: Sequence[int], dice: Sequence[str]) -> list[int]:
    """Resource sources (by mask) of a seat with ``bundle`` for the rolled ``dice`` (M4)."""
    src = list(bundle[:8])
    for i in range(3):
        src[FACE_MASK[dice[i]]] += 1
    if bundle[BLUE]:
        src[FACE_MASK[dice[3]]] += 1
    if bundle[ORANGE]:
        src[FACE_MASK[dice[4]]] += 1
    src[0] = 0
    return src


def feasible(cid: int, bundle: Sequence[int], sources: Sequence[int], tokens: int) -> bool:
    """True when Client ``cid`` can be validated: resources matched exactly and enough tokens."""
    ci = client_info(cid)
    return tokens >= max(0, ci.moon - bundle[DISC]) and shortfall(ci.cost, sources) == 0


def slot_keys(seat: SeatState, variant: str) -> list[tuple[str, int, int]]:
    """Every Moon-token slot of a seat as ``(key, tokens, spaces)`` (``s<i>`` then ``c<id>``)."""
    side = side_info(seat.speakeasy, variant)
    out = [(f"s{i}", t, sp) for i, ((sp, _), t) in enumerate(zip(side.slots, seat.se_tokens))]
    for cid, t in zip(seat.clients, seat.cl_tokens):
        sp = client_info(cid).spaces
        if sp:
            out.append((f"c{cid}", t, sp))
    return out


def discard_options(slots: Sequence[tuple[str, int]], n: int) -> list[tuple[tuple[str, int], ...]]:
    """Every way to discard ``n`` tokens from ``slots`` = ``(key, tokens)``, as tuples of
    ``(key, count)`` with count > 0 (in slot order)."""
    slots = [(k, t) for k, t in slots if t > 0]
    out: list[tuple[tuple[str, int], ...]] = []

    def rec(i: int, left: int, acc: list[tuple[str, int]]) -> None:
        if left == 0:
            out.append(tuple(acc))
            return
        if i == len(slots):
            return
        if sum(t for _, t in slots[i:]) < left:
            return
        k, t = slots[i]
        for c in range(min(t, left), -1, -1):
            rec(i + 1, left - c, acc + [(k, c)] if c else acc)

    rec(0, n, [])
    return out


def discard_code(option: Sequence[tuple[str, int]]) -> str:
    """Canonical ``dis.`` code of a discard option (token values sorted as strings)."""
    return "dis." + ".".join(sorted(f"{k}{'abc'[j]}" for k, c in option for j in range(c)))


# --- action codes --------------------------------------------------------------------------------

_SLOT = r"(?:s[0-2]|c[0-9]{1,2})"
_ID = r"[0-9]{1,2}"
_RE_SIMPLE = re.compile(rf"^(?:stop|moon|draw|pick\.none|(?:val|keep|pick|rep)\.{_ID}|(?:pl|lose)\.{_SLOT})$")
_RE_TOKEN = re.compile(rf"^({_SLOT})([abc])$")


def canonical_code(code: str) -> str:
    """The canonical form of an action code; raises :class:`IllegalAction` when malformed."""
    if not isinstance(code, str) or not re.match(r"^[A-Za-z0-9._-]{1,40}$", code):
        raise IllegalAction("malformed action code")
    if _RE_SIMPLE.match(code):
        head, _, rest = code.partition(".")
        if rest and rest[0] == "c":
            rest = "c" + str(int(rest[1:]))
        elif rest and rest[0].isdigit():
            rest = str(int(rest))
        return f"{head}.{rest}" if rest else head
    head, _, rest = code.partition(".")
    parts = rest.split(".") if rest else []
    if not parts or len(set(parts)) != len(parts):
        raise IllegalAction("malformed action code")
    if head == "rr" and all(p in DIE_NAMES for p in parts):
        return "rr." + ".".join(sorted(parts))
    if head == "draft" and len(parts) <= 6 and all(re.match(rf"^{_ID}$", p) for p in parts):
        ids = sorted({str(int(p)) for p in parts})
        if len(ids) != len(parts):
            raise IllegalAction("malformed action code")
        return "draft." + ".".join(ids)
    if head == "dis" and len(parts) <= 8:
        counts: dict[str, int] = {}
        for p in parts:
            m = _RE_TOKEN.match(p)
            if not m:
                raise IllegalAction("malformed action code")
            key = m.group(1)
            if key[0] == "c":
                key = "c" + str(int(key[1:]))
            counts[key] = counts.get(key, 0) + 1
        if any(c > 3 for c in counts.values()):
            raise IllegalAction("malformed action code")
        return discard_code(list(counts.items()))
    raise IllegalAction("malformed action code")


# --- the mutable working copy used inside apply -------------------------------------------------


class _Seat:
    __slots__ = ("speakeasy", "se_tokens", "clients", "cl_tokens", "validated", "queue", "lose")

    def __init__(self, s: SeatState) -> None:
        self.speakeasy = s.speakeasy
        self.se_tokens = list(s.se_tokens)
        self.clients = list(s.clients)
        self.cl_tokens = list(s.cl_tokens)
        self.validated = list(s.validated)
        self.queue = [(q.kind, q.cards, q.n) for q in s.queue]
        self.lose = s.lose

    def freeze(self) -> SeatState:
        return SeatState.model_construct(
            speakeasy=self.speakeasy,
            se_tokens=tuple(self.se_tokens),
            clients=tuple(self.clients),
            cl_tokens=tuple(self.cl_tokens),
            validated=tuple(self.validated),
            queue=tuple(FollowUp.model_construct(kind=k, cards=tuple(c), n=n) for k, c, n in self.queue),
            lose=self.lose,
        )

    def tokens(self) -> int:
        return sum(self.se_tokens) + sum(self.cl_tokens)


class _Work:
    """Mutable copy of a state; ``freeze()`` gives the next state (version + 1)."""

    def __init__(self, state: MoonshineState) -> None:
        self.state = state
        self.version = state.version + 1
        self.variant = state.variant
        self.phase = state.phase
        self.round = state.round
        self.active = state.active
        self.dice = list(state.dice)
        self.rerolls = state.rerolls
        self.deck = list(state.deck)
        self.discard = list(state.discard)
        self.seats = [_Seat(s) for s in state.seats]
        self.to_draw = list(state.to_draw)
        self.shuffles = state.shuffles
        self.events: list[Event] = []
        self.n = state.players

    def freeze(self) -> MoonshineState:
        s = self.state
        return MoonshineState.model_construct(
            seed=s.seed, version=self.version, players=s.players, variant=s.variant, target=s.target,
            phase=self.phase, round=self.round, first=s.first, active=self.active, dice=tuple(self.dice),
            rerolls=self.rerolls, deck=tuple(self.deck), discard=tuple(self.discard),
            seats=tuple(x.freeze() for x in self.seats), to_draw=tuple(self.to_draw), shuffles=self.shuffles,
        )

    def rng(self, salt: str) -> random.Random:
        return random.Random(f"{self.state.seed}:{self.version}:{salt}")

    def ev(self, key: str, audience: int | None = None, **params: Any) -> None:
        self.events.append(Event(key, params, None if audience is None else frozenset({audience})))

    def side(self, seat: int) -> SInfo:
        return side_info(self.seats[seat].speakeasy, self.variant)

    def bundle(self, seat: int) -> list[int]:
        s = self.seats[seat]
        return _bundle_of(self.side(seat), s.se_tokens, s.clients, s.cl_tokens, s.validated)

    def order(self) -> list[int]:
        return [(self.active + i) % self.n for i in range(self.n)]

    # --- tokens ----------------------------------------------------------------------------------
    def room(self, seat: int) -> list[str]:
        """Slots of ``seat`` with an empty space."""
        s = self.seats[seat]
        out = [f"s{i}" for i, ((sp, _), t) in enumerate(zip(self.side(seat).slots, s.se_tokens)) if t < sp]
        for cid, t in zip(s.clients, s.cl_tokens):
            if t < client_info(cid).spaces:
                out.append(f"c{cid}")
        return out

    def holding(self, seat: int) -> list[tuple[str, int]]:
        """Slots of ``seat`` holding tokens, as ``(key, tokens)``."""
        s = self.seats[seat]
        out = [(f"s{i}", t) for i, t in enumerate(s.se_tokens) if t]
        out += [(f"c{cid}", t) for cid, t in zip(s.clients, s.cl_tokens) if t]
        return out

    def add_token(self, seat: int, key: str, delta: int) -> None:
        s = self.seats[seat]
        if key[0] == "s":
            s.se_tokens[int(key[1:])] += delta
        else:
            s.cl_tokens[s.clients.index(int(key[1:]))] += delta

    # --- deck ------------------------------------------------------------------------------------
    def draw(self, k: int) -> list[int]:
        """Draw ``k`` cards from the top, reshuffling the discard pile when the deck is empty (M7)."""
        out: list[int] = []
        while len(out) < k:
            if not self.deck:
                if not self.discard:
                    break
                pile = sorted(self.discard)
                random.Random(f"{self.state.seed}:shuffle:{self.shuffles}").shuffle(pile)
                self.deck, self.discard = pile, []
                self.shuffles += 1
                self.ev("ms.ev.reshuffle", n=len(pile))
            out.append(self.deck.pop(0))
        return out


# --- the game ------------------------------------------------------------------------------------


class Moonshine(Game[MoonshineState, str, dict]):
    """Moonshine for 2-5 players (see the module docstring). Actions are canonical code strings."""

    key: ClassVar[str] = "moonshine"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 5
    state_model: ClassVar[type[State]] = MoonshineState
    options_model: ClassVar[type[GameOptions]] = MoonshineOptions
    conformance_options: ClassVar[tuple[dict[str, Any], ...]] = ({"variant": "standard"}, {"variant": "regular"})

    # --- setup -----------------------------------------------------------------------------------
    def setup(self, seed: int, players: int, options: GameOptions | Mapping[str, Any] | None = None) -> MoonshineState:
        """Deal a new game: random Speakeasies and first player; Standard: 2 Starting Clients each;
        Regular: the draft. Raises ``ValueError`` on a bad seat count or options."""
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Moonshine needs 2-5 players, got {players}")
        opts = self.parse_options(options)
        variant = opts.variant  # type: ignore[attr-defined]
        rng = random.Random(f"{seed}:setup")
        first = rng.randrange(players)
        speak = list(range(5))
        rng.shuffle(speak)
        cards = card_set().clients
        seats = []
        if variant == "standard":
            starting = [c.id for c in cards if c.starting]
            rng.shuffle(starting)
            deck = [c.id for c in cards if not c.starting] + starting[2 * players:]
            rng.shuffle(deck)
            for p in range(players):
                hand = tuple(starting[2 * p: 2 * p + 2])
                seats.append(self._new_seat(speak[p], variant, hand, (FollowUp(kind="place"),)))
            phase = "setup"
        else:
            deck = [c.id for c in cards]
            rng.shuffle(deck)
            for p in range(players):
                pos = (p - first) % players
                k = DRAFT_SIZES[pos]
                offer, deck = tuple(deck[:k]), deck[k:]
                keep = side_info(speak[p], variant).base[CLIENT]
                seats.append(self._new_seat(speak[p], variant, (), (FollowUp(kind="draft", cards=offer, n=keep),)))
            phase = "draft"
        state = MoonshineState(seed=seed, players=players, variant=variant, target=TARGET[variant], phase=phase,
                               first=first, active=first, deck=tuple(deck), seats=tuple(seats))
        w = _Work(state)
        w.version = 0
        self._settle(w)
        return w.freeze()

    @staticmethod
    def _new_seat(speakeasy: int, variant: str, hand: tuple[int, ...], queue: tuple[FollowUp, ...]) -> SeatState:
        side = side_info(speakeasy, variant)
        return SeatState(speakeasy=speakeasy, se_tokens=(0,) * len(side.slots), clients=hand,
                         cl_tokens=(0,) * len(hand), queue=queue)

    # --- who acts --------------------------------------------------------------------------------
    def to_act(self, state: MoonshineState) -> frozenset[int]:
        """Seats to decide now: the active player (roll), every seat (action), or the seats with a
        pending private follow-up (parallel). Empty when the game is over."""
        ph = state.phase
        if ph == "over":
            return frozenset()
        if ph == "roll":
            return frozenset({state.active})
        if ph == "action":
            return frozenset(range(state.players))
        return frozenset(i for i, s in enumerate(state.seats) if s.queue or s.lose)

    def legal_actions(self, state: MoonshineState, seat: int) -> tuple[str, ...]:
        """Every legal code of ``seat`` now (see the module docstring for the code forms)."""
        if not isinstance(seat, int) or seat not in self.to_act(state):
            return ()
        ph = state.phase
        s = state.seats[seat]
        if ph == "roll":
            dice = [DIE_NAMES[i] for i in range(5) if state.dice[i]]
            out = ["stop"]
            for r in range(1, len(dice) + 1):
                out += ["rr." + ".".join(sorted(c)) for c in combinations(dice, r)]
            return tuple(out)
        if ph == "action":
            bundle = seat_bundle(s, state.variant)
            src = sources_of(bundle, state.dice)
            toks = sum(s.se_tokens) + sum(s.cl_tokens)
            out = [f"val.{cid}" for cid in s.clients if feasible(cid, bundle, src, toks)]
            if any(t < sp for _, t, sp in slot_keys(s, state.variant)):
                out.append("moon")
            out.append("draw")
            return tuple(out)
        if s.queue:
            kind, cards, n = s.queue[0].kind, s.queue[0].cards, s.queue[0].n
            if kind == "place":
                return tuple(f"pl.{k}" for k, t, sp in slot_keys(s, state.variant) if t < sp)
            if kind == "discard":
                slots = [(k, t) for k, t, _ in slot_keys(s, state.variant)]
                return tuple(discard_code(o) for o in discard_options(slots, n))
            if kind == "keep":
                return tuple(f"keep.{c}" for c in cards)
            if kind == "pick":
                return (*(f"pick.{c}" for c in cards), "pick.none")
            if kind == "replace":
                return tuple(f"rep.{c}" for c in s.clients)
            if kind == "draft":
                return tuple("draft." + ".".join(sorted(str(c) for c in combo)) for combo in combinations(cards, n))
        if s.lose:
            return tuple(f"lose.{k}" for k, t, _ in slot_keys(s, state.variant) if t)
        return ()

    # --- apply -----------------------------------------------------------------------------------
    def apply(self, state: MoonshineState, actions: Mapping[int, str]) -> Step:
        """Apply one code per seat of ``to_act``; raises :class:`IllegalAction` otherwise."""
        self.check_actions(state, actions)
        return self._apply(state, actions, None)

    def resolve_reroll(self, state: MoonshineState, code: str, faces: Sequence[str]) -> Step:
        """Like ``apply({active: code})`` for a reroll code, with the rerolled ``faces`` forced
        (in die order: white 0-2, blue, orange). For tests and replays of real dice."""
        self.check_actions(state, {state.active: code})
        return self._apply(state, {state.active: code}, tuple(faces))

    def _apply(self, state: MoonshineState, actions: Mapping[int, str], faces: tuple[str, ...] | None) -> Step:
        w = _Work(state)
        if state.phase == "roll":
            self._roll_step(w, actions[state.active], faces)
        elif state.phase == "action":
            self._resolve_actions(w, actions)
        else:
            for seat in sorted(actions):
                self._answer(w, seat, actions[seat])
        self._settle(w)
        return Step(w.freeze(), tuple(w.events))

    def _roll_step(self, w: _Work, code: str, faces: tuple[str, ...] | None) -> None:
        if code == "stop":
            w.rerolls = 0
        else:
            which = [DIE_NAMES.index(p) for p in code[3:].split(".")]
            new = faces if faces is not None else roll_faces(w.rng("reroll"), which)
            if len(new) != len(which) or any(f not in DIE_FACES[i] for i, f in zip(which, new)):
                raise IllegalAction("impossible faces for these dice")
            for i, f in zip(which, new):
                w.dice[i] = f
            w.rerolls -= 1
            w.ev("ms.ev.reroll", seat=w.active, dice=list(w.dice), left=w.rerolls)
        if w.rerolls == 0:
            self._gains(w)

    def _gains(self, w: _Work) -> None:
        """End of the roll: Moon-token gains from the dice for every player with access (M3)."""
        w.ev("ms.ev.dice", seat=w.active, dice=list(w.dice))
        for seat in range(w.n):
            b = w.bundle(seat)
            n = (w.dice[3] == "moon" and b[BLUE] > 0) + (w.dice[4] == "moon" and b[ORANGE] > 0)
            if n:
                w.ev("ms.ev.gain", seat=seat, n=n)
                w.seats[seat].queue += [("place", (), 0)] * n
        w.phase = "gain"

    def _resolve_actions(self, w: _Work, actions: Mapping[int, str]) -> None:
        """M2: the secret actions resolve in seat order from the active player."""
        w.phase = "resolve"
        for seat in w.order():
            code = actions[seat]
            s = w.seats[seat]
            if code == "draw":
                w.ev("ms.ev.act_draw", seat=seat)
                w.to_draw.append((seat, "pick"))
            elif code == "moon":
                w.ev("ms.ev.act_moon", seat=seat)
                s.queue.append(("place", (), 0))
            else:
                self._validate(w, seat, int(code[4:]))

    def _validate(self, w: _Work, seat: int, cid: int) -> None:
        s = w.seats[seat]
        ci = client_info(cid)
        need = max(0, ci.moon - w.bundle(seat)[DISC])
        i = s.clients.index(cid)
        on_card = s.cl_tokens[i]
        del s.clients[i], s.cl_tokens[i]
        s.validated.append(cid)
        rest = max(0, need - on_card)
        w.ev("ms.ev.validate", seat=seat, card=cid, points=points_of(s.validated, w.side(seat).silhouettes),
             tokens=need)
        if rest:
            opts = discard_options(w.holding(seat), rest)
            if len(opts) == 1:
                self._discard(w, seat, opts[0])
            else:
                s.queue.append(("discard", (), rest))
        w.to_draw.append((seat, "keep"))

    def _discard(self, w: _Work, seat: int, option) -> None:
        for key, c in option:
            w.add_token(seat, key, -c)

    def _answer(self, w: _Work, seat: int, code: str) -> None:
        s = w.seats[seat]
        head, _, rest = code.partition(".")
        if head == "lose":
            self._lose(w, seat, rest)
            return
        kind, cards, n = s.queue.pop(0)
        if kind == "place":
            self._place(w, seat, rest)
        elif kind == "discard":
            counts: dict[str, int] = {}
            for p in rest.split("."):
                counts[p[:-1]] = counts.get(p[:-1], 0) + 1
            self._discard(w, seat, list(counts.items()))
            w.ev("ms.ev.discarded", seat=seat, n=n)
        elif kind == "keep":
            self._keep(w, seat, int(rest), cards)
        elif kind == "pick":
            if rest == "none":
                w.discard.extend(cards)
                w.ev("ms.ev.pick_none", seat=seat)
            else:
                self._pick(w, seat, int(rest), cards)
        elif kind == "replace":
            self._replace(w, seat, cards[0], int(rest))
        elif kind == "draft":
            kept = [int(x) for x in rest.split(".")]
            self._draft(w, seat, kept, cards)

    def _place(self, w: _Work, seat: int, key: str) -> None:
        w.add_token(seat, key, 1)
        w.ev("ms.ev.place", seat=seat, slot=key)

    def _lose(self, w: _Work, seat: int, key: str) -> None:
        w.add_token(seat, key, -1)
        w.seats[seat].lose -= 1
        w.ev("ms.ev.lose", seat=seat, slot=key)

    def _keep(self, w: _Work, seat: int, cid: int, cards: Sequence[int]) -> None:
        s = w.seats[seat]
        s.clients.append(cid)
        s.cl_tokens.append(0)
        w.discard.extend(c for c in cards if c != cid)
        w.ev("ms.ev.keep", seat=seat, card=cid)
        self._instant(w, seat, cid)

    def _pick(self, w: _Work, seat: int, cid: int, cards: Sequence[int]) -> None:
        s = w.seats[seat]
        w.discard.extend(c for c in cards if c != cid)
        icons = w.bundle(seat)[CLIENT]
        if len(s.clients) < icons or not s.clients:
            self._keep(w, seat, cid, ())
        else:
            s.queue.insert(0, ("replace", (cid,), 0))

    def _replace(self, w: _Work, seat: int, cid: int, old: int) -> None:
        s = w.seats[seat]
        i = s.clients.index(old)
        s.clients[i] = cid
        s.cl_tokens[i] = 0
        w.discard.append(old)
        w.ev("ms.ev.replace", seat=seat, card=cid, old=old)
        self._instant(w, seat, cid)

    def _draft(self, w: _Work, seat: int, kept: Sequence[int], cards: Sequence[int]) -> None:
        s = w.seats[seat]
        for cid in kept:
            s.clients.append(cid)
            s.cl_tokens.append(0)
        w.discard.extend(c for c in cards if c not in kept)
        w.ev("ms.ev.drafted", seat=seat, cards=list(kept))

    def _instant(self, w: _Work, seat: int, cid: int) -> None:
        eff = client_info(cid).instant
        if eff == "plus2_moon":
            w.ev("ms.ev.plus2", seat=seat, card=cid)
            w.seats[seat].queue += [("place", (), 0)] * 2
        elif eff == "plus1_minus1_moon":
            w.ev("ms.ev.plus1minus1", seat=seat, card=cid)
            w.seats[seat].queue.append(("place", (), 0))
            for other in range(w.n):
                if other != seat:
                    w.seats[other].lose += 1

    # --- automatic steps -------------------------------------------------------------------------
    def _auto(self, w: _Work, seat: int) -> bool:
        """Resolve the seat's front follow-up when it leaves no choice; True if something changed."""
        s = w.seats[seat]
        if s.queue:
            kind, cards, n = s.queue[0]
            if kind == "place":
                room = w.room(seat)
                if len(room) <= 1:
                    s.queue.pop(0)
                    if room:
                        self._place(w, seat, room[0])
                    else:
                        w.ev("ms.ev.token_lost", seat=seat)
                    return True
            elif kind == "discard":
                opts = discard_options(w.holding(seat), n)
                if len(opts) <= 1:
                    s.queue.pop(0)
                    if opts:
                        self._discard(w, seat, opts[0])
                    return True
            elif kind == "keep":
                if len(cards) <= 1:
                    s.queue.pop(0)
                    if cards:
                        self._keep(w, seat, cards[0], cards)
                    return True
            elif kind == "pick":
                if not cards:
                    s.queue.pop(0)
                    w.ev("ms.ev.pick_none", seat=seat)
                    return True
            elif kind == "replace":
                if len(s.clients) <= 1:
                    s.queue.pop(0)
                    if s.clients:
                        self._replace(w, seat, cards[0], s.clients[0])
                    else:
                        self._keep(w, seat, cards[0], ())
                    return True
            elif kind == "draft":
                if len(cards) <= n:
                    s.queue.pop(0)
                    self._draft(w, seat, list(cards), cards)
                    return True
            return False
        if s.lose:
            held = w.holding(seat)
            if len(held) <= 1:
                if held:
                    self._lose(w, seat, held[0][0])
                else:
                    s.lose = 0
                return True
        return False

    def _settle(self, w: _Work) -> None:
        """Run every automatic step and phase change until someone must decide or the game ends."""
        while True:
            for seat in range(w.n):
                while self._auto(w, seat):
                    pass
            if w.phase == "resolve" and w.to_draw and not any(q and q[0][0] == "discard" for q in (x.queue for x in w.seats)):
                self._do_draws(w)
                continue
            if w.phase in ("roll", "action", "over") or any(x.queue or x.lose for x in w.seats):
                return
            # nobody has anything pending: next phase
            if w.phase == "draft":
                w.phase = "setup"
                for x in w.seats:
                    x.queue.append(("place", (), 0))
            elif w.phase == "setup":
                if w.variant == "regular":
                    w.phase = "instants"
                    for seat in range(w.n):
                        for cid in list(w.seats[seat].clients):
                            self._instant(w, seat, cid)
                else:
                    self._start_round(w)
            elif w.phase == "instants":
                self._start_round(w)
            elif w.phase == "gain":
                w.phase = "action"
            elif w.phase == "resolve":
                self._end_round(w)

    def _do_draws(self, w: _Work) -> None:
        """The deck draws of the action phase, in seat order (M2)."""
        for seat, kind in w.to_draw:
            b = w.bundle(seat)
            s = w.seats[seat]
            if kind == "pick":
                cards = w.draw(b[DRAW])
                w.ev("ms.ev.drew", seat=seat, n=len(cards))
                w.ev("ms.ev.drew_private", audience=seat, seat=seat, cards=cards)
                s.queue.append(("pick", tuple(cards), 0))
            else:
                missing = b[CLIENT] - len(s.clients)
                for _ in range(max(0, missing)):
                    cards = w.draw(b[DRAW])
                    w.ev("ms.ev.redraw", seat=seat, n=len(cards))
                    w.ev("ms.ev.drew_private", audience=seat, seat=seat, cards=cards)
                    s.queue.append(("keep", tuple(cards), 0))
        w.to_draw = []

    def _start_round(self, w: _Work) -> None:
        w.round += 1
        if w.round > 1:
            w.active = (w.active + 1) % w.n
        b = w.bundle(w.active)
        which = [0, 1, 2] + ([3] if b[BLUE] else []) + ([4] if b[ORANGE] else [])
        faces = roll_faces(w.rng("roll"), which)
        w.dice = [""] * 5
        for i, f in zip(which, faces):
            w.dice[i] = f
        w.rerolls = b[REROLL]
        w.ev("ms.ev.round", round=w.round, seat=w.active)
        w.ev("ms.ev.roll", seat=w.active, dice=list(w.dice))
        w.phase = "roll"
        if w.rerolls == 0:
            self._gains(w)

    def _end_round(self, w: _Work) -> None:
        pts = [points_of(s.validated, w.side(i).silhouettes) for i, s in enumerate(w.seats)]
        if max(pts) >= w.state.target or w.round >= MAX_ROUNDS:
            w.phase = "over"
            w.dice = [""] * 5
            out = self._outcome_from(w.freeze())
            w.ev("ms.ev.end", winners=list(out.winners), scores=list(out.scores))
        else:
            self._start_round(w)

    # --- views -----------------------------------------------------------------------------------
    def view(self, state: MoonshineState, seat: int | None) -> dict[str, Any]:
        """JSON view. Public: variant, target, round, phase, active, first, dice (5 faces, ``""`` =
        not rolled), rerolls, deck/discard sizes, to_act, and per seat: speakeasy, se_tokens,
        clients, cl_tokens, validated, points, tokens, icons (reroll/draw/client/blue/orange/
        discount counts), pending (kinds and sizes of its follow-ups, never the cards), lose.
        With ``seat``: ``me`` and ``private`` = its follow-up queue with the offered cards
        (``queue``), and ``feasible`` (Clients it can validate now). Never the seed or deck order."""
        acting = self.to_act(state)
        seats = []
        for i, s in enumerate(state.seats):
            b = seat_bundle(s, state.variant)
            seats.append({
                "speakeasy": s.speakeasy,
                "se_tokens": list(s.se_tokens),
                "clients": list(s.clients),
                "cl_tokens": list(s.cl_tokens),
                "validated": list(s.validated),
                "points": points_of(s.validated, side_info(s.speakeasy, state.variant).silhouettes),
                "tokens": sum(s.se_tokens) + sum(s.cl_tokens),
                "icons": {"reroll": b[REROLL], "draw": b[DRAW], "client": b[CLIENT], "blue": b[BLUE],
                          "orange": b[ORANGE], "discount": b[DISC]},
                "pending": [{"kind": q.kind, "n": len(q.cards) if q.kind in ("keep", "pick", "draft") else q.n}
                            for q in s.queue],
                "lose": s.lose,
            })
        out: dict[str, Any] = {
            "variant": state.variant, "target": state.target, "round": state.round, "phase": state.phase,
            "active": state.active, "first": state.first, "dice": list(state.dice), "rerolls": state.rerolls,
            "deck": len(state.deck), "discard": len(state.discard), "to_act": sorted(acting), "seats": seats,
        }
        out["ranks"] = list(self.outcome(state).ranks) if state.phase == "over" else None
        if seat is not None and 0 <= seat < state.players:
            s = state.seats[seat]
            b = seat_bundle(s, state.variant)
            src = sources_of(b, state.dice)
            toks = sum(s.se_tokens) + sum(s.cl_tokens)
            out["me"] = seat
            out["private"] = {
                "queue": [{"kind": q.kind, "cards": list(q.cards), "n": q.n} for q in s.queue],
                "feasible": [c for c in s.clients if state.dice[0] and feasible(c, b, src, toks)],
                "sources": src[1:8],
            }
        return out

    def hidden_variant(self, state: MoonshineState, seat: int | None, salt: int) -> MoonshineState:
        """Re-deal what ``seat`` cannot see: the deck order, the face-down discard pile and the
        cards offered to other seats (draft, redraw, draw), plus a new seed."""
        pool = list(state.deck) + list(state.discard)
        for i, s in enumerate(state.seats):
            if i != seat:
                for q in s.queue:
                    pool.extend(q.cards)
        rng = random.Random(f"hidden:{salt}")
        rng.shuffle(pool)
        deck, pool = tuple(pool[: len(state.deck)]), pool[len(state.deck):]
        discard, pool = tuple(pool[: len(state.discard)]), pool[len(state.discard):]
        seats = []
        for i, s in enumerate(state.seats):
            if i != seat and any(q.cards for q in s.queue):
                queue = []
                for q in s.queue:
                    k = len(q.cards)
                    queue.append(q.model_copy(update={"cards": tuple(pool[:k])}))
                    pool = pool[k:]
                s = s.model_copy(update={"queue": tuple(queue)})
            seats.append(s)
        base = super().hidden_variant(state, seat, salt)
        return base.model_copy(update={"deck": deck, "discard": discard, "seats": tuple(seats)})

    # --- end -------------------------------------------------------------------------------------
    def outcome(self, state: MoonshineState) -> Outcome | None:
        """Final ranking (M8): points, then Moon tokens, then validated Clients; else shared."""
        if state.phase != "over":
            return None
        return self._outcome_from(state)

    @staticmethod
    def _outcome_from(state: MoonshineState) -> Outcome:
        keys, scores = [], []
        for s in state.seats:
            p = points_of(s.validated, side_info(s.speakeasy, state.variant).silhouettes)
            scores.append(p)
            keys.append((p, sum(s.se_tokens) + sum(s.cl_tokens), len(s.validated)))
        return Outcome(ranks_from_scores(keys), tuple(scores))

    def progress(self, state: MoonshineState) -> int:
        """Rounds started so far."""
        return state.round

    def stats(self, state: MoonshineState) -> dict[str, float]:
        """Counters for ``simulate``: validated Clients (in all, per colour and per card: key
        ``card NN Name``), capped games."""
        out: dict[str, float] = {"validated": 0.0}
        clients = card_set().clients
        for s in state.seats:
            for cid in s.validated:
                out["validated"] += 1
                for key in (f"validated.{COLOURS[client_info(cid).colour]}", f"card {cid:02d} {clients[cid].name.en}"):
                    out[key] = out.get(key, 0.0) + 1
        out["capped"] = float(state.phase == "over" and state.round >= MAX_ROUNDS
                              and max(self._outcome_from(state).scores) < state.target)
        return out

    # --- codec and AI ----------------------------------------------------------------------------
    def encode(self, action: str) -> str:
        """Codes are the actions themselves (canonical strings)."""
        return canonical_code(action)

    def decode(self, code: str) -> str:
        """Canonical action of ``code``; raises :class:`IllegalAction` when malformed."""
        return canonical_code(code)

    def ai_action(self, state: MoonshineState, seat: int) -> str:
        """The baseline AI's choice (see :mod:`engine.moonshine.ai`)."""
        from engine.moonshine.ai import choose

        return choose(state, seat)
