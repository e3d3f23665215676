"""Moonshine (2-5 players): the Game (RULINGS M1-M9; ``docs/rules/moonshine.md``).

Modules: :mod:`~engine.moonshine.state` (state dataclasses), :mod:`~engine.moonshine.actions`
(typed actions and codes), :mod:`~engine.moonshine.legal` (who acts, legal actions),
:mod:`~engine.moonshine.phases` (what ``apply`` does: :func:`~engine.moonshine.phases.step`, on a
:class:`~engine.moonshine.work.Work` copy) and :mod:`~engine.moonshine.followups` (the private
follow-ups), :mod:`~engine.moonshine.dice`, :mod:`~engine.moonshine.scoring`,
:mod:`~engine.moonshine.icons` (card data compiled from :mod:`~engine.moonshine.cards`),
:mod:`~engine.moonshine.view` (typed views) and :mod:`~engine.moonshine.ai` (the baseline AI; it
imports the helper modules, never this one, so there is no import cycle). Actions are typed
(:mod:`~engine.moonshine.actions`); the codes below are their stable string forms.

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
  keep 1 of N; rules 2: a second redraw follows as the automatic ``redraw`` follow-up),
  ``pick.<id>``/``pick.none`` then ``rep.<id>`` (draw action: keep one and replace a
  Client), ``pl.<slot>`` (place a gained token), ``lose.<slot>`` (lose a token to a +1/-1 Moon,
  at the end of one's own action, M6).
- ``over``: someone reached 12 points (15 in Regular) after an action phase (M8).

Slots: ``s0``..``s2`` are the upper slots of the seat's Speakeasy, ``c<id>`` the upper slot of a
Client card in front of the seat. Dice indexes: ``0``-``2`` white, ``b`` blue, ``o`` orange.

Events (keys of ``bot/i18n/*/moonshine.json``; ``seat`` is a seat, ``card``/``old`` Client ids,
``dice`` the 5 faces, ``slot`` a slot key; all public unless said):
``ms.ev.round`` {round, seat}, ``ms.ev.roll`` {seat, dice}, ``ms.ev.reroll`` {seat, dice, left,
rerolled} (``rerolled``: the indexes of the rerolled dice; absent from older stored events),
``ms.ev.dice`` {seat, dice} (final dice), ``ms.ev.gain`` {seat, n}, ``ms.ev.place`` {seat, slot},
``ms.ev.token_lost`` {seat}, ``ms.ev.lose`` {seat, slot}, ``ms.ev.act_draw`` / ``ms.ev.act_moon``
{seat}, ``ms.ev.validate`` {seat, card, points, tokens, on_card}, ``ms.ev.discarded`` {seat, n, slots},
``ms.ev.drew`` / ``ms.ev.redraw`` {seat, n}, ``ms.ev.drew_private`` {seat, cards} (audience: that
seat only), ``ms.ev.keep`` {seat, card}, ``ms.ev.pick_none`` {seat}, ``ms.ev.replace`` {seat, card,
old}, ``ms.ev.drafted`` {seat, cards} (the kept hand, face up), ``ms.ev.plus2`` /
``ms.ev.plus1minus1`` {seat, card}, ``ms.ev.reshuffle`` {n}, ``ms.ev.end`` {winners, scores}.
Rules 2 only: ``on_card`` (Moon tokens that were on the validated card, discarded with it),
``slots`` (slot key -> tokens discarded from it, in slot order; every discard is logged, the
one-way ones too) and ``tokens`` of ``ms.ev.replace`` (Moon tokens discarded with ``old``).
Rules 1 tables log exactly as before: no such keys, and a one-way discard is not logged.

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
  Rules 2 (:attr:`Moonshine.rules_version`) play the double redraw as the rulebook's icon
  explanation does: draw, keep one (its instant bonus applies at once, so a +2 Moon token placed
  then may complete a card-draw bonus), discard the rest, then draw again with the card-draw
  icons of that moment. Rules 1 (tables set up before) deal both draws at once.
- Card sets (M1): rules 1-2 deal the first set, ``data/cards.json`` (Clients 0..69, Speakeasies
  0..4); each later version deals the set before it with the changes of
  ``data/changes-rules<r>.json`` (:func:`engine.moonshine.cards.card_sets`): rules 3 the second
  set (Clients 70..139, Speakeasies 5..9: each colour with its own character, no dominated
  Client, ``docs/balance.md``), rules 4 the third (140..209, 10..14: three Standard sides
  re-tuned), rules 5 the fourth (210..279, 15..19: five sides re-tuned), rules 6 the fifth
  (280..349, 20..24: the Standard Moonlit Garage and two Regular sides), rules 7 the sixth
  (350..419, 25..29: the Regular Copper Still's orange-die slot at one space), rules 8 the
  seventh (420..489, 30..34: the Regular Hush Room's one-space slot giving Food or Music). The
  rules themselves are those of rules 2; ids are global (:func:`engine.moonshine.cards.client_of`),
  so nothing else depends on the version.
- Chance: the first player, the Speakeasies and the deal come from a ``random.Random`` of
  ``"{seed}:setup"`` (every version). Rules 5 to 8 (:attr:`Moonshine.rules_version`) roll the dice and
  reshuffle from :func:`engine.chance.hashed_draws` (BLAKE2b of seed, step version and salt,
  exactly uniform; :func:`engine.moonshine.dice.die_draws`,
  :func:`engine.moonshine.dice.hashed_shuffle`): the same cards and rules as rules 4, a cheaper
  derivation. Rules 1-4 roll from :func:`engine.chance.rng_draws` (a Mersenne Twister per roll) and
  reshuffle with a ``random.Random`` of ``"{seed}:shuffle:{k}"``.
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
  tokens to discard (that choice may switch off a card-draw bonus). Rules 1: a double redraw
  (new Client icon) draws both sets at that moment. Rules 2: only the first; the second draw is
  made once that seat has kept a card and placed the tokens of its instant bonus (if several
  seats reach it in the same step, in seat order from the active player), so the cards it
  discarded may be reshuffled into it. Cards set aside by a pending choice reach the discard
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

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any, ClassVar

from engine.core import Event, Game, GameOptions, Outcome, Step
from engine.fast import lazy_step
from engine.moonshine import hidden
from engine.moonshine.actions import MoonshineAction, Reroll, decode, encode
from engine.moonshine.ai import choose
from engine.moonshine.cards import COLOURS, client_of, speakeasy_of
from engine.moonshine.icons import client_info
from engine.moonshine.legal import check_actions, legal_actions, to_act
from engine.moonshine.phases import deal, step
from engine.moonshine.scoring import MAX_ROUNDS, outcome_of
from engine.moonshine.state import MoonshineOptions, MoonshineState
from engine.moonshine.view import MoonshineView, build_view

__all__ = ["Moonshine"]


@cache
def _default_options() -> MoonshineOptions:
    return MoonshineOptions()


#: :meth:`Moonshine.check_actions` (:func:`engine.moonshine.legal.check_actions`).
_check = check_actions


def _events(state: MoonshineState, actions: Mapping[int, MoonshineAction],
            faces: tuple[str, ...] | None) -> tuple[Event, ...]:
    """The events of a step: the same step (:func:`engine.moonshine.phases.step`) run again with
    its events recorded (the rules are pure, so it is the very same step); read only when
    someone reads ``Step.events``."""
    events: list[Event] = []
    step(state, actions, faces, events)
    return tuple(events)


class Moonshine(Game[MoonshineState, MoonshineAction, MoonshineView]):
    """Moonshine for 2-5 players (see the module docstring). Rules 2: the double redraw; rules 3
    and 4: the second and third card sets; rules 5: the fourth set (re-tuned Speakeasy sides), dice
    and reshuffles from :func:`engine.chance.hashed_draws` (:mod:`engine.moonshine.dice`); rules 6:
    the fifth set (the Standard Moonlit Garage re-tuned); rules 7: the sixth set (the Regular
    Copper Still re-tuned); rules 8 (new tables): the seventh set (the Regular Hush Room re-tuned),
    the dice of rules 5."""

    key: ClassVar[str] = "moonshine"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 5
    state_model: ClassVar[type[Any]] = MoonshineState
    options_model: ClassVar[type[GameOptions]] = MoonshineOptions
    rules_version: ClassVar[int] = 8
    conformance_options: ClassVar[tuple[dict[str, Any], ...]] = ({"variant": "standard"}, {"variant": "regular"})

    def setup(self, seed: int, players: int, options: GameOptions | Mapping[str, Any] | None = None) -> MoonshineState:
        """Deal a new game (see :func:`engine.moonshine.phases.deal`). Raises ``ValueError`` on a
        bad seat count or options."""
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"Moonshine needs 2-5 players, got {players}")
        opts = self.parse_options(options)
        assert isinstance(opts, MoonshineOptions)
        return deal(seed, players, opts.variant, self.rules_version)

    def parse_options(self, options: GameOptions | Mapping[str, Any] | None) -> GameOptions:
        """:meth:`engine.core.Game.parse_options`; no options at all give one shared default
        instance (options are frozen models), validated once."""
        if options is None or (not options and isinstance(options, Mapping)):
            return _default_options()
        return super().parse_options(options)

    #: Seats to decide now (:func:`engine.moonshine.legal.to_act`; bound directly: no extra call).
    to_act = staticmethod(to_act)
    #: Every legal action of a seat now (:func:`engine.moonshine.legal.legal_actions`; see
    #: :mod:`engine.moonshine.actions` for the codes), computed once per state and seat.
    legal_actions = staticmethod(legal_actions)

    def check_actions(self, state: MoonshineState, actions: Mapping[int, MoonshineAction]) -> None:
        """:meth:`engine.core.Game.check_actions` (same checks and messages), with the legal
        actions computed once per state and matched by identity first."""
        _check(state, actions)

    def apply(self, state: MoonshineState, actions: Mapping[int, MoonshineAction]) -> Step[MoonshineState]:
        """Apply one action per seat of ``to_act`` (:func:`engine.moonshine.phases.step`); raises
        :class:`~engine.core.IllegalAction` otherwise. The step's events are made when first read
        (:func:`engine.fast.lazy_step`: a playout or a search never reads them), by running the
        step again with its events recorded."""
        _check(state, actions)
        actions = dict(actions)  # kept by the events' recipe: a copy the caller cannot change
        return lazy_step(step(state, actions, None, None), _events, state, actions, None)

    def resolve_reroll(self, state: MoonshineState, action: Reroll | str, faces: Sequence[str]) -> Step[MoonshineState]:
        """Like ``apply({active: action})`` for a reroll (an action or its code), with the rerolled
        ``faces`` forced (in die order: white 0-2, blue, orange). For tests and replays of real
        dice; raises :class:`~engine.core.IllegalAction` when the reroll is not legal or the faces impossible."""
        act = decode(action) if isinstance(action, str) else action
        actions = {state.active: act}
        _check(state, actions)
        forced = tuple(faces)
        return lazy_step(step(state, actions, forced, None), _events, state, actions, forced)

    def view(self, state: MoonshineState, seat: int | None) -> MoonshineView:
        """Typed view (see :mod:`engine.moonshine.view`): a :class:`~engine.moonshine.view.PlayerView`
        for a seat, the public :class:`~engine.moonshine.view.MoonshineView` for ``None``."""
        return build_view(state, seat)

    def hidden_variant(self, state: MoonshineState, seat: int | None, salt: int) -> MoonshineState:
        """Unseen Client cards re-dealt (:func:`engine.moonshine.hidden.hidden_variant`)."""
        return hidden.hidden_variant(state, seat, salt)

    def outcome(self, state: MoonshineState) -> Outcome | None:
        """Final ranking (M8): points, then Moon tokens, then validated Clients; else shared."""
        if state.phase != "over":
            return None
        return outcome_of(state)

    def turn_order(self, state: MoonshineState) -> tuple[int, ...]:
        """Seats in play order from the first player (holder of the Active player card in
        round 1), for ``simulate``'s positions."""
        return tuple((state.first + k) % state.players for k in range(state.players))

    def seat_labels(self, state: MoonshineState) -> dict[str, tuple[str, ...]]:
        """``{"speakeasy": English name of each seat's Speakeasy}``, for ``simulate``."""
        return {"speakeasy": tuple(speakeasy_of(s.speakeasy).name.en for s in state.seats)}

    def progress(self, state: MoonshineState) -> int:
        """Rounds started so far."""
        return state.round

    def stats(self, state: MoonshineState) -> dict[str, float]:
        """Counters for ``simulate``, named as its summary prints them: Clients validated (in
        all, per colour, per card: ``Clients validated, card NN Name``) and the games the
        round cap ended (RULINGS M1's safety cap)."""
        total = "Clients validated"
        out: dict[str, float] = {total: 0.0}
        for s in state.seats:
            for cid in s.validated:
                out[total] += 1
                for key in (f"{total}, {COLOURS[client_info(cid).colour]}",
                            f"{total}, card {cid:02d} {client_of(cid).name.en}"):
                    out[key] = out.get(key, 0.0) + 1
        out[f"games ended by the {MAX_ROUNDS}-round cap"] = float(
            state.phase == "over" and state.round >= MAX_ROUNDS and max(outcome_of(state).scores) < state.target)
        return out

    def encode(self, action: MoonshineAction) -> str:
        """The stable code of ``action`` (:func:`engine.moonshine.actions.encode`)."""
        return encode(action)

    def decode(self, code: str) -> MoonshineAction:
        """The action of ``code``; raises :class:`~engine.core.IllegalAction` when malformed."""
        return decode(code)

    def ai_action(self, state: MoonshineState, seat: int) -> MoonshineAction:
        """The baseline AI's choice (see :mod:`engine.moonshine.ai`)."""
        return choose(state, seat)
