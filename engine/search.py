"""One determinized Monte-Carlo tree search for every game (the "strong" AI level).

The search only uses the engine contract (:class:`engine.core.Game`): ``to_act``,
``legal_actions``, ``apply``, ``outcome``, ``ai_action`` (the rollout policy) and
``hidden_variant`` (the determinization: a full state consistent with what the searching seat has
seen). It is clock-free: it runs a number of ``iterations`` or until ``should_stop()`` is true
(the caller owns the clock), and it is deterministic for a fixed ``salt`` and budget.

One iteration:

1. *determinize*: ``hidden_variant(root, seat, salt')`` with a fresh ``salt'`` per iteration, so
   the other hands, the deck order and every future die roll are re-sampled (the seat never sees
   the real hidden cards);
2. *select* down one shared tree (open loop: a node is the sequence of moves that led to it, so
   chance and the hidden cards of each determinization meet in the same nodes). Each seat to act
   picks by UCB1 among the moves legal in this determinization, counting a move's *availability*
   (information-set MCTS, Cowling et al. 2012); a simultaneous step (several seats in
   ``to_act``, Moonshine's action phase) is decoupled: each seat picks from its own statistics at
   that node and the child is the joint move. Progressive widening: a node offers only its first
   ``k * visits ** 0.5`` moves, in the order of :attr:`Hooks.moves` (the baseline's move first);
3. *expand* one node, then *roll out* with the baseline AI (``epsilon`` of random moves) until the
   game ends or :attr:`Hooks.cutoff` stops it, where :attr:`Hooks.evaluate` scores the position;
4. *back up* one reward per seat: its share of first place (ties split) at the end of the game,
   else the evaluation (a win-chance estimate in ``[0, 1]``).

The move played is the root move visited most (ties: better mean, then the earlier move).

Per-game hooks (:class:`Hooks`, in ``engine/<game>/search.py``): macro-moves where the action
grain is too fine (a whole Gang of Dice reroll as one move, mapped back to its first
micro-action), rollout cut-offs and evaluations (score based) so that iterations are cheap.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.core import Game, Outcome

__all__ = ["Hooks", "SearchResult", "apply_moves", "default_moves", "outcome_rewards", "search", "softmax_rewards"]

Move = Hashable
AnyGame = Game[Any, Any, Any]


def default_moves(game: AnyGame, state: Any, seat: int) -> Sequence[Move]:
    """The legal actions of ``seat``, the baseline AI's choice first (progressive widening then
    tries it first); the others keep the engine's order."""
    legal = game.legal_actions(state, seat)
    if len(legal) <= 1:
        return legal
    best = game.ai_action(state, seat)
    return (best, *(a for a in legal if a != best))


def apply_moves(game: AnyGame, state: Any, moves: Mapping[int, Move]) -> Any:
    """Default :attr:`Hooks.advance`: moves are actions, applied as one step."""
    return game.apply(state, moves).state


def outcome_rewards(outcome: Outcome) -> tuple[float, ...]:
    """Reward per seat of a finished game: ``1/k`` to each of the ``k`` seats ranked first, 0 to
    the others (the arena's win share, ties split).

    >>> outcome_rewards(Outcome(ranks=(1, 2, 1), scores=(3, 1, 3)))
    (0.5, 0.0, 0.5)
    """
    winners = sum(1 for r in outcome.ranks if r == 1)
    return tuple((1.0 / winners if r == 1 else 0.0) for r in outcome.ranks)


def softmax_rewards(scores: Sequence[float], temperature: float) -> tuple[float, ...]:
    """A win-chance estimate per seat from scores (higher is better): the softmax of
    ``scores / temperature`` (sums to 1; equal scores give equal shares).

    >>> softmax_rewards([2.0, 2.0], 1.0)
    (0.5, 0.5)
    """
    top = max(scores)
    w = [math.exp((s - top) / temperature) for s in scores]
    total = sum(w)
    return tuple(x / total for x in w)


def _random_policy(game: AnyGame, state: Any, seat: int, rng: random.Random) -> Any:
    return rng.choice(game.legal_actions(state, seat))


@dataclass(frozen=True)
class Hooks:
    """Per-game tuning of :func:`search` (every field has a generic default).

    Attributes:
        moves: ``(game, state, seat) -> moves`` a seat may choose in the tree (hashable; macro
            moves allowed), best guess first; default :func:`default_moves`.
        advance: ``(game, state, {seat: move}) -> state`` applies one joint move (expanding
            macro moves into engine actions); default :func:`apply_moves`.
        first_action: ``(game, state, seat, move) -> action`` the engine action that starts
            ``move`` in the real state (the identity for plain actions).
        rollout: ``(game, state, seat, rng) -> action`` the playout policy; default the
            baseline ``ai_action`` (or a random legal action with chance ``epsilon``).
        cutoff: ``(root, state) -> bool`` stop a playout here and :attr:`evaluate` it.
        evaluate: ``(game, state) -> rewards per seat`` in ``[0, 1]`` for a cut playout.
        determinize: ``(game, state, seat, salt) -> state``; default ``game.hidden_variant``.
        epsilon: chance of a random move in playouts.
        exploration: the UCB1 constant (rewards are in ``[0, 1]``).
        widening: progressive widening factor ``k`` (a node offers ``max(2, k * sqrt(n))``
            moves; ``0`` = every move at once).
        max_depth: deepest tree level (1 = flat UCB at the root).
        prune: ``(game, state, seat, moves) -> moves`` drops the root moves that lose in every
            world the seat cannot tell from the true one while another move can still win (a
            cheap game-specific rule, run before any iteration); it keeps at least one move.
        flat: flat Monte-Carlo with common random numbers instead of the tree: each
            determinization plays *every* root move once (the other seats of a simultaneous
            root step play the rollout policy), so moves are compared on the same hidden cards
            and the same future dice (paired samples: much less noise where chance dominates);
            the move with the best mean reward is played.
    """

    moves: Callable[[AnyGame, Any, int], Sequence[Move]] = default_moves
    advance: Callable[[AnyGame, Any, Mapping[int, Move]], Any] = apply_moves
    first_action: Callable[[AnyGame, Any, int, Move], Any] = lambda game, state, seat, move: move
    rollout: Callable[[AnyGame, Any, int, random.Random], Any] | None = None
    cutoff: Callable[[Any, Any], bool] | None = None
    evaluate: Callable[[AnyGame, Any], Sequence[float]] | None = None
    determinize: Callable[[AnyGame, Any, int, int], Any] | None = None
    epsilon: float = 0.05
    exploration: float = 0.7
    widening: float = 0.0
    max_depth: int = 40
    prune: Callable[[AnyGame, Any, int, Sequence[Move]], Sequence[Move]] | None = None
    flat: bool = False


class _Node:
    """A tree node: per seat, per move ``[visits, reward sum, availability]``; children by the
    joint move (a tuple of ``(seat, move)`` in seat order)."""

    __slots__ = ("stats", "children", "visits")

    def __init__(self) -> None:
        self.stats: dict[int, dict[Move, list[float]]] = {}
        self.children: dict[tuple[tuple[int, Move], ...], _Node] = {}
        self.visits = 0


@dataclass
class SearchResult:
    """What :func:`search` found: the ``move`` to play, ``iterations`` run, and per root move
    ``(visits, mean reward)`` in ``stats``."""

    move: Move
    iterations: int
    stats: dict[Move, tuple[int, float]] = field(default_factory=dict)


def _select(node: _Node, seat: int, moves: Sequence[Move], hooks: Hooks) -> Move:
    table = node.stats.setdefault(seat, {})
    if hooks.widening > 0:
        k = max(2, int(hooks.widening * math.sqrt(node.visits + 1)))
        moves = moves[:k]
    best: Move = moves[0]
    best_ucb = -1.0
    c = hooks.exploration
    for m in moves:
        st = table.get(m)
        if st is None:
            st = table[m] = [0.0, 0.0, 0.0]
        st[2] += 1
        if st[0] == 0:
            if best_ucb < math.inf:
                best, best_ucb = m, math.inf
            continue
        ucb = st[1] / st[0] + c * math.sqrt(math.log(st[2]) / st[0])
        if ucb > best_ucb:
            best, best_ucb = m, ucb
    return best


def _rewards(game: AnyGame, state: Any, root: Any, hooks: Hooks, rng: random.Random) -> Sequence[float]:
    """Play out ``state`` with the rollout policy; rewards per seat."""
    cutoff = hooks.cutoff
    while True:
        to_act = game.to_act(state)
        if not to_act:
            outcome = game.outcome(state)
            assert outcome is not None
            return outcome_rewards(outcome)
        if cutoff is not None and hooks.evaluate is not None and cutoff(root, state):
            return hooks.evaluate(game, state)
        acts = {s: _policy_action(game, state, s, hooks, rng) for s in sorted(to_act)}
        state = game.apply(state, acts).state


def _policy_action(game: AnyGame, state: Any, seat: int, hooks: Hooks, rng: random.Random) -> Any:
    if hooks.rollout is not None:
        return hooks.rollout(game, state, seat, rng)
    if hooks.epsilon and rng.random() < hooks.epsilon:
        return _random_policy(game, state, seat, rng)
    return game.ai_action(state, seat)


def _flat(game: AnyGame, state: Any, seat: int, hooks: Hooks, determinize: Callable[..., Any],
          rng: random.Random, mine: list[Move], budget: int | None,
          should_stop: Callable[[], bool] | None) -> SearchResult:
    """Flat Monte-Carlo with common random numbers (:attr:`Hooks.flat`); ``budget`` counts
    playouts."""
    sums = [0.0] * len(mine)
    visits = [0] * len(mine)
    done = 0
    stopped = False  # once should_stop says stop, the search stops (it is asked once per playout)
    while not stopped and (budget is None or done < budget):
        if should_stop is not None and should_stop():
            break
        det = determinize(game, state, seat, rng.getrandbits(48))
        others = {s: _policy_action(game, det, s, hooks, rng) for s in sorted(game.to_act(det)) if s != seat}
        roll_seed = rng.getrandbits(32)
        for i, m in enumerate(mine):
            if budget is not None and done >= budget:
                break
            if should_stop is not None and done and should_stop():
                stopped = True
                break
            after = hooks.advance(game, det, {**others, seat: m})
            sums[i] += _rewards(game, after, state, hooks, random.Random(roll_seed))[seat]
            visits[i] += 1
            done += 1
    stats = {m: (visits[i], sums[i] / visits[i] if visits[i] else 0.0) for i, m in enumerate(mine)}
    seen = [i for i in range(len(mine)) if visits[i]] or [0]
    best = max(seen, key=lambda i: (stats[mine[i]][1], -i))
    return SearchResult(mine[best], done, stats)


def search(game: AnyGame, state: Any, seat: int, *, hooks: Hooks | None = None, salt: int = 0,
           iterations: int | None = None, should_stop: Callable[[], bool] | None = None,
           root_moves: Sequence[Move] | None = None) -> SearchResult:
    """Search ``state`` for ``seat`` (who must be in ``game.to_act(state)``) and return the move
    to play (a move of :attr:`Hooks.moves`; map it to an action with :attr:`Hooks.first_action`).

    Budget: ``iterations`` (at most that many) and/or ``should_stop`` (checked before each
    iteration; at least one iteration runs unless it is already true). With neither, 100
    iterations. ``root_moves`` restricts the seat's moves at the root (default
    ``hooks.moves(game, state, seat)``); :attr:`Hooks.prune` then drops the losing ones. Deterministic for the same state, seat, salt and
    iterations when ``should_stop`` is ``None``. Raises ``ValueError`` when ``seat`` is not to act.
    """
    hooks = hooks or Hooks()
    if seat not in game.to_act(state):
        raise ValueError(f"seat {seat} is not to act")
    mine = list(root_moves) if root_moves is not None else list(hooks.moves(game, state, seat))
    if not mine:
        raise ValueError("no move to search")
    if hooks.prune is not None:
        mine = list(hooks.prune(game, state, seat, mine)) or mine
    if len(mine) == 1:
        return SearchResult(mine[0], 0, {mine[0]: (0, 0.0)})
    budget = iterations if iterations is not None else (None if should_stop is not None else 100)
    determinize = hooks.determinize or (lambda g, s, seat_, salt_: g.hidden_variant(s, seat_, salt_))
    rng = random.Random(f"search:{salt}")
    if hooks.flat:
        return _flat(game, state, seat, hooks, determinize, rng, mine, budget, should_stop)
    root = _Node()
    done = 0
    while budget is None or done < budget:
        if should_stop is not None and should_stop():
            break
        it_salt = rng.getrandbits(48)
        det = determinize(game, state, seat, it_salt)
        node = root
        path: list[tuple[_Node, tuple[tuple[int, Move], ...]]] = []
        depth = 0
        while depth < hooks.max_depth:
            to_act = game.to_act(det)
            if not to_act:
                break
            joint: list[tuple[int, Move]] = []
            for s in sorted(to_act):
                moves = mine if (depth == 0 and s == seat) else hooks.moves(game, det, s)
                joint.append((s, moves[0] if len(moves) == 1 else _select(node, s, moves, hooks)))
            key = tuple(joint)
            node.visits += 1
            path.append((node, key))
            det = hooks.advance(game, det, dict(joint))
            depth += 1
            child = node.children.get(key)
            if child is None:
                node.children[key] = _Node()
                break
            node = child
        rewards = _rewards(game, det, state, hooks, rng)
        for n, key in path:
            for s, m in key:
                st = n.stats.get(s, {}).get(m)
                if st is not None:
                    st[0] += 1
                    st[1] += rewards[s]
        done += 1
    table = root.stats.get(seat, {})
    stats: dict[Move, tuple[int, float]] = {}
    for m in mine:
        row = table.get(m, [0.0, 0.0, 0.0])
        stats[m] = (int(row[0]), row[1] / row[0] if row[0] else 0.0)
    best = max(range(len(mine)), key=lambda i: (stats[mine[i]][0], stats[mine[i]][1], -i))
    return SearchResult(mine[best], done, stats)
