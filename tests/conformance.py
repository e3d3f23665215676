"""The shared conformance suite: generic checks every :class:`engine.core.Game` must pass.

Every helper takes ``(game, players, seed)`` (plus optional ``options``, a dict for
``game.setup``) and raises ``AssertionError`` with a readable message on a violation.
``tests/test_conformance.py`` runs :func:`check_game` for every game of ``bot.games.GAMES``,
every seat count and every entry of ``Game.conformance_options``; a game's own tests may call
the single checks too.

What is checked (the contract in ``engine/core.py``; ``docs/ARCHITECTURE.md``, "The engine contract"):

- random playouts (each seat of ``to_act`` picks uniformly among its ``legal_actions`` with a
  local ``random.Random``) end within ``max_steps`` applies; ``to_act`` is empty exactly when
  ``outcome`` is not ``None``; seats outside ``to_act`` have no legal action;
- illegal actions are refused with :class:`IllegalAction` and leave the state unchanged: an
  action from a seat that is not to act, a missing seat, an extra/out-of-range seat, an action
  not legal now, anything after the end; malformed codes are refused by ``decode``;
- replay: the same seed and the same actions give the same states and events;
- ``dump_state``/``load_state`` through ``json.dumps``/``json.loads`` gives an equal state;
- ``decode(encode(a)) == a`` for every legal action, codes are custom_id-safe;
- ``version`` grows by exactly 1 per ``apply``;
- views are JSON-serialisable, never hold a ``"seed"`` key nor the seed value, and
  ``view(hidden_variant(state, seat, salt), seat) == view(state, seat)`` (``seat`` ``None`` and
  every seat); the acting seats' legal actions do not change in such a variant either;
- determinization (:func:`check_determinization`): a ``hidden_variant`` for a seat keeps the
  multiset of every card/tile/die, keeps the seat's own private information, is a legal state
  (JSON round trip, acting seats have legal actions, a random playout from it ends), and
  different salts give different variants where the seat has unseen pieces;
- ``ai_action``/``timeout_action`` are legal and deterministic, and an AI-only game ends;
- every AI level of ``engine.policies`` (easy, normal, strong with a tiny iteration budget,
  random) returns a legal action, the same one for the same salt (:func:`check_levels`);
- :class:`Outcome` has one rank and one score per seat, competition ranking (1, 1, 3), and a
  higher score never ranks worse.

Long playouts are sampled: the per-step checks run on at most ``max_checks`` evenly spread
steps (always including the first and the last states), the replay check on every step.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.core import MAX_CODE_LEN, Game, IllegalAction, Outcome

__all__ = [
    "DEFAULT_MAX_STEPS",
    "MALFORMED_CODES",
    "Trace",
    "check_ai",
    "check_ai_game",
    "check_codec",
    "check_determinization",
    "check_game",
    "check_illegal",
    "check_json_roundtrip",
    "check_levels",
    "check_outcome",
    "check_replay",
    "check_trace",
    "check_views",
    "checked_indices",
    "random_playout",
]

#: Upper bound on the number of ``apply`` calls of one playout.
DEFAULT_MAX_STEPS = 20_000

#: Codes that no game may accept (bad alphabet, too long, empty, nonsense).
MALFORMED_CODES: tuple[str, ...] = (
    "",
    " ",
    "??",
    "a b",
    "é",
    "x" * (MAX_CODE_LEN + 1),
    "\n",
    "qqq.qqq.qqq.999999",
)

_CODE_RE = re.compile(rf"^[A-Za-z0-9._-]{{1,{MAX_CODE_LEN}}}$")


@dataclass
class Trace:
    """A recorded playout.

    Attributes:
        states: ``states[0]`` is the set-up state, ``states[i + 1]`` the state after
            ``actions[i]``.
        actions: one ``{seat: action}`` mapping per applied step.
        events: the events of each step (same indexing as ``actions``).
        codes: every action code seen as legal during the playout (for "not legal now" tests).
    """

    game: Game
    players: int
    seed: int
    options: dict[str, Any]
    states: list[Any] = field(default_factory=list)
    actions: list[dict[int, Any]] = field(default_factory=list)
    events: list[tuple] = field(default_factory=list)
    codes: set[str] = field(default_factory=set)

    @property
    def final(self) -> Any:
        """The last state of the playout."""
        return self.states[-1]


def _dump(game: Game, state: Any) -> str:
    """Canonical JSON text of a state (for equality/unchanged checks)."""
    return json.dumps(game.dump_state(state), sort_keys=True)


def random_playout(
    game: Game,
    players: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    max_steps: int = DEFAULT_MAX_STEPS,
    policy: str = "random",
) -> Trace:
    """Play one game to its end and record it.

    ``policy`` is ``"random"`` (every seat of ``to_act`` chooses uniformly among its legal
    actions with ``random.Random(f"playout:{seed}")``) or ``"ai"`` (every seat plays
    ``game.ai_action``). Checks on the way: ``to_act`` empty iff ``outcome`` is set, seats not
    to act have no legal action, acting seats have at least one, ``version`` +1 per step, the
    game ends within ``max_steps``. Raises ``AssertionError``.
    """
    opts = dict(options or {})
    rng = random.Random(f"playout:{seed}")
    state = game.setup(seed, players, opts)
    trace = Trace(game, players, seed, opts, states=[state])
    assert state.players == players, "state.players must be the seat count"
    for _ in range(max_steps):
        acting = game.to_act(state)
        out = game.outcome(state)
        assert isinstance(acting, frozenset), "to_act must return a frozenset"
        assert (not acting) == (out is not None), (
            f"to_act={sorted(acting)} but outcome={out} (v{state.version})"
        )
        for seat in range(players):
            legal = game.legal_actions(state, seat)
            assert isinstance(legal, tuple), "legal_actions must return a tuple"
            if seat in acting:
                assert legal, f"seat {seat} must act but has no legal action (v{state.version})"
                assert len(set(map(game.encode, legal))) == len(legal), "duplicate legal actions"
            else:
                assert not legal, f"seat {seat} is not to act but has legal actions"
        if not acting:
            return trace
        actions: dict[int, Any] = {}
        for seat in sorted(acting):
            legal = game.legal_actions(state, seat)
            trace.codes.update(game.encode(a) for a in legal)
            actions[seat] = rng.choice(legal) if policy == "random" else game.ai_action(state, seat)
        step = game.apply(state, actions)
        new = step.state
        assert new.version == state.version + 1, (
            f"version must grow by 1 per apply: {state.version} -> {new.version}"
        )
        assert new.seed == state.seed and new.players == state.players, "seed/players changed"
        trace.actions.append(actions)
        trace.events.append(tuple(step.events))
        trace.states.append(new)
        state = new
    raise AssertionError(
        f"{game.key}: {policy} playout with {players} players, seed {seed} did not end "
        f"within {max_steps} steps"
    )


def checked_indices(trace: Trace, max_checks: int = 60) -> list[int]:
    """Indices of ``trace.states`` to run the per-step checks on (evenly spread, first and last)."""
    n = len(trace.states)
    if n <= max_checks:
        return list(range(n))
    stride = n / (max_checks - 1)
    picked = {min(n - 1, round(i * stride)) for i in range(max_checks - 1)}
    picked.update({0, n - 1})
    return sorted(picked)


def check_outcome(game: Game, state: Any, players: int) -> Outcome:
    """The final state's :class:`Outcome` is well formed; returns it."""
    out = game.outcome(state)
    assert out is not None, "a finished game must have an outcome"
    assert isinstance(out, Outcome)
    assert len(out.ranks) == players and len(out.scores) == players, "one rank and score per seat"
    assert all(isinstance(r, int) for r in out.ranks) and all(isinstance(s, int) for s in out.scores)
    for rank in out.ranks:
        better = sum(1 for r in out.ranks if r < rank)
        assert rank == 1 + better, f"not a competition ranking: {out.ranks}"
    assert min(out.ranks) == 1
    return out


def check_trace(trace: Trace) -> None:
    """Whole-trace checks: the final state is over and its outcome is well formed."""
    game = trace.game
    final = trace.final
    assert not game.to_act(final)
    check_outcome(game, final, trace.players)
    # Nothing can be applied after the end.
    try:
        game.apply(final, {})
    except IllegalAction:
        pass
    else:
        raise AssertionError("apply on a finished game must raise IllegalAction")
    if trace.actions:
        last = trace.actions[-1]
        before = _dump(game, final)
        try:
            game.apply(final, last)
        except IllegalAction:
            pass
        else:
            raise AssertionError("apply on a finished game must raise IllegalAction")
        assert _dump(game, final) == before


def check_replay(trace: Trace) -> None:
    """Same seed + same actions -> the same states and events, step by step."""
    game = trace.game
    state = game.setup(trace.seed, trace.players, dict(trace.options))
    assert _dump(game, state) == _dump(game, trace.states[0]), "setup is not deterministic"
    for i, actions in enumerate(trace.actions):
        step = game.apply(state, actions)
        state = step.state
        assert state == trace.states[i + 1], f"replay diverged at step {i}"
        assert tuple(step.events) == trace.events[i], f"replay events diverged at step {i}"


def check_json_roundtrip(trace: Trace, indices: Iterable[int]) -> None:
    """``load_state(json.loads(json.dumps(dump_state(s)))) == s`` at the given steps."""
    game = trace.game
    for i in indices:
        state = trace.states[i]
        data = game.dump_state(state)
        text = json.dumps(data)
        back = game.load_state(json.loads(text))
        assert back == state, f"JSON round trip changed the state at step {i}"
        assert json.dumps(game.dump_state(back), sort_keys=True) == json.dumps(data, sort_keys=True)


def check_codec(trace: Trace, indices: Iterable[int]) -> None:
    """Every legal action encodes to a custom_id-safe code that decodes back to it."""
    game = trace.game
    for i in indices:
        state = trace.states[i]
        for seat in game.to_act(state):
            for action in game.legal_actions(state, seat):
                code = game.encode(action)
                assert isinstance(code, str) and _CODE_RE.match(code), f"bad code {code!r}"
                assert game.decode(code) == action, f"decode(encode({action!r})) differs"
    for code in MALFORMED_CODES:
        try:
            game.decode(code)
        except IllegalAction:
            pass
        else:
            raise AssertionError(f"decode({code!r}) must raise IllegalAction")


def _must_refuse(game: Game, state: Any, actions: Mapping[int, Any], what: str) -> None:
    before = _dump(game, state)
    try:
        game.apply(state, actions)
    except IllegalAction:
        pass
    else:
        raise AssertionError(f"{what}: apply({dict(actions)!r}) must raise IllegalAction")
    assert _dump(game, state) == before, f"{what}: a refused apply changed the state"


def check_illegal(trace: Trace, indices: Iterable[int]) -> None:
    """Illegal submissions are refused with :class:`IllegalAction` and change nothing."""
    game = trace.game
    players = trace.players
    for i in indices:
        state = trace.states[i]
        acting = sorted(game.to_act(state))
        if not acting:
            continue
        good = {seat: game.legal_actions(state, seat)[0] for seat in acting}
        any_action = good[acting[0]]
        _must_refuse(game, state, {}, "no action")
        if len(acting) > 1:
            partial = dict(good)
            partial.pop(acting[-1])
            _must_refuse(game, state, partial, "a missing seat")
        idle = [s for s in range(players) if s not in acting]
        if idle:
            _must_refuse(game, state, {idle[0]: any_action}, "wrong seat")
            _must_refuse(game, state, {**good, idle[0]: any_action}, "an extra seat")
        _must_refuse(game, state, {**good, players: any_action}, "an out-of-range seat")
        _must_refuse(game, state, {**good, -1: any_action}, "a negative seat")
        # Actions seen as legal elsewhere in the game but not legal now.
        for seat in acting:
            legal = game.legal_actions(state, seat)
            wrong = [a for a in (game.decode(c) for c in sorted(trace.codes)) if a not in legal][:3]
            for action in wrong:
                _must_refuse(game, state, {**good, seat: action}, f"not legal now (seat {seat})")


def _walk(value: Any, path: str = "view"):
    """Yield ``(path, key_or_None, leaf)`` over a JSON-like value."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield path, k, None
            yield from _walk(v, f"{path}.{k}")
    elif isinstance(value, (list, tuple)):
        for n, v in enumerate(value):
            yield from _walk(v, f"{path}[{n}]")
    else:
        yield path, None, value


def _check_one_view(game: Game, state: Any, seat: int | None, seed: int) -> dict:
    view = game.view_json(state, seat)
    assert isinstance(view, dict), "view_json must give a JSON object (a dict)"
    text = json.dumps(view)  # JSON-serialisable
    assert json.loads(text) is not None
    for path, key, leaf in _walk(view):
        assert key != "seed", f"the view holds a 'seed' key at {path}"
        if abs(seed) >= 10**6 and leaf is not None:
            assert leaf != seed and not (isinstance(leaf, str) and str(seed) in leaf), (
                f"the view holds the seed value at {path}"
            )
    return view


def check_views(trace: Trace, indices: Iterable[int], salts: tuple[int, ...] = (1, 2)) -> None:
    """Views are JSON-safe, seed-free, and blind to what the viewer cannot see."""
    game = trace.game
    seats: list[int | None] = [None, *range(trace.players)]
    for i in indices:
        state = trace.states[i]
        acting = game.to_act(state)
        for seat in seats:
            view = _check_one_view(game, state, seat, trace.seed)
            for salt in salts:
                variant = game.hidden_variant(state, seat, salt)
                assert type(variant) is type(state), "hidden_variant must return a state"
                assert game.view_json(variant, seat) == view, (
                    f"step {i}: view({'public' if seat is None else f'seat {seat}'}) differs in "
                    f"hidden_variant(salt={salt}): the view leaks hidden information"
                )
                if seat is not None and seat in acting:
                    assert game.legal_actions(variant, seat) == game.legal_actions(state, seat), (
                        f"step {i}: seat {seat}'s legal actions depend on what it cannot see"
                    )


@dataclass(frozen=True)
class HiddenHooks:
    """Per-game facts for :func:`check_determinization` (keyed by ``Game.key`` in
    :data:`HIDDEN_HOOKS`).

    ``pieces(state)``: the multiset of every card/tile/die of the game, wherever it lies;
    ``private(state, seat)``: what ``seat`` knows privately (must be equal in a variant);
    ``unseen(state, seat)``: how many pieces ``seat`` cannot see (variants must vary when it is
    at least :attr:`vary_from`)."""

    pieces: Callable[[Any], Counter]
    private: Callable[[Any, int | None], Any]
    unseen: Callable[[Any, int | None], int]
    vary_from: int = 4


def _sb_places(state: Any, seat: int | None) -> list[tuple[int, int, int]]:
    from engine.shop_battle.state import knowledge

    know = knowledge(state, seat)
    out = [(s, i, c) for s, p in enumerate(state.piles) for i, c in enumerate(p) if c in know]
    return out + [(-1, i, c) for i, c in enumerate(state.pot) if c in know]


def _sb_unseen(state: Any, seat: int | None) -> int:
    from engine.shop_battle.state import knowledge

    know = knowledge(state, seat)
    placed = sum(1 for p in (*state.piles, state.pot) for c in p if c not in know)
    return placed + len(state.aside) if placed else 0  # the set-aside cards alone are a set: one variant


def _moon_pieces(state: Any) -> Counter:
    tiles = [t for h in state.hands for t in h] + list(state.played)
    if state.phase == "bid" and state.widow is not None:
        tiles.append(state.widow)
    if state.discard is not None:
        tiles.append(state.discard)
    return Counter(tiles)


def _moon_private(state: Any, seat: int | None) -> Any:
    if seat is None:
        return None
    bidder = seat == state.bidder and state.phase != "bid"
    return state.hands[seat], (state.widow, state.discard) if bidder else None


def _moon_unseen(state: Any, seat: int | None) -> int:
    from engine.three_player_moon.hidden import voids

    if any(voids(state)):  # shown voids may force the deal (tests/test_hidden.py covers them)
        return 0
    n = sum(len(h) for s, h in enumerate(state.hands) if s != seat)
    return n + (state.phase == "bid") + (state.discard is not None and seat != state.bidder)


def _ms_pieces(state: Any) -> Counter:
    cards = list(state.deck) + list(state.discard)
    for s in state.seats:
        cards += list(s.clients) + list(s.validated) + [c for q in s.queue for c in q.cards]
    return Counter(cards)


def _ms_unseen(state: Any, seat: int | None) -> int:
    others = sum(len(q.cards) for i, s in enumerate(state.seats) if i != seat for q in s.queue)
    return len(state.deck) + len(state.discard) + others


#: The determinization facts of the registered games (a game without an entry gets only the
#: generic checks: same view, legal state, playout ends).
HIDDEN_HOOKS: dict[str, HiddenHooks] = {
    "shop-battle": HiddenHooks(
        pieces=lambda st: Counter([c for p in st.piles for c in p] + list(st.pot) + list(st.aside)),
        private=lambda st, seat: (_sb_places(st, seat), st.known[seat] if seat is not None else ()),
        unseen=_sb_unseen,
    ),
    "three-player-moon": HiddenHooks(pieces=_moon_pieces, private=_moon_private, unseen=_moon_unseen),
    "gang-of-dice": HiddenHooks(
        pieces=lambda st: Counter(st.deck) + Counter({"dice": sum(st.stocks) + st.table + st.removed - st.bonus_total}),
        private=lambda st, seat: (st.stocks, st.deck[: st.round], st.faces, st.committed),
        unseen=lambda st, seat: len(st.deck) - st.round,
    ),
    "moonshine": HiddenHooks(
        pieces=_ms_pieces,
        private=lambda st, seat: st.seats[seat].queue if seat is not None else None,
        unseen=_ms_unseen,
    ),
}


def check_determinization(
    trace: Trace,
    indices: Iterable[int],
    salts: tuple[int, ...] = (1, 2, 3, 4),
    *,
    playouts: int = 1,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> None:
    """``hidden_variant(state, seat, salt)`` for every seat (and the public) at the given steps:
    the same view for that seat; a legal state (JSON round trip, every acting seat has legal
    actions; from ``playouts`` of the variants a random playout ends); reproducible from the
    salt; with the game's :data:`HIDDEN_HOOKS`, the same multiset of pieces, the same private
    information of the seat, and at least two different variants among ``salts`` when the seat
    has enough unseen pieces."""
    game = trace.game
    hooks = HIDDEN_HOOKS.get(game.key)
    rng = random.Random(f"determinize:{trace.seed}")
    played = 0
    for i in indices:
        state = trace.states[i]
        acting = game.to_act(state)
        for seat in [None, *range(trace.players)]:
            view = game.view_json(state, seat)
            dumps: set[str] = set()
            for salt in salts:
                var = game.hidden_variant(state, seat, salt)
                where = f"step {i}, seat {seat}, salt {salt}"
                assert game.view_json(var, seat) == view, f"{where}: the variant shows the seat another view"
                assert _dump(game, game.hidden_variant(state, seat, salt)) == _dump(game, var), (
                    f"{where}: hidden_variant is not reproducible from its salt"
                )
                assert game.load_state(json.loads(json.dumps(game.dump_state(var)))) == var, (
                    f"{where}: the variant does not round-trip through JSON"
                )
                assert game.to_act(var) == acting, f"{where}: the variant changed who acts"
                for s in acting:
                    assert game.legal_actions(var, s), f"{where}: seat {s} must act but has no legal action"
                if hooks is not None:
                    assert hooks.pieces(var) == hooks.pieces(state), f"{where}: pieces lost or added"
                    assert hooks.private(var, seat) == hooks.private(state, seat), (
                        f"{where}: the seat's own private information changed"
                    )
                data = game.dump_state(var)
                data.pop("seed", None)
                dumps.add(json.dumps(data, sort_keys=True))
            if hooks is not None and hooks.unseen(state, seat) >= hooks.vary_from:
                assert len(dumps) > 1, f"step {i}, seat {seat}: every salt gave the same variant"
            if played < playouts and acting and seat is not None:
                played += 1
                var = game.hidden_variant(state, seat, salts[0])
                for _ in range(max_steps):
                    now = game.to_act(var)
                    if not now:
                        break
                    var = game.apply(var, {s: rng.choice(game.legal_actions(var, s)) for s in sorted(now)}).state
                else:
                    raise AssertionError(f"step {i}: a random playout from a variant did not end")
                check_outcome(game, var, trace.players)


def check_ai(trace: Trace, indices: Iterable[int]) -> None:
    """``ai_action`` and ``timeout_action`` are legal and deterministic at the given steps."""
    game = trace.game
    for i in indices:
        state = trace.states[i]
        for seat in game.to_act(state):
            legal = game.legal_actions(state, seat)
            ai = game.ai_action(state, seat)
            assert ai in legal, f"step {i}: ai_action {ai!r} of seat {seat} is not legal"
            assert game.ai_action(state, seat) == ai, "ai_action must be deterministic"
            assert game.timeout_action(state, seat) in legal, "timeout_action must be legal"


def check_levels(trace: Trace, indices: Iterable[int], iterations: int = 3) -> None:
    """Every level of :data:`engine.policies.LEVELS` (and ``random``) picks a legal action of
    every acting seat at the given steps, the same one twice for the same salt and budget."""
    from engine.policies import LEVELS, choose

    game = trace.game
    for i in indices:
        state = trace.states[i]
        for seat in sorted(game.to_act(state)):
            legal = game.legal_actions(state, seat)
            for level in (*LEVELS, "random"):
                act = choose(game, state, seat, level, salt=i, iterations=iterations)
                assert act in legal, f"step {i}: level {level} chose {act!r}, not legal for seat {seat}"
                again = choose(game, state, seat, level, salt=i, iterations=iterations)
                assert again == act, f"step {i}: level {level} is not deterministic"


def check_ai_game(
    game: Game,
    players: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    max_steps: int = DEFAULT_MAX_STEPS,
) -> Trace:
    """An AI-only game ends within ``max_steps`` with a well-formed outcome; returns its trace."""
    trace = random_playout(game, players, seed, options, max_steps=max_steps, policy="ai")
    check_trace(trace)
    return trace


def check_game(
    game: Game,
    players: int,
    seed: int,
    options: Mapping[str, Any] | None = None,
    *,
    max_steps: int = DEFAULT_MAX_STEPS,
    max_checks: int = 60,
    ai_game: bool = True,
) -> Trace:
    """Run every check above on one random playout (plus one AI-only game); returns the trace."""
    trace = random_playout(game, players, seed, options, max_steps=max_steps)
    check_trace(trace)
    check_replay(trace)
    idx = checked_indices(trace, max_checks)
    check_json_roundtrip(trace, idx)
    check_codec(trace, idx)
    check_illegal(trace, idx)
    check_views(trace, idx[:: max(1, len(idx) // 20)] + [idx[-1]])
    check_determinization(trace, idx[:: max(1, len(idx) // 4)])
    check_ai(trace, idx)
    if ai_game:
        check_ai_game(game, players, seed, options, max_steps=max_steps)
    return trace
