"""AI levels on the bot side: stored with the seat, set in the lobby,
rated per level, strong moves in a process pool outside the table lock, ``play --ai``.

Strong moves get an iteration budget here (``AiPool(iterations=...)``): no clock is read, so a
move depends on the state only and tests compare it with :func:`engine.policies.choose`."""

from __future__ import annotations

import asyncio
import functools
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bot.ai_pool import LEVELS, WORKER_NICENESS, AiPool, think
from bot.games import GAMES
from bot.house import House
from bot.lobbies import lobby_tag
from bot.ratings import AI_RATINGS, DEFAULT_MU, Rated, ai_rating, rate
from bot.service import ServiceError
from engine import policies
from engine.core import Outcome
from engine.gang_of_dice import scripted_setup
from storage.base import SeatRow
from storage.sqlite import SqliteStore

HOST = 100


class Clock:
    def now(self) -> float:
        return 1_000_000.0


def thread_pool(iterations: int = 2, task=think) -> AiPool:
    """A pool whose "workers" are threads (the driver logic without process start-up)."""
    return AiPool(1, iterations=iterations, executor_factory=lambda n: ThreadPoolExecutor(n), task=task)


@pytest.fixture
async def db(tmp_path):
    db = await SqliteStore.open(tmp_path / "t.db")
    yield db
    await db.close()


async def service(db, pool: AiPool | None = None) -> House:
    return House(db, clock=Clock(), turn_timeout=10**6, seed_source=lambda: 7, ai_pool=pool or thread_pool())


# --- storage ---------------------------------------------------------------------------------------------------
async def test_the_level_is_stored_with_the_seat_and_old_rows_play_normal(tmp_path):
    from storage.migrations import latest

    path = tmp_path / "old.db"
    old = await SqliteStore.open(path, upto=5)  # before levels
    t = await old.create_table(guild_id=1, channel_id=1, game="gang-of-dice", host_user_id=HOST, lang="en",
                               options={}, now=0)
    await old._exec("INSERT INTO seats (table_id, seat, user_id, name, is_ai) VALUES (?, 0, ?, 'Host', 0),"
                    " (?, 1, NULL, 'AI 1', 1)", (t, HOST, t))
    await old.close()
    db = await SqliteStore.open(path)
    try:
        assert await db.schema_version() == latest() == 12
        host, ai = await db.seats(t)
        assert ai.ai_level is None and ai.level == "normal" and host.level == "normal"
        await db.replace_seats(t, [host, SeatRow(1, None, "AI 1", True, ai_level="strong"),
                                   SeatRow(2, 200, "Away", False, away=True, ai_level="strong")])
        seats = await db.seats(t)
        assert [s.ai_level for s in seats] == [None, "strong", "strong"]
        assert [s.level for s in seats] == ["normal", "strong", "normal"]  # a member's stand-in plays normal
    finally:
        await db.close()


# --- the lobby -------------------------------------------------------------------------------------------------
async def test_the_host_picks_each_ai_level_and_old_pickers_are_refused(db):
    svc = await service(db)
    try:
        t = await svc.lobbies.open(guild_id=1, channel_id=1, game="shop-battle", host_user_id=HOST, host_name="Host")
        await svc.lobbies.add_ai(t.id, HOST, "AI", level="easy")
        view = await svc.lobbies.add_ai(t.id, HOST, "AI")
        assert [(s.name, s.level) for s in view.seats] == [("Host", "normal"), ("AI 1", "easy"), ("AI 2", "normal")]
        tag = lobby_tag(view.seats)
        view = await svc.lobbies.set_ai_level(t.id, HOST, 2, "strong", expect=tag)
        assert view.seats[2].ai_level == "strong" and lobby_tag(view.seats) == tag  # levels are not in the tag
        with pytest.raises(ServiceError) as err:  # a double click
            await svc.lobbies.set_ai_level(t.id, HOST, 2, "strong", expect=tag)
        assert err.value.key == "err.level_same"
        for seat, level, who, key in ((0, "easy", HOST, "err.level_stale"),  # not an AI player
                                      (9, "easy", HOST, "err.level_stale"),
                                      (1, "hard", HOST, "err.bad_level"),
                                      (1, "strong", 200, "err.host_only")):
            with pytest.raises(ServiceError) as err:
                await svc.lobbies.set_ai_level(t.id, who, seat, level, expect=tag)
            assert err.value.key == key
        with pytest.raises(ServiceError, match="err.bad_level"):
            await svc.lobbies.add_ai(t.id, HOST, "AI", level="hard")
        await svc.lobbies.join(t.id, 200, "Guest")  # the seats changed: the picker drawn before is stale
        with pytest.raises(ServiceError) as err:
            await svc.lobbies.set_ai_level(t.id, HOST, 1, "strong", expect=tag)
        assert err.value.key == "err.level_stale"
        assert (await svc.hall.table(t.id)).seats[1].ai_level == "easy"
        view = await svc.lobbies.remove_ai(t.id, HOST)  # the last AI goes; the others keep their levels
        assert [(s.name, s.ai_level) for s in view.seats] == [("Host", None), ("AI 1", "easy"), ("Guest", None)]
    finally:
        await svc.tables.close()


# --- ratings ---------------------------------------------------------------------------------------------------
def test_each_level_has_its_own_fixed_rating_and_beating_strong_counts_more():
    assert AI_RATINGS["easy"][0] < AI_RATINGS["normal"][0] == DEFAULT_MU < AI_RATINGS["strong"][0]
    gains = {}
    for level in LEVELS:
        (mu, _), ai = rate([Rated(1), ai_rating(level)], [1, 2])
        assert ai == AI_RATINGS[level]  # never updated
        gains[level] = mu - DEFAULT_MU
    assert 0 < gains["easy"] < gains["normal"] < gains["strong"]
    losses = {level: DEFAULT_MU - rate([Rated(1), ai_rating(level)], [2, 1])[0][0] for level in LEVELS}
    assert losses["easy"] > losses["normal"] > losses["strong"] > 0


async def test_the_rating_update_uses_the_ai_level(db):
    finals = {}
    for guild, level in enumerate(("easy", "strong"), start=1):
        svc = await service(db)
        try:
            t = await svc.lobbies.open(guild_id=guild, channel_id=1, game="gang-of-dice", host_user_id=HOST,
                                       host_name="Host")
            await svc.lobbies.add_ai(t.id, HOST, "AI", level=level)
            await svc.lobbies.start(t.id, HOST)
            live = svc.hall.live(t.id)
            assert live is not None and live.seats[1].level == level
            outcome = Outcome(ranks=(1, 2), scores=(1, 0))  # the member beat the AI
            async with db.transaction():
                await svc.tables.finish(live, outcome, 0.0)
            finals[level] = (await db.ratings(guild, "gang-of-dice", [HOST]))[HOST].mu
        finally:
            await svc.tables.close()
    assert DEFAULT_MU < finals["easy"] < finals["strong"]


# --- the driver and the pool -----------------------------------------------------------------------------------
@pytest.fixture
def god_first_seat_0(monkeypatch):
    """Gang of Dice tables start with seat 0 to act (scripted, not a searched seed)."""
    game = GAMES["gang-of-dice"].game
    monkeypatch.setattr(game, "setup", lambda seed, players, options=None: scripted_setup(players, first=0, seed=seed))
    return game


async def strong_table(svc: House, db, level: str = "strong") -> int:
    """A Gang of Dice table: an AI at ``level`` in seat 0 (it acts first), the host in seat 1."""
    t = await svc.lobbies.open(guild_id=1, channel_id=1, game="gang-of-dice", host_user_id=HOST, host_name="Host")
    await db.replace_seats(t.id, [SeatRow(0, None, "AI 1", True, ai_level=level), SeatRow(1, HOST, "Host", False)])
    await svc.lobbies.start(t.id, HOST)
    return t.id


async def test_strong_moves_are_the_searchs_with_the_iteration_budget(db, god_first_seat_0):
    game = god_first_seat_0
    svc = await service(db, thread_pool(iterations=3))
    try:
        tid = await strong_table(svc, db)
        await svc.tables.idle()
        log = await db.action_log(tid)
        assert log and all(set(codes) == {0} and source == "ai" for _, codes, source in log)
        state = game.setup(7, 2, {})
        turn = log[0][0]  # one turn: every decision of it has the salt of its first state
        for _, codes, _ in log:  # each move is the search's, from that state, with that budget
            move = policies.choose(game, state, 0, "strong", salt=tid * 1_000_003 + turn, iterations=3)
            assert codes[0] == game.encode(move)
            state = game.apply(state, {0: move}).state
        assert 1 in game.to_act(state)  # it stopped at the member's turn
    finally:
        await svc.tables.close()


async def test_the_table_lock_is_free_while_the_ai_thinks_and_a_stale_move_is_dropped(db, god_first_seat_0):
    game = god_first_seat_0
    started, gate = threading.Event(), threading.Event()

    def slow(*args):
        started.set()
        assert gate.wait(30)
        return think(*args)

    svc = await service(db, thread_pool(task=slow))
    try:
        tid = await strong_table(svc, db)
        for _ in range(2000):
            if started.is_set():
                break
            await asyncio.sleep(0.005)
        assert started.is_set() and svc.tables.driver.running(tid)
        # while the AI thinks the lock is free: another writer moves the table (here: its timeout)
        async with svc.hall.lock(tid):
            live = svc.hall.live(tid)
            code = game.encode(game.timeout_action(live.state, 0))
            await svc.tables.choose(live, 0, code, source="timeout")
        gate.set()
        await svc.tables.idle()
        assert svc.tables.driver.dropped == 1
        log = await db.action_log(tid)
        assert log[0][2] == "timeout" and all(source == "ai" for _, _, source in log[1:])
        assert [v for v, _, _ in log] == list(range(log[0][0], log[0][0] + len(log)))
    finally:
        gate.set()
        await svc.tables.close()


async def test_easy_and_normal_moves_are_inline_and_the_stand_in_plays_normal(db, god_first_seat_0):
    game = god_first_seat_0
    asked: list[str] = []

    def never(*args):  # pragma: no cover - must not be called
        asked.append(args[3])
        raise AssertionError("no pool for easy")

    svc = await service(db, thread_pool(task=never))
    try:
        tid = await strong_table(svc, db, level="easy")
        await svc.tables.idle()
        log = await db.action_log(tid)
        state = game.setup(7, 2, {})
        for version, codes, _ in log:
            move = policies.choose(game, state, 0, "easy", salt=tid * 1_000_003 + version)
            assert codes[0] == game.encode(move)
            state = game.apply(state, {0: move}).state
        assert not asked and not svc.tables.driver.pool.started  # no worker was ever started
    finally:
        await svc.tables.close()


def crash_once(flag: str, *args):
    """A worker task that kills its process the first time (while ``flag`` exists)."""
    if os.path.exists(flag):
        os.remove(flag)
        os._exit(3)
    return think(*args)


def niceness(*args) -> str:
    """A worker task that answers its process's niceness and, where the platform has one, its
    scheduling policy."""
    policy = os.sched_getscheduler(0) if hasattr(os, "sched_getscheduler") else -1
    return f"{os.nice(0)}:{policy}"


async def test_a_real_process_pool_thinks_and_a_crashed_worker_is_replaced(tmp_path, caplog):
    game = GAMES["three-player-moon"].game
    state = game.setup(5, 3, {})
    seat = min(game.to_act(state))
    flag = tmp_path / "crash"
    flag.write_text("1")
    pool = AiPool(1, iterations=2, task=functools.partial(crash_once, str(flag)))
    try:
        code = await pool.choose(game, state, seat, "strong", salt=1)  # the worker dies: normal move
        assert code == game.encode(game.ai_action(state, seat)) and pool.replaced == 1
        assert "AI worker died" in caplog.text
        code = await pool.choose(game, state, seat, "strong", salt=1)  # a new pool, in another process
        assert code == game.encode(policies.choose(game, state, seat, "strong", salt=1, iterations=2))
        assert pool.replaced == 1 and pool.waiting == 0
    finally:
        await pool.close()
    with pytest.raises(RuntimeError):
        await pool.choose(game, state, seat, "strong")
    assert await pool.choose(game, state, seat, "normal") == game.encode(game.ai_action(state, seat))
    nice = AiPool(1, task=niceness)  # workers yield to the event loop
    try:
        level, policy = (await nice.choose(game, state, seat, "strong")).split(":")
        assert int(level) == min(19, os.nice(0) + WORKER_NICENESS)
        if hasattr(os, "SCHED_IDLE"):  # Linux: the worker runs only when a core is free
            assert int(policy) == os.SCHED_IDLE
    finally:
        await nice.close()


async def test_strong_moves_queue_when_every_worker_is_busy():
    game = GAMES["three-player-moon"].game
    state = game.setup(5, 3, {})
    seat = min(game.to_act(state))
    running, most = 0, 0
    lock = threading.Lock()

    def counted(*args):
        nonlocal running, most
        with lock:
            running += 1
            most = max(most, running)
        try:
            return think(*args)
        finally:
            with lock:
                running -= 1

    pool = AiPool(2, iterations=2, executor_factory=lambda n: ThreadPoolExecutor(n), task=counted)
    try:
        codes = await asyncio.gather(*(pool.choose(game, state, seat, "strong", salt=s) for s in range(6)))
    finally:
        await pool.close()
    assert most <= 2 and len(codes) == 6
    assert codes == [game.encode(policies.choose(game, state, seat, "strong", salt=s, iterations=2))
                     for s in range(6)]


def test_settings_bound_the_pool():
    from pydantic import ValidationError

    from bot.settings import Settings

    s = Settings(_env_file=None)  # type: ignore[call-arg]
    assert s.ai_workers == max(1, (os.cpu_count() or 2) - 1) and s.ai_think_seconds == 1.0 and s.ai_iterations is None
    assert Settings(_env_file=None, ai_workers="3", ai_think_seconds="0.5", ai_iterations="").ai_workers == 3  # type: ignore[call-arg]
    for bad in ({"ai_workers": 0}, {"ai_think_seconds": 0}, {"ai_think_seconds": 60}):
        with pytest.raises(ValidationError):
            Settings(_env_file=None, **bad)  # type: ignore[arg-type]


# --- the terminal ----------------------------------------------------------------------------------------------
def test_play_takes_one_level_for_every_ai_seat_or_one_per_ai_seat(monkeypatch, tmp_path: Path):
    from bot.__main__ import main
    from bot.terminal import TerminalGame

    seen: dict[str, object] = {}

    async def fake_run(self):
        seen.update(players=self.players, levels=self.ai_levels)
        return 0

    monkeypatch.setattr(TerminalGame, "run", fake_run)
    assert main(["play", "shop-battle", "--ai", "strong, Normal,easy"]) == 0
    assert seen == {"players": 4, "levels": ["strong", "normal", "easy"]}
    assert main(["play", "gang-of-dice", "--players", "3", "--ai", "easy,strong"]) == 0
    assert seen == {"players": 3, "levels": ["easy", "strong"]}
    for argv, said in ((["--ai", "strong,hard"], "'hard' is not a level; the levels are easy, normal, strong"),
                       (["--ai", "strong,"], "an empty level is not a level"),
                       (["--players", "4", "--ai", "strong,easy"], "--ai gives 2 levels but the table has 3 AI players")):
        with pytest.raises(SystemExit) as exc:
            main(["play", "gang-of-dice", *argv])
        assert said in str(exc.value)
    # one level: every AI seat's, at the table size asked for or the game's default
    assert main(["play", "three-player-moon", "--ai", "strong"]) == 0
    assert seen == {"players": 3, "levels": ["strong", "strong"]}
    assert main(["play", "gang-of-dice", "--ai", "Strong"]) == 0
    assert seen == {"players": 3, "levels": ["strong", "strong"]}
    assert main(["play", "gang-of-dice", "--players", "4", "--ai", "easy"]) == 0
    assert seen == {"players": 4, "levels": ["easy", "easy", "easy"]}
    # --watch: every seat an AI player
    assert main(["play", "three-player-moon", "--watch", "--ai", "strong,strong,normal"]) == 0
    assert seen == {"players": 3, "levels": ["strong", "strong", "normal"]}
    assert main(["play", "gang-of-dice", "--watch", "--ai", "normal"]) == 0
    assert seen == {"players": 3, "levels": ["normal", "normal", "normal"]}
    with pytest.raises(SystemExit, match=r"--ai gives 2 levels, one per AI player, but Three-Player Moon \(three-player-moon\) has 3 AI players"):
        main(["play", "three-player-moon", "--watch", "--ai", "strong,strong"])


async def test_the_terminal_seats_ai_players_at_their_levels(tmp_path):
    from bot.terminal import TerminalGame

    lines: list[str] = []
    tg = TerminalGame("three-player-moon", 3, seed=11, db_path=tmp_path / "t.db", ask=lambda _: "q",
                      out=lines.append, pace=0, ai_levels=["strong", "easy"])
    db = await SqliteStore.open(tmp_path / "t.db")
    svc = House(db, ai_pool=thread_pool())
    try:
        table = await tg.open_table(svc)
        assert [(s.name, s.is_ai, s.level) for s in table.seats[1:]] == [("AI 1", True, "strong"),
                                                                         ("AI 2", True, "easy")]
    finally:
        await svc.tables.close()
        await db.close()


# --- thinking time: a turn, not a decision ---------------------------------------------------------------------
def recording_pool(seen: list[tuple[int, float]], workers: int = 1, barrier: threading.Barrier | None = None) -> AiPool:
    """A thread pool (``think_seconds`` 1, iteration budget 2: no clock read) that records each
    strong move's seat and the thinking time it was given; with ``barrier``, a move waits there
    for the other seats' (it fails if they are not asked at the same time)."""

    def task(*args):
        seen.append((args[2], args[5]))
        if barrier is not None:
            barrier.wait(timeout=10)
        return think(*args)

    return AiPool(workers, 1.0, iterations=2, executor_factory=lambda n: ThreadPoolExecutor(n), task=task)


async def test_the_decisions_of_a_turn_share_its_thinking_time(db, god_first_seat_0):
    seen: list[tuple[int, float]] = []
    svc = await service(db, recording_pool(seen))
    try:
        tid = await strong_table(svc, db)
        await svc.tables.idle()
        log = await db.action_log(tid)
    finally:
        await svc.tables.close()
    times = [t for _, t in seen]
    assert len(times) == len(log) >= 2  # one turn: a commit, then marks, a reroll or a stop
    assert times[0] <= 0.5 and sum(times) <= 1.0  # the turn's time, each decision half of what is left
    assert all(b < a for a, b in zip(times, times[1:], strict=False))


async def test_the_ai_seats_of_a_simultaneous_step_think_side_by_side(db):
    async def first_step(pool: AiPool) -> None:
        svc = await service(db, pool)
        try:
            t = await svc.lobbies.open(guild_id=1, channel_id=1, game="moonshine", host_user_id=HOST, host_name="Host")
            seats = [SeatRow(s, None, f"AI {s + 1}", True, ai_level="strong") for s in range(3)]
            await db.replace_seats(t.id, [*seats, SeatRow(3, HOST, "Host", False)])
            await svc.lobbies.start(t.id, HOST)  # the first step: all four seats choose at once
            await svc.tables.idle()
        finally:
            await svc.tables.close()

    seen: list[tuple[int, float]] = []
    await first_step(recording_pool(seen, workers=3, barrier=threading.Barrier(3)))  # three workers: at once
    assert sorted(s for s, _ in seen) == [0, 1, 2] and all(0.9 < t <= 1.0 for _, t in seen)  # each the whole time
    seen.clear()
    await first_step(recording_pool(seen, workers=1))  # one worker: the three share the step's time
    assert sorted(s for s, _ in seen) == [0, 1, 2] and all(t <= 1 / 3 + 1e-9 for _, t in seen)


def _moon_at_the_discard():
    """A Three-Player Moon state whose bidder must discard (the bidding played by the AI)."""
    game = GAMES["three-player-moon"].game
    state = game.setup(3, 3, {})
    while state.phase != "discard":
        (seat,) = game.to_act(state)
        state = game.apply(state, {seat: game.ai_action(state, seat)}).state
    return game, state


def test_a_normal_move_that_checks_a_bid_is_heavy_and_the_others_are_not():
    game, state = _moon_at_the_discard()
    bidder = state.bidder
    assert policies.heavy(game, state, bidder, "normal")  # it searches every deal of the unseen tiles
    assert policies.heavy(game, state, bidder, "strong")
    assert not policies.heavy(game, state, bidder, "easy")
    assert not policies.heavy(game, game.setup(3, 3, {}), 0, "normal")  # a bid: the heuristic alone
    gang = GAMES["gang-of-dice"].game
    assert not policies.heavy(gang, gang.setup(1, 2, {}), 0, "normal")  # no heavy normal move in that game
    shop = GAMES["shop-battle"].game
    for players, heavy in ((2, False), (3, True)):  # a chooser's announcement plays out its rounds from 3 players
        state = shop.setup(1, players, {})
        assert state.phase == "choose"
        assert policies.heavy(shop, state, state.chooser, "normal") is heavy
        assert not policies.heavy(shop, state, (state.chooser + 1) % players, "normal")


async def test_a_heavy_normal_move_is_chosen_in_the_pool_and_a_light_one_inline():
    asked: list[tuple[str, str]] = []

    def task(key, data, seat, level, salt, seconds, iterations):
        asked.append((key, level))
        return think(key, data, seat, level, salt, seconds, iterations)

    pool = AiPool(1, iterations=2, executor_factory=lambda n: ThreadPoolExecutor(n), task=task)
    game, state = _moon_at_the_discard()
    try:
        await pool.choose(game, state, state.bidder, "normal", salt=1)
        assert asked == []  # the workers are not up: computed inline rather than waiting for them
        pool.start()
        await pool.choose(game, state, state.bidder, "strong", salt=1)  # a strong move waits for them
        asked.clear()
        code = await pool.choose(game, state, state.bidder, "normal", salt=1)
        assert code == pool.inline(game, state, state.bidder, "normal", 1)  # the same move, off the loop
        assert asked == [("three-player-moon", "normal")]
        opening = game.setup(3, 3, {})
        (seat,) = game.to_act(opening)
        await pool.choose(game, opening, seat, "normal", salt=1)
        assert len(asked) == 1  # a bid: computed inline
    finally:
        await pool.close()
