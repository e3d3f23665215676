"""Shared helpers for end-to-end tests: the :func:`e2e` fixture (a Speakeasy bot on the test's
temporary database inside the offline Discord harness, ``tests/harness``), and a member who
plays through real clicks.

Chance is scripted, never found by trying seeds: ``await e2e(deal={key: fn})`` makes the tables
of game ``key`` start from ``fn(seed, players, options)`` (a state built with the engine's own
helpers: ``ShopBattle().start_from``, ``gang_of_dice.scripted_setup``, …) and ``await
e2e(dice={"gang-of-dice": [faces, …]})`` forces the faces of the next rolls (through
``gang_of_dice.apply_with_faces``). Both last for the test only."""

from __future__ import annotations

import contextlib
import random
import re
from collections.abc import AsyncIterator, Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import discord
import pytest
import pytest_asyncio

from bot.client import SpeakeasyBot
from bot.games import GAMES
from bot.settings import Settings
from engine.core import Step
from engine.gang_of_dice import Commit, Reroll, apply_with_faces
from tests.harness import DiscordWorld

#: ``deal`` hook: ``(seed, players, options) -> state``, what the service's ``game.setup`` returns.
Deal = Callable[[int, int, Mapping[str, Any]], Any]


class SimClock:
    """The harness's simulated clock (``discord.utils.utcnow`` follows ``world.advance``)."""

    def now(self) -> float:
        return discord.utils.utcnow().timestamp()


def bot_factory(db_path: Path, seeds: list[int] | None = None, *, sync_commands: bool = True,
                **overrides: Any) -> Callable[[], SpeakeasyBot]:
    """A factory of SpeakeasyBot instances sharing ``db_path`` (a restart = a new instance).
    ``overrides`` are settings (``turn_timeout_seconds=120``, ``enabled_games="moonshine"``).
    Pictures are off unless ``pictures=True`` (the text boards are what most tests read;
    tests/test_e2e_pictures.py tests the pictures); they are drawn in a thread unless
    ``render_workers=N`` (worker processes). AI players move at once (``ai_delay_seconds=0``)
    and board edits have no per-channel budget (``board_edits_per_5s=0``): the actions of a test
    come faster than people's; tests/test_e2e_edit_budget.py sets both."""
    settings = Settings(_env_file=None, discord_token=None, database_path=db_path,  # type: ignore[call-arg]
                        ai_delay_seconds=overrides.pop("ai_delay_seconds", 0),
                        board_edits_per_5s=overrides.pop("board_edits_per_5s", 0),
                        turn_timeout_seconds=overrides.pop("turn_timeout_seconds", 600),
                        leaderboard_min_games=overrides.pop("leaderboard_min_games", 1),
                        pictures=overrides.pop("pictures", False),
                        render_workers=overrides.pop("render_workers", 0), **overrides)
    pool = list(seeds or [1234])

    def seed() -> int:
        return pool.pop(0) if len(pool) > 1 else pool[0]

    return lambda: SpeakeasyBot(settings, clock=SimClock(), seed_source=seed, sync_commands=sync_commands,
                                start_workers=False)


class E2E:
    """The end-to-end fixture's handle: ``world = await e2e(seeds=[7])`` opens a world and
    starts a bot on the test's database; ``await e2e.restart()`` starts a new instance on it
    (optionally with other settings). The world is closed, and the bot's unconsumed errors
    reported, when the test ends.

    Scripted chance (undone when the test ends): ``deal={"shop-battle": fn}`` replaces that
    game's ``setup`` by ``fn(seed, players, options)``; ``dice={"gang-of-dice": [(0, 3, 5), …]}``
    forces the faces of the next commits and rerolls, in order (then the seed rolls again);
    :attr:`dice_left` is what the script has not used yet.

    When the test ends, every request the bot made is checked against Discord's rules and limits
    (:meth:`tests.harness.DiscordWorld.conformance`: V2 layouts only, their limits, no follow-up
    completing a defer, modal labels)."""

    def __init__(self, db_path: Path, stack: contextlib.AsyncExitStack) -> None:
        self.db_path = db_path
        self._stack = stack
        self._seeds: list[int] | None = None
        self.world: DiscordWorld | None = None
        self.dice_left: list[tuple[int, ...]] = []
        #: the conformance check at the end of the test reads ``world.http_log`` from here on
        #: (a test that plays an earlier version's requests, e.g. an embed board, moves it)
        self.conformance_since = 0

    async def __call__(self, *, seeds: list[int] | None = None, guild_locale: str = "en-US", start: bool = True,
                       deal: Mapping[str, Deal] | None = None,
                       dice: Mapping[str, Iterable[Iterable[int]]] | None = None,
                       guild_shard: tuple[int, int] | None = None, require_ack: bool = True,
                       settle_timeout: float = 5.0, **settings: Any) -> DiscordWorld:
        """Open the world (once per test); start the bot unless ``start=False`` (then call
        :meth:`start` after arranging the world). ``deal`` / ``dice``: scripted chance (see the
        class docstring). ``guild_shard`` / ``require_ack`` / ``settle_timeout`` (seconds, a bound on waiting, not a
        timing assertion): see :class:`tests.harness.DiscordWorld`."""
        assert self.world is None, "one world per test"
        self._script(deal or {}, dice or {})
        self._seeds = seeds
        self.world = await self._stack.enter_async_context(DiscordWorld(
            guild_locale=guild_locale, guild_shard=guild_shard, require_ack=require_ack, settle_timeout=settle_timeout))
        self.factory = bot_factory(self.db_path, seeds, **settings)
        if start:
            await self.world.start_bot(self.factory)
        return self.world

    def _script(self, deal: Mapping[str, Deal], dice: Mapping[str, Iterable[Iterable[int]]]) -> None:
        """Patch the games' ``setup`` (deals) and Gang of Dice's ``apply`` (dice) for this test."""
        patch = pytest.MonkeyPatch()
        self._stack.callback(patch.undo)
        for key, fn in deal.items():
            patch.setattr(GAMES[key].game, "setup", lambda seed, players, options=None, fn=fn: fn(seed, players, options or {}))
        for key, rolls in dice.items():
            if key != "gang-of-dice":
                raise ValueError(f"no scripted dice for {key!r}: only gang-of-dice rolls at every commit")
            self.dice_left = [tuple(faces) for faces in rolls]
            game = GAMES[key].game
            apply = game.apply

            def scripted_apply(state: Any, actions: Mapping[int, Any], apply: Callable[..., Step[Any]] = apply) -> Step[Any]:
                (seat, action), = actions.items()
                if self.dice_left and isinstance(action, (Commit, Reroll)) and seat == state.current:
                    return apply_with_faces(state, action, self.dice_left.pop(0))
                return apply(state, actions)

            patch.setattr(game, "apply", scripted_apply)

    async def start(self) -> None:
        """Start the bot (after ``e2e(start=False)``)."""
        assert self.world is not None
        await self.world.start_bot(self.factory)

    async def restart(self, **settings: Any) -> None:
        """A new bot instance on the same database and world; with ``settings``, new settings
        (the seeds are those given to the fixture)."""
        assert self.world is not None
        if settings:
            self.factory = bot_factory(self.db_path, self._seeds, **settings)
        await self.world.restart_bot(self.factory)


@pytest_asyncio.fixture
async def e2e(tmp_path: Path) -> AsyncIterator[E2E]:
    """One world and one bot per end-to-end test (see :class:`E2E`)."""
    async with contextlib.AsyncExitStack() as stack:
        handle = E2E(tmp_path / "db.sqlite", stack)
        yield handle
        if handle.world is not None:  # every request the bot made obeys Discord's rules and limits
            found = handle.world.conformance(since=handle.conformance_since)
            assert not found, "Discord conformance:\n" + "\n".join(found[:20])


def lobby_id(msg) -> int:
    """The table id of a lobby message (from its Join button)."""
    cid = next(c for c in msg.custom_ids if c.startswith("se:l:"))
    return int(cid.split(":")[2])


def board_of(world, table_id: int):
    """The public board message of a table (the first message with a My panel button)."""
    for thread in world.threads:
        for m in world.thread_messages(thread):
            if f"se:b:{table_id}:panel" in m.custom_ids and m.cards:
                return m
    for m in world.channel_messages():
        if f"se:b:{table_id}:panel" in m.custom_ids and m.cards:
            return m
    raise AssertionError("no board message")


async def open_table(world, host, game: str, *, members=(), ai: int = 0, options: dict[str, str] | None = None):
    """``/play`` by ``host``, joins by ``members``, ``ai`` AI players, options, Start. Returns table id."""
    res = await world.slash(host, "play", game=game)
    lobby = res.response
    tid = lobby_id(lobby)
    for m in members:
        await world.click(m, lobby, f"se:l:{tid}:join")
    for _ in range(ai):
        await world.click(host, lobby, f"se:l:{tid}:ai+")
    for name, value in (options or {}).items():
        sel = next(s for s in lobby.selects if any(o.startswith(f"{name}=") for o in s.option_values))
        await world.select(host, lobby, sel.custom_id, [f"{name}={value}"])
    await world.click(host, lobby, f"se:l:{tid}:start")
    return tid


async def take_turn(world, member, table_id: int, rng: random.Random, prefer_ai: bool = True, *,
                    code: str | None = None) -> bool:
    """If ``member`` must act: open their panel with the board's button and act through it,
    choosing the AI's move when it is one click away, else a random enabled control (with
    ``code``: the control of that action code, which must be there). Returns False when the
    member had nothing to do."""
    service = world.bot
    table = await service.hall.table(table_id)
    seat = table.seat_of(member.id)
    if table.row.status != "running" or seat not in table.to_act() or seat in table.pending:
        return False
    board = board_of(world, table_id)
    res = await world.click(member, board, f"se:b:{table_id}:panel")
    panel = res.response
    assert panel.ephemeral and panel.viewer_id == member.id
    return await act_on_panel(world, member, table_id, panel, rng, prefer_ai, code=code)


async def act_on_panel(world, member, table_id: int, panel, rng: random.Random, prefer_ai: bool = True, *,
                       code: str | None = None) -> bool:
    """Click one control of an open panel (see :func:`take_turn`). The panel's controls are
    located from the same spec the bot drew (``bot.compose.panel``)."""
    from bot import compose
    from bot.i18n import Translator
    from bot.ui import Button as SpecButton
    from bot.ui import Select as SpecSelect

    service = world.bot
    table = await service.hall.table(table_id)
    seat = table.seat_of(member.id)
    game = GAMES[table.row.game].game
    want = code if code is not None else game.encode(game.ai_action(table.state, seat)) if prefer_ai else None
    spec = compose.panel(table, seat, Translator("en"))
    ver = table.version
    choices: list[Any] = []
    for r, row in enumerate(spec.rows):
        for c, comp in enumerate(row):
            if isinstance(comp, SpecButton) and not comp.disabled:
                if comp.prompt:
                    cid = f"se:p:{table_id}:{ver}:{r}.{c}"
                    pattern = re.escape(comp.prompt.template).replace(re.escape("{n}"), r"(\d+)")
                    m = re.fullmatch(pattern, want or "")
                    if m:  # the AI's move goes through this number prompt
                        shown = await world.click(member, panel, cid)
                        await world.submit_modal(member, shown, {"number": m.group(1)})
                        return True
                    choices.append(("p", cid, comp))
                else:
                    cid = f"se:a:{table_id}:{ver}:{comp.code}"
                    if comp.code == want:
                        await world.click(member, panel, cid)
                        return True
                    choices.append(("b", cid, comp))
            elif isinstance(comp, SpecSelect):
                cid = f"se:s:{table_id}:{ver}:{r}"
                values = {o.value for o in comp.options}
                if want and comp.max_values == 1 and not comp.prefix and want in values:
                    await world.select(member, panel, cid, [want])
                    return True
                if want and comp.prefix and want.startswith(comp.prefix):
                    picked = want[len(comp.prefix):].split(".")
                    if set(picked) <= values and comp.min_values <= len(picked) <= comp.max_values:
                        await world.select(member, panel, cid, picked)
                        return True
                choices.append(("s", cid, comp))
    assert code is None, f"no control for {code!r} in the panel: {panel.text()}"
    assert choices, f"no control in the panel of a seat that must act: {panel.text()}"
    kind, cid, comp = rng.choice(choices)
    if kind == "s":
        n = rng.randint(comp.min_values, comp.max_values)
        await world.select(member, panel, cid, rng.sample([o.value for o in comp.options], n))
    elif kind == "p":
        shown = await world.click(member, panel, cid)
        assert shown.kind == "modal"
        lo, hi = comp.prompt.minimum, comp.prompt.maximum
        await world.submit_modal(member, shown, {"number": str(rng.randint(lo, min(hi, lo + 3)))})
    else:
        await world.click(member, panel, cid)
    return True


# ---------------------------------------------------------------------------------------- counting calls


#: AI players beside the two members where the published figures were measured with more than
#: one (the default), by game key.
MORE_AI = {"moonshine": 2}


def ai_players(game: str) -> int:
    """AI players beside the two members: one (:data:`MORE_AI` for the exceptions), no more than
    the game seats."""
    return max(0, min(MORE_AI.get(game, 1), GAMES[game].game.max_players - 2))


@dataclass(frozen=True)
class CallCount:
    """What a full game cost: ``steps`` applied, ``own`` REST calls the bot made on its own,
    ``total`` HTTP calls (interaction answers included), ``uploads`` files uploaded."""

    game: str
    steps: int
    own: int
    total: int
    uploads: int

    @property
    def own_per_step(self) -> float:
        return self.own / max(1, self.steps)

    @property
    def total_per_step(self) -> float:
        return self.total / max(1, self.steps)

    @property
    def uploads_per_step(self) -> float:
        return self.uploads / max(1, self.steps)


async def play_counting(world, game: str, members, rng: random.Random, *, ai: int | None = None,
                        options: dict[str, str] | None = None, limit: int = 5000) -> CallCount:
    """Open a table of ``game`` in ``world`` (a started bot) hosted by ``members[0]``, with the
    other members and ``ai`` AI players (default :func:`ai_players`), and play it to the end
    through the members' panels; count the calls from the ``/play`` on. Raises
    ``AssertionError`` when the game does not end within ``limit`` rounds of turns."""
    start, uploads = len(world.http_log), len(world.uploads)
    tid = await open_table(world, members[0], game, members=members[1:],
                           ai=ai_players(game) if ai is None else ai, options=options)
    service = world.bot
    for _ in range(limit):
        table = await service.hall.table(tid)
        if table.row.status != "running":
            break
        for m in members:
            await take_turn(world, m, tid, rng)
    else:
        raise AssertionError(f"{game}: the game did not end")
    await world.settle()
    table = await service.hall.table(tid)
    assert table.row.status == "finished", table.row.status
    return CallCount(game, table.version, len(world.bot_rest_calls(start)), len(world.http_log) - start,
                     len(world.uploads) - uploads)
