"""Shop Battle / Bataille des commerces (2-6 players): the Game (RULINGS S1-S6,
``docs/rules/shop-battle.md``).

Cards and decks: :mod:`engine.shop_battle.cards` (card values, letters) and
:mod:`engine.shop_battle.deck` (validated decks; the default deck is
``engine/shop_battle/data/default.json``). Card ids are indices into ``state.cards``.

Flow of a round (S4, S5, S2; run by :func:`~engine.shop_battle.round.advance`):

1. *Pre-choice*: the round's chooser looks at the top card of their pile. A Collector found
   there is revealed to everyone, put into the pot and its power applies at once (a power that
   needs a choice is a decision step of its owner); then the chooser looks at the next card.
   The chooser's shop card is then visible to the chooser only (``view(state, chooser).top``).
2. *Choice*: the chooser announces a characteristic and a direction: action codes
   ``c.<year|letters|street|games>.<hi|lo>`` (``hi`` = the higher value wins). The chooser's card
   is revealed (the announced value).
3. *Reveal*: every other active player, in rotation order from the chooser, reveals the top card
   of their pile; Collectors apply and their owner reveals the next card.
4. *Compare*: the best value wins the whole pot, which goes under the winner's pile in the order
   the cards reached the pot (carried cards first). On an equal best value the tied players
   start a *bataille*: each reveals a new card (same characteristic and direction), repeated until
   one wins. A player who has no card to reveal drops out of the comparison; the last one left
   in a tie wins; if every tied player drops out the pot stays for the next round (S5).
5. *End of round*: players with an empty pile are out (S6); the next chooser is the next active
   player counter-clockwise (seat - 1, "to the right", S4), unless reversed.

Collector powers (``CollectorCard.power.kind``; S2):

- ``peek`` (HYPER U): decision ``t.<seat>`` among the other active players whose pile is not
  empty. Public event ``sb.ev.peek`` {player, target, seconds}; private event
  ``sb.ev.peek_result`` (audience = the owner only) {player, target, seconds, count,
  cards: [card dicts of the target's pile, top first]}. ``seconds`` (default 10) is how long the
  Discord message stays; the engine itself has no clock.
- ``reverse``: the chooser role passes in the other direction from this round's end on (and the
  reveal order of later reveal steps follows the new direction). Event ``sb.ev.reverse``.
- ``skip``: when the next chooser is designated, one more active player is passed over (skips
  stack; each is used once). Events ``sb.ev.skip`` and, at the round's end, ``sb.ev.skipped``.
- ``steal_tie``: for the rest of this round, when the owner is among the players tied for the
  best value, the owner wins at once (no bataille). If several tied players hold it, only they
  go on to the bataille. Event ``sb.ev.steal_tie`` then ``sb.ev.tiebreak``.
- ``swap``: decision ``t.<seat>`` among the other active players whose pile is not empty (no
  effect when the owner's own pile is empty): the top cards of both piles are exchanged face
  down; the owner then reveals (or, as chooser, looks at) their new top card. ``sb.ev.swap``.
- ``scout``: the owner privately sees the top card of each other active player's pile. Public
  ``sb.ev.scout`` {player}; private ``sb.ev.scout_result`` {player, tops: [{seat, card}]}.
- ``tribute`` (param ``cards`` 1..3): every other active player puts that many cards from the top
  of their pile face down into the pot (fewer if they have fewer). ``sb.ev.tribute``.
  Face-down cards are never revealed; they simply go to the round's winner.

Interpretations where the rules are silent:

- Reveal order: the chooser first, then the others in rotation order (the current direction,
  counter-clockwise by default); a bataille reveals in the same order among the tied players.
  The pot is kept in the order cards reached it; that is the "reveal order" of S4.
- S3 remainder: rules 5: the cards left over after an even deal are set aside face down, out
  of the game, unseen by anyone (``state.aside``); rules 1-2: they start the first round's pot
  face down; rules 3: they go one each to the bottom of randomly drawn players' piles; rules 4:
  the same at 2-4 players, and at 5-6 players one each to the last choosers of the first lap.
- The first chooser is drawn at random from the seed (:func:`shuffled_deal`).
- A chooser whose pile runs out (only Collectors left) passes the choice to the next active
  player with cards; the rotation then continues from the player who actually chose. If nobody
  can choose, the pot stays and the round ends.
- A Collector revealed during a bataille (or by the chooser) applies the same way; a power
  with no valid target (``peek``/``swap``) has no effect (``sb.ev.no_effect``).
- Elimination is checked at the end of each round only (a player who reveals their last card
  can still win the round).
- End (S6): when at most one player still has cards, or at the round cap (table option
  ``round_cap``, 10..200, default 30; "none" = no cap; rules 4: once every player still in has
  chosen equally often, see below). A safety limit of :data:`MAX_ROUNDS`
  rounds ends endless games like a cap. Ranking: most cards held; players with no card rank by
  how long they lasted (later elimination is better); equal keys share the place. Score = cards
  held.
- Hidden information: piles are face down, only their sizes are public. Every card ever revealed
  face up is public; the AI (:mod:`engine.shop_battle.ai`) uses exactly what its seat knows.

Rules versions (:attr:`ShopBattle.rules_version` = 5; a table keeps the version it was set up
with):

- **5** (S3 as the rule text says, "chaque joueur doit avoir le même nombre de cartes"): the
  cards left over by the even deal are set aside face down, out of the game, seen by nobody
  (``state.aside``; the hidden re-deal of :mod:`engine.shop_battle.hidden` counts them among
  the unseen places). Nobody starts with a card more. Everything else is as in version 4.
- **4** (turn-position fairness, ``docs/balance.md``). *The cap (S6):* the lap of rules 2-3
  (the choice back to the seat that opened it) does not give every player the same number of
  choices once a ``reverse`` or ``skip`` power or a pass has moved the rotation (at 3 players 9
  games in 10 ended with unequal counts, and the player who had chosen more usually won). Rules
  4 count the announcements (``state.chosen``): the game ends after the first round at or after
  ``round_cap`` at which every seat still in has chosen equally often; until then, past the cap,
  the choice goes to the next seat still in (in the current direction, this round's chooser
  last) that has chosen fewer times than the most (pending skips are dropped). *Leftover cards
  (S3):* at 5 and 6 players they go one each to the bottom of the piles of the last choosers of
  the first lap, the last chooser first (:func:`late_choosers`), who lose a card in every round
  before their first choice; at 2-4 players at random, as in rules 3.
- **3** (turn-position fairness, ``docs/balance.md``): the cards left over after the even deal
  (S3) no longer start the first round's pot, which the first chooser nearly always won (a
  chooser wins about 95% of the rounds they choose): they go one each, face down, to the bottom
  of the piles of distinct players drawn at random from the seed (:func:`give_leftovers`).
  Everything else is as in version 2.
- **2** (RULINGS S6 as settled): the round cap falls at the end of a full lap of choosers: the game
  ends after the first round at or after ``round_cap`` whose next chooser would open a new lap
  (the choice comes back to the seat that opened the lap, or to the next seat still in after it).
  At 4 players and cap 30 the game ends after round 32, every chooser having chosen 8 times.
  **S1**: letters are counted on the NFKC form, categories Lu/Ll/Lt/Lo only
  (:func:`~engine.shop_battle.cards.count_letters`).
- **1**: the game ended right after round ``round_cap``; letters were every ``str.isalpha()``
  character of the NFC form (``Dragonʼs Den`` 11, ``ﬁve`` 3). Old tables keep these counts.

Events (keys of ``bot/i18n/*/shop_battle.json``; public unless said otherwise):
``sb.ev.round`` {round, chooser} · ``sb.ev.collector`` {player, card, power, params} ·
``sb.ev.no_effect`` {player, card} · ``sb.ev.pass`` {player} · ``sb.ev.announce`` {chooser, card,
char, value, dir: "hi"|"lo"} · ``sb.ev.reveal`` {player, card, char, value} · ``sb.ev.no_card``
{player} · ``sb.ev.bataille`` {players, value, level} · ``sb.ev.tiebreak`` {winner, value} ·
``sb.ev.win`` {winner, cards} · ``sb.ev.carry`` {cards} · ``sb.ev.out`` {player} · ``sb.ev.cap``
{round} · ``sb.ev.end`` {players} · ``sb.ev.peek`` {player, target, seconds} ·
``sb.ev.peek_result`` **audience {owner}** {player, target, seconds, count, cards} ·
``sb.ev.reverse`` {player, rotation: "cw"|"ccw"} · ``sb.ev.skip`` {player} · ``sb.ev.skipped``
{player} · ``sb.ev.steal_tie`` {player} · ``sb.ev.swap`` {player, target} · ``sb.ev.scout``
{player, count} · ``sb.ev.scout_result`` **audience {owner}** {player, tops: [{seat, card}]} ·
``sb.ev.tribute`` {player, cards}. ``card`` is a card name, except in ``cards``/``tops`` lists
where cards are :func:`~engine.shop_battle.cards.card_dict` values.

Table options (:class:`ShopBattleOptions`): ``round_cap`` (``None`` or 10..200; the lobby
strings ``"none"``/``"20"`` are accepted), ``deck`` (the deck id shown in the lobby,
``"default"``), ``deck_data`` (the full validated :class:`~engine.shop_battle.deck.Deck` to play;
``None`` = the default deck). A custom ``deck`` id without ``deck_data`` is refused by
:meth:`ShopBattle.setup` (``ValueError``): the bot must load the deck into ``deck_data``.
The cards are copied into the state, so a state never depends on files or the database.
"""

from __future__ import annotations

import _random
from collections.abc import Mapping, Sequence
from dataclasses import fields, replace
from functools import cache
from hashlib import sha512
from struct import unpack
from typing import Any, ClassVar

from pydantic import Field, TypeAdapter, field_validator

from engine.core import Event, Game, GameOptions, IllegalAction, Outcome, Step, ranks_from_scores
from engine.fast import lazy_step, replace_state, replacer
from engine.shop_battle import hidden
from engine.shop_battle.actions import (
    CHOOSE_ALL,
    TARGETS,
    ShopBattleAction,
    Target,
    decode_action,
    encode_action,
)
from engine.shop_battle.ai import safe_action
from engine.shop_battle.cards import Card, shared_cards
from engine.shop_battle.deck import Deck, default_deck
from engine.shop_battle.round import MAX_ROUNDS, advance
from engine.shop_battle.state import CCW, KEY, OpeningEvent, ShopBattleState, knowledge
from engine.shop_battle.view import ShopBattleView, build_view

__all__ = ["LATE_CHOOSERS_FROM", "MAX_ROUNDS", "ROUND_CAPS", "ShopBattle", "ShopBattleOptions", "deal",
           "give_leftovers", "late_choosers", "shuffled_deal"]

#: Round-cap values offered in the lobby (``None`` = no cap).
ROUND_CAPS = (None, 10, 20, 30, 50)

#: Rules 4: from this many players on, the deal's leftover cards go to the last choosers of the
#: first lap (:func:`late_choosers`) instead of players drawn at random (``docs/balance.md``).
LATE_CHOOSERS_FROM = 5

_ONE = tuple(frozenset({s}) for s in range(6))
_NOBODY: frozenset[int] = frozenset()
_CHOOSE_IDS = frozenset(id(a) for a in CHOOSE_ALL)  # module constants: their ids never change
_MISSING: Any = object()
#: ``ShopBattleState(...)`` with every field given, in field order (``engine.fast.replacer``,
#: no ``__init__``; the copied instance is never read).
_fresh_state = replacer(ShopBattleState, *(f.name for f in fields(ShopBattleState)))
_new_generator = _random.Random.__new__
_seed_generator = _random.Random.seed


class ShopBattleOptions(GameOptions):
    """Table options. See the module docstring.

    Attributes:
        round_cap: ``None`` or 10..200 (default 30): the game ends at that round (rules 2: at
            the end of that round's lap), most cards wins (S6). A default cap keeps a Discord
            table to a sensible length: between reasonable players a bataille rarely ends by
            itself (cards just cycle).
        deck: id of the deck chosen in the lobby (``"default"`` or a guild deck id).
        deck_data: the deck itself (required when ``deck`` is not ``"default"``).
    """

    round_cap: int | None = Field(30, ge=10, le=200)
    deck: str = Field("default", pattern=r"^[A-Za-z0-9_-]{1,32}$")
    deck_data: Deck | None = None

    @field_validator("deck", mode="before")
    @classmethod
    def _deck_id(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        return value

    @field_validator("round_cap", mode="before")
    @classmethod
    def _lobby_none(cls, value: Any) -> Any:
        if isinstance(value, str) and value.strip().lower() in ("", "none", "0", "off"):
            return None
        return value


@cache
def _default_options() -> ShopBattleOptions:
    return ShopBattleOptions()


def deal(order: Sequence[int], players: int) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Deal ``order`` (top of the shuffled deck first) evenly (S3).

    Card ``k`` of the first ``players * (len // players)`` goes to seat ``k % players``; the
    remainder (fewer than ``players`` cards) is returned as the first round's pot.
    Returns ``(piles, pot)``, each pile top first.
    """
    per = len(order) // players
    dealt = list(order[: per * players])
    piles = tuple(tuple(dealt[s::players]) for s in range(players))
    return piles, tuple(order[per * players :])


def shuffled_deal(seed: int, cards: int, players: int,
                  rules: int = 2) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...], int]:
    """The chance of setup: shuffle ``cards`` card ids from ``seed``, :func:`deal` them and draw
    the first chooser. Returns ``(piles, pot, chooser)``; :meth:`ShopBattle.start_from` takes
    exactly these, so tests script a deal by passing their own piles instead.

    Rules 1-2 (S3 as first read): the leftover cards are the first round's pot. Rules 3: they
    go, one each, to the bottom of the piles of players drawn at random (distinct players, drawn
    after the first chooser), and the first pot is empty: see :func:`give_leftovers`. Rules 4:
    the same at 2 to 4 players; at 5 and 6 players they go to the last choosers of the first lap
    instead (:func:`late_choosers`).

    Rules 5 (S3 as written): the leftovers are set aside, out of the game: the piles are
    returned even, the pot empty, and the card ids found in neither are the set-aside cards
    (:meth:`ShopBattle.start_from` sets them aside).

    Every version draws as ``rng = random.Random(f"{seed}:deal")``, ``rng.shuffle(order)``,
    ``rng.randrange(players)`` and (rules 3-4) ``rng.sample(range(players), leftovers)`` do;
    :func:`_deal_draws` computes the same values in bulk (``tests/test_shop_battle.py`` pins
    them against ``random.Random``)."""
    leftovers = cards % players
    picks = leftovers if (3 <= rules <= 4 and leftovers and not (rules >= 4 and players >= LATE_CHOOSERS_FROM)) else 0
    order, chooser, sampled = _deal_draws(seed, cards, players, picks)
    piles, pot = deal(order, players)
    if rules >= 5:
        pot = ()
    elif rules >= 4 and pot and players >= LATE_CHOOSERS_FROM:
        piles = give_leftovers(piles, pot, late_choosers(chooser, players, len(pot)))
        pot = ()
    elif rules >= 3 and pot:
        piles = give_leftovers(piles, pot, sampled)
        pot = ()
    return piles, pot, chooser


#: ``_SHIFTS[n]``: ``random.Random._randbelow(n)`` keeps the top ``n.bit_length()`` bits of a
#: 32-bit word of the Mersenne Twister (``getrandbits(k)`` for ``k <= 32``), i.e. shifts it right
#: by ``32 - n.bit_length()``, and draws again while the value is ``>= n``.
_SHIFTS = tuple(32 - n.bit_length() for n in range(257))


def _words(gen: _random.Random, count: int) -> list[int]:
    """The next ``count`` 32-bit outputs of ``gen``, in order (``getrandbits(32 * count)`` holds
    them from the lowest bits up)."""
    return list(unpack(f"<{count}I", gen.getrandbits(32 * count).to_bytes(4 * count, "little")))


def _deal_draws(seed: int, cards: int, players: int, picks: int) -> tuple[list[int], int, list[int]]:
    """``(order, chooser, sampled)``: exactly ``rng.shuffle(order)`` of ``list(range(cards))``,
    then ``rng.randrange(players)``, then (``picks > 0``) ``rng.sample(range(players), picks)``
    of ``rng = random.Random(f"{seed}:deal")`` (CPython's algorithms: ``_randbelow`` by
    rejection on ``getrandbits``; ``sample``'s pool method, used for populations of at most 21),
    from the generator's words read in bulk instead of one method call per draw. ``cards`` at
    most 256, ``picks < players <= 21``."""
    text = f"{seed}:deal".encode()
    gen = _new_generator(_random.Random)
    _seed_generator(gen, int.from_bytes(text + sha512(text).digest(), "big"))  # as random.Random(str)
    words = _words(gen, cards + cards // 2 + 16)
    pos = 0

    def below(n: int) -> int:
        """``_randbelow(n)``: the top bits of the next words until one is below ``n``."""
        nonlocal words, pos
        shift = _SHIFTS[n]
        while True:
            if pos == len(words):
                words += _words(gen, 64)
            r: int = words[pos] >> shift
            pos += 1
            if r < n:
                return r

    order = list(range(cards))
    shifts, end = _SHIFTS, len(words)
    for n in range(cards, 1, -1):  # the shuffle: below(n) inlined (a call per card is half its cost)
        shift = shifts[n]
        while True:
            if pos == end:
                words += _words(gen, 64)
                end = len(words)
            r = words[pos] >> shift
            pos += 1
            if r < n:
                break
        i = n - 1
        order[i], order[r] = order[r], order[i]
    pool = list(range(players))
    drawn = [below(n) for n in (players, *range(players, players - picks, -1))]  # randrange, then sample's draws
    sampled: list[int] = []
    for i, j in enumerate(drawn[1:]):  # sample(range(players), picks), the pool method
        sampled.append(pool[j])
        pool[j] = pool[players - i - 1]
    return order, drawn[0], sampled


def late_choosers(chooser: int, players: int, count: int) -> list[int]:
    """Rules 4 (``docs/rules/shop-battle.md``, Setup): the ``count`` (fewer than ``players``)
    seats that choose last in the first lap when ``chooser`` opens it, the last chooser first
    (the rotation is counter-clockwise, S4: the last chooser is ``chooser + 1``).

    >>> late_choosers(0, 6, 5)
    [1, 2, 3, 4, 5]
    >>> late_choosers(4, 6, 2)
    [5, 0]
    """
    if not 0 <= count < players:
        raise ValueError("count must be 0 to players - 1")
    return [(chooser + k) % players for k in range(1, count + 1)]


def _aside(piles: Sequence[Sequence[int]], pot: Sequence[int], cards: int) -> tuple[int, ...]:
    """Rules 5 (S3): the card ids of a deck of ``cards`` found in neither ``piles`` nor ``pot``,
    sorted: the cards set aside, out of the game."""
    dealt = {c for p in piles for c in p} | set(pot)
    return tuple(c for c in range(cards) if c not in dealt)


def give_leftovers(piles: Sequence[Sequence[int]], pot: Sequence[int],
                   seats: Sequence[int]) -> tuple[tuple[int, ...], ...]:
    """Rules 3 (``docs/rules/shop-battle.md``, Setup): leftover card ``pot[k]`` goes to the bottom
    of seat ``seats[k]``'s pile (distinct seats). Returns the new piles, top first."""
    out = [list(p) for p in piles]
    for cid, seat in zip(pot, seats, strict=True):
        out[seat].append(cid)
    return tuple(tuple(p) for p in out)


class ShopBattle(Game[ShopBattleState, ShopBattleAction, ShopBattleView]):
    """Shop Battle, 2-6 players (RULINGS S1-S6). See the module docstring for the rules."""

    key = KEY
    min_players = 2
    max_players = 6
    state_model = ShopBattleState
    options_model = ShopBattleOptions
    rules_version: ClassVar[int] = 5
    conformance_options: ClassVar[tuple[dict[str, Any], ...]] = ({}, {"round_cap": 10}, {"round_cap": None})

    # -- setup
    def parse_options(self, options: GameOptions | Mapping[str, Any] | None) -> GameOptions:
        """:meth:`engine.core.Game.parse_options`; no options at all give one shared default
        instance (options are frozen models), validated once."""
        if options is None or (not options and isinstance(options, Mapping)):
            return _default_options()
        return super().parse_options(options)

    def _options(self, options: GameOptions | Mapping[str, Any] | None) -> ShopBattleOptions:
        opts = self.parse_options(options)
        assert isinstance(opts, ShopBattleOptions)
        return opts

    def _deck(self, opts: ShopBattleOptions) -> Deck:
        if opts.deck_data is not None:
            return opts.deck_data
        if opts.deck != "default":
            raise ValueError(f"deck {opts.deck!r} is not loaded: pass it as deck_data")
        return default_deck()

    def setup(self, seed: int, players: int, options: GameOptions | Mapping[str, Any] | None = None) -> ShopBattleState:
        """Shuffle the deck from the seed, deal it (S3), draw the first chooser
        (:func:`shuffled_deal`), run the pre-choice step. Raises ``ValueError`` on a bad seat
        count, options or deck."""
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Shop Battle needs 2 to 6 players, not {players}")
        opts = self._options(options)
        deck = self._deck(opts)
        piles, pot, chooser = shuffled_deal(seed, len(deck.cards), players, self.rules_version)
        aside = _aside(piles, pot, len(deck.cards)) if self.rules_version >= 5 else ()
        return self._begin(seed, piles, pot, chooser, opts, deck, self.rules_version, aside)  # a complete deal

    def start_from(
        self,
        seed: int,
        piles: Sequence[Sequence[int]],
        pot: Sequence[int] = (),
        chooser: int = 0,
        options: GameOptions | Mapping[str, Any] | None = None,
        rules: int | None = None,
    ) -> ShopBattleState:
        """Pure helper (tests, replays): start a game from explicit piles (top first) and
        first-round pot (face down). Every card id of the deck must appear exactly once; from
        rules 5 on, the ids found in neither are set aside face down, out of the game (S3:
        :attr:`~engine.shop_battle.state.ShopBattleState.aside`), each id still at most once.
        ``rules`` defaults to :attr:`rules_version` (tests pass 1 for the old rules). Runs the
        first pre-choice step. Raises ``ValueError`` on bad input."""
        opts = self._options(options)
        deck = self._deck(opts)
        players = len(piles)
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Shop Battle needs 2 to 6 players, not {players}")
        rules = self.rules_version if rules is None else rules
        ids = sorted([c for p in piles for c in p] + list(pot))
        if rules >= 5:
            if len(set(ids)) != len(ids) or not all(0 <= c < len(deck.cards) for c in ids):
                raise ValueError("piles and pot must hold each card id at most once")
        elif ids != list(range(len(deck.cards))):
            raise ValueError("piles and pot must hold every card id exactly once")
        if not 0 <= chooser < players:
            raise ValueError("bad chooser seat")
        aside = _aside(piles, pot, len(deck.cards)) if rules >= 5 else ()
        return self._begin(seed, tuple(tuple(p) for p in piles), tuple(pot), chooser, opts, deck, rules, aside)

    def _begin(self, seed: int, piles: tuple[tuple[int, ...], ...], pot: tuple[int, ...], chooser: int,
               opts: ShopBattleOptions, deck: Deck, rules: int, aside: tuple[int, ...] = ()) -> ShopBattleState:
        """:meth:`start_from` on checked input: the state before the first step, then the first
        pre-choice step (:func:`~engine.shop_battle.round.advance`), whose events are kept in
        ``opening``."""
        players = len(piles)
        out = tuple(None if p else 0 for p in piles)  # a seat dealt no card at all is out from the start
        if not piles[chooser]:
            chooser = next((s for s in range(players) if piles[s]), chooser)
        st = _fresh_state(
            None, seed, -1, players, rules, opts.deck, deck.name, deck.cards, piles, pot, tuple(sorted(pot)), out, 1,
            opts.round_cap, chooser, CCW, 0, "choose", None, None, 0, (), (), ((),) * players, (None,) * players, (),
            None, (), ((),) * players, None, (), chooser if rules >= 2 else 0, (), aside)
        if out.count(None) <= 1:
            return replace_state(st, version=0, phase="over")
        new, events = advance(st, None, record=True)
        if not events:
            return new
        opening = tuple(
            OpeningEvent(key=e.key, params=dict(e.params),
                         audience=tuple(sorted(e.audience)) if e.audience is not None else None)
            for e in events)
        return replace_state(new, opening=opening)

    def turn_order(self, state: ShopBattleState) -> tuple[int, ...]:
        """Seats in chooser order (counter-clockwise, S4) from the first chooser, for
        ``simulate``'s positions."""
        return tuple((state.chooser - k) % state.players for k in range(state.players))

    def progress(self, state: ShopBattleState) -> int:
        """Rounds played so far, for ``simulate``."""
        return state.round

    def opening_events(self, state: ShopBattleState) -> tuple[Event, ...]:
        """The events of the setup's pre-choice step: Collectors revealed on the first
        chooser's pile before round 1's choice (S2), with their private results."""
        return tuple(Event(e.key, dict(e.params), frozenset(e.audience) if e.audience is not None else None)
                     for e in state.opening)

    # -- contract
    def to_act(self, state: ShopBattleState) -> frozenset[int]:
        """``{chooser}`` in phase ``choose``, ``{pending.owner}`` in ``target``, else empty."""
        if state.phase == "choose":
            return _ONE[state.chooser]
        if state.phase == "target" and state.pending is not None:
            return _ONE[state.pending.owner]
        return _NOBODY

    def legal_actions(self, state: ShopBattleState, seat: int) -> tuple[ShopBattleAction, ...]:
        """The 8 announcements for the chooser; a :class:`Target` per valid target in ``target``."""
        phase = state.phase
        if phase == "choose":
            return CHOOSE_ALL if seat == state.chooser else ()
        pending = state.pending
        if phase != "target" or pending is None or seat != pending.owner:
            return ()
        return tuple([TARGETS[t] for t in pending.targets])

    def check_actions(self, state: ShopBattleState, actions: Mapping[int, ShopBattleAction]) -> None:
        """:meth:`engine.core.Game.check_actions` (same checks, same messages); the common case,
        the chooser sending one of :data:`~engine.shop_battle.actions.CHOOSE_ALL`, by identity."""
        if state.phase == "choose" and len(actions) == 1:
            action = actions.get(state.chooser, _MISSING)
            if action is not _MISSING and id(action) in _CHOOSE_IDS:
                return
        super().check_actions(state, actions)

    def apply(self, state: ShopBattleState, actions: Mapping[int, ShopBattleAction]) -> Step[ShopBattleState]:
        """Apply the chooser's announcement or a Collector target, then run the round on
        until the next decision. Raises :class:`IllegalAction` (state unchanged)."""
        phase = state.phase
        if phase == "choose" and len(actions) == 1:  # check_actions' common cases, inlined
            action = actions.get(state.chooser, _MISSING)
            if action is _MISSING or id(action) not in _CHOOSE_IDS:
                self.check_actions(state, actions)
        else:
            pending = state.pending
            if phase == "target" and pending is not None and len(actions) == 1:
                action = actions.get(pending.owner, _MISSING)
                if type(action) is not Target or action.target not in pending.targets:
                    self.check_actions(state, actions)  # raises
            else:
                self.check_actions(state, actions)
                ((_seat, action),) = actions.items()
        new, _ = advance(state, action)
        return lazy_step(new, self._step_events, state, action)

    def _step_events(self, state: ShopBattleState, action: ShopBattleAction) -> tuple[Event, ...]:
        """The events of ``apply(state, {seat: action})``, by running the step again with its
        events recorded (:func:`~engine.shop_battle.round.advance`), the end of the game's
        included."""
        new, events = advance(state, action, record=True)
        if new.phase == "over":
            events.append(Event("sb.ev.end", {"players": list(self.outcome_of(new).winners)}))
        return tuple(events)

    def outcome(self, state: ShopBattleState) -> Outcome | None:
        """Once over: score = cards held; ranked by cards, then by elimination round (S6)."""
        if state.phase != "over":
            return None
        return self.outcome_of(state)

    @staticmethod
    def outcome_of(state: ShopBattleState) -> Outcome:
        """The ranking of ``state`` as if the game ended now (see :meth:`outcome`)."""
        scores = tuple(len(p) for p in state.piles)
        keys: list[tuple[Any, ...]] = []
        for s in range(state.players):
            out = state.out[s]
            keys.append((scores[s], 10**9 if out is None else out))
        return Outcome(ranks=ranks_from_scores(keys), scores=scores)

    # -- views
    def view(self, state: ShopBattleState, seat: int | None) -> ShopBattleView:
        """Typed view (:mod:`engine.shop_battle.view`): a ``ShopBattleView`` for ``None``, a
        ``ShopBattleSeatView`` (adds ``seat`` and the chooser's own ``top`` card) for a seat."""
        winners = self.outcome_of(state).winners if state.phase == "over" else ()
        return build_view(state, seat, self.to_act(state), winners)

    def knowledge(self, state: ShopBattleState, seat: int | None) -> frozenset[int]:
        """Card ids whose identity ``seat`` knows (public ones plus its private knowledge)."""
        return knowledge(state, seat)

    def hidden_variant(self, state: ShopBattleState, seat: int | None, salt: int) -> ShopBattleState:
        """A full re-deal of every card ``seat`` has not seen (:func:`engine.shop_battle.hidden.hidden_variant`)."""
        return hidden.hidden_variant(state, seat, salt)

    # -- AI
    def ai_action(self, state: ShopBattleState, seat: int) -> ShopBattleAction:
        """Baseline AI (deterministic; :func:`engine.shop_battle.ai.safe_action`: never an
        announcement whose chance to win the round another one dominates).
        Raises :class:`IllegalAction` when ``seat`` is not to act."""
        legal = self.legal_actions(state, seat)
        if not legal:
            raise IllegalAction("not your turn")
        return safe_action(state, seat, legal)

    # -- codecs
    def encode(self, action: ShopBattleAction) -> str:
        """``c.<char>.<hi|lo>`` or ``t.<seat>``."""
        try:
            return encode_action(action)
        except ValueError:
            raise IllegalAction("unknown action") from None

    def decode(self, code: str) -> ShopBattleAction:
        """Inverse of :meth:`encode`; raises :class:`IllegalAction` on anything else."""
        self.check_code(code)
        action = decode_action(code)
        if action is None:
            raise IllegalAction("malformed action code")
        return action

    def load_state(self, data: Mapping[str, Any]) -> ShopBattleState:
        """Inverse of :meth:`dump_state` (validated; raises ``pydantic.ValidationError``); equal
        decks of loaded states share one tuple (:func:`engine.shop_battle.cards.shared_cards`).

        A snapshot whose ``cards`` are exactly the stored form of a deck already validated in
        this process (the default deck, or one loaded or dumped before) takes that deck's tuple
        without validating the cards again (the rest is validated as always): about 0.4 ms less
        per loaded snapshot of the default deck, the same state."""
        cards = _known_cards(data.get("cards"))
        if cards is None:
            state = super().load_state(data)
            cards = shared_cards(state.cards)
            return state if cards is state.cards else replace(state, cards=cards)
        return replace_state(super().load_state({**data, "cards": ()}), cards=cards)

    def dump_state(self, state: ShopBattleState) -> dict[str, Any]:
        """JSON dict of the whole state; a rules-1 state leaves out ``lap_opener`` (a rules-2
        field), a state of rules 1-3 ``chosen`` (a rules-4 field) and one of rules 1-4 ``aside``
        (a rules-5 field), so tables set up before
        those versions keep their stored form. The cards' JSON form is made once per deck tuple
        (:func:`_cards_json`) and the other fields by pydantic: the same dict, in the same key
        order, as dumping the whole state (a list of about 40 card dicts each step was most of
        the work). The card dicts are shared by every dump of that deck: read them, do not
        change them."""
        rest = _STATE_ADAPTER().dump_python(state, mode="json", exclude={"cards"})
        cards = _cards_json(state.cards)
        data: dict[str, Any] = {}
        for key, value in rest.items():
            data[key] = value
            if key == "deck_name":
                data["cards"] = list(cards)
        if state.rules < 5:
            data.pop("aside", None)
        if state.rules < 4:
            data.pop("chosen", None)
        if state.rules < 2:
            data.pop("lap_opener", None)
        return data


@cache
def _STATE_ADAPTER() -> TypeAdapter[ShopBattleState]:  # noqa: N802 - a constant made on first use
    return TypeAdapter(ShopBattleState)


_CARDS_ADAPTER: TypeAdapter[tuple[Card, ...]] = TypeAdapter(tuple[Card, ...])
#: The stored (JSON) form of card tuples already validated, by the tuple's identity (the tuple is
#: kept in the value, so an id is never reused while cached); at most 64, the oldest out first.
_CARDS_JSON: dict[int, tuple[tuple[Card, ...], list[Any]]] = {}


def _cards_json(cards: tuple[Card, ...]) -> list[Any]:
    """The JSON form of a state's ``cards`` (what dumping the whole state writes there), made
    once per tuple. Callers get the cached list itself: copy it before changing it."""
    hit = _CARDS_JSON.get(id(cards))
    if hit is not None and hit[0] is cards:
        return hit[1]
    if len(_CARDS_JSON) >= 64:
        _CARDS_JSON.pop(next(iter(_CARDS_JSON)))
    dumped: list[Any] = _CARDS_ADAPTER.dump_python(cards, mode="json")
    _CARDS_JSON[id(cards)] = (cards, dumped)
    return dumped


def _known_cards(data: Any) -> tuple[Card, ...] | None:
    """The validated, shared tuple whose stored form equals ``data`` (the default deck's, or
    one of :data:`_CARDS_JSON`), or ``None`` (then the cards must be validated)."""
    if not isinstance(data, list):
        return None
    if not _CARDS_JSON:
        _cards_json(shared_cards(default_deck().cards))
    for cards, dumped in reversed(_CARDS_JSON.values()):
        if dumped == data:
            return cards
    return None
