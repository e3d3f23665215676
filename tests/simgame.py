"""A tiny test-only game with simultaneous steps, to prove TableService buffering.

"Pick": for ``rounds`` rounds every seat secretly picks 1, 2 or 3 at the same time; each seat
scores its pick unless another seat picked the same number. Then one sequential step: seat 0
says "ok" (to mix simultaneous and sequential steps). Most points wins.
"""

from __future__ import annotations

from typing import Any, ClassVar, Mapping

from engine.core import Event, Game, GameOptions, IllegalAction, Outcome, PydanticState as State, Step, ranks_from_scores


class PickOptions(GameOptions):
    rounds: int = 2


class PickState(State):
    round: int = 1
    rounds: int = 2
    scores: tuple[int, ...] = ()
    picks: tuple[int, ...] = ()  # last round's picks (public after resolution)
    confirm: bool = False


class PickGame(Game[PickState, str, dict]):
    key: ClassVar[str] = "test-pick"
    min_players: ClassVar[int] = 2
    max_players: ClassVar[int] = 4
    state_model: ClassVar[type[State]] = PickState
    options_model: ClassVar[type[GameOptions]] = PickOptions

    def setup(self, seed: int, players: int, options: Any = None) -> PickState:
        opts = self.parse_options(options)
        return PickState(seed=seed, players=players, rounds=opts.rounds, scores=(0,) * players)

    def to_act(self, state: PickState) -> frozenset[int]:
        if state.round > state.rounds:
            return frozenset()
        if state.confirm:
            return frozenset({0})
        return frozenset(range(state.players))

    def legal_actions(self, state: PickState, seat: int) -> tuple[str, ...]:
        if seat not in self.to_act(state):
            return ()
        return ("ok",) if state.confirm else ("p1", "p2", "p3")

    def apply(self, state: PickState, actions: Mapping[int, str]) -> Step:
        self.check_actions(state, actions)
        if state.confirm:
            new = state.model_copy(update={"confirm": False, "round": state.round + 1, "version": state.version + 1})
            return Step(new, (Event("test.ok", {"seat": 0}),))
        picks = tuple(int(actions[s][1]) for s in range(state.players))
        scores = tuple(sc + (p if picks.count(p) == 1 else 0) for sc, p in zip(state.scores, picks))
        new = state.model_copy(update={"scores": scores, "picks": picks, "confirm": True, "version": state.version + 1})
        return Step(new, (Event("test.picks", {"picks": list(picks)}),))

    def view(self, state: PickState, seat: int | None) -> dict[str, Any]:
        return {"round": state.round, "scores": list(state.scores), "picks": list(state.picks), "confirm": state.confirm}

    def outcome(self, state: PickState) -> Outcome | None:
        if state.round <= state.rounds:
            return None
        return Outcome(ranks_from_scores([(s,) for s in state.scores]), state.scores)

    def ai_action(self, state: PickState, seat: int) -> str:
        return "ok" if state.confirm else ("p1", "p2", "p3")[(seat + state.round) % 3]

    def encode(self, action: str) -> str:
        return action

    def decode(self, code: str) -> str:
        if code not in ("ok", "p1", "p2", "p3"):
            raise IllegalAction("malformed action code")
        return code
