"""End to end through the offline harness: Discord's lifecycle (a deleted or archived
thread, the bot removed from its server, a member gone at the end), one lobby per member per
channel, ``/table list`` and ``/table abandon``, Rematch, ``/help``, the game log attached to
the finished board, and a custom-deck table replayed after its deck is removed."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from bot import compose
from bot.games import GAMES
from bot.i18n import Translator
from bot.service import ReplayError
from bot.timers import turn_key
from tests.catalog import says
from tests.e2e import board_of, lobby_id, open_table, take_turn

EXAMPLE = Path(__file__).parents[1] / "docs" / "decks" / "example-deck.json"
CAP = {"round_cap": "10"}  # short Shop Battle games


async def play_until(world, members, tid, rng, *, stop=lambda table: False, limit=3000, wait=0):
    """Members act through their panels until the table ends (or ``stop(table)``); when none of
    them can act and ``wait`` is set, the simulated clock moves ``wait`` seconds (timeouts)."""
    for _ in range(limit):
        table = await world.bot.hall.table(tid)
        if table.row.status != "running" or stop(table):
            return table
        acted = False
        for m in members:
            acted = await take_turn(world, m, tid, rng) or acted
        if not acted:
            assert wait, "nobody could act but the table is running"
            await world.advance(wait)
    raise AssertionError("the game did not end")


async def ratings(world, game: str) -> dict[int, tuple[int, int]]:
    """``{user_id: (played, won)}`` of this server for ``game``."""
    rows = await world.bot.db.leaderboard(world.guild_id, game, min_games=0, limit=1000)
    return {r.user_id: (r.played, r.won) for r in rows}


def requests_to(world, place_id: int, since: int = 0) -> list:
    """The REST requests the bot made about a channel or thread since ``since``."""
    return [r for r in world.http_log[since:] if f"/channels/{place_id}/" in r.path or r.path.endswith(f"/{place_id}")]


# ---------------------------------------------------------------------------------------- lifecycle
async def test_thread_deleted_mid_game_moves_the_table_to_the_channel_and_it_finishes_rated(e2e):
    world = await e2e(seeds=[20])
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "shop-battle", members=[bob], ai=1, options=CAP)
    rng = random.Random(4)
    await play_until(world, [alice, bob], tid, rng, stop=lambda tb: tb.version >= 6)
    thread = world.threads[0]
    old_board = board_of(world, tid)
    assert old_board.channel_id == thread.id

    await world.delete_thread(thread)
    mark = len(world.http_log)
    table = await world.bot.hall.table(tid)
    assert table.row.status == "running" and table.row.thread_id is None
    # a notice and a new board in the parent channel
    notice = [m for m in world.channel_messages() if "was removed, so the game goes on here" in m.text()]
    assert len(notice) == 1 and alice.mention in notice[0].text() and bob.mention in notice[0].text()
    board = board_of(world, tid)
    assert board.channel_id == world.channel.id and board.id != old_board.id

    table = await play_until(world, [alice, bob], tid, rng)
    assert table.row.status == "finished"
    assert requests_to(world, thread.id, mark) == []  # never posted into the dead thread again
    assert "Rematch" in [b.label for b in board.buttons]  # the moved board is the finished board
    rated = await ratings(world, "shop-battle")
    assert set(rated) == {alice.id, bob.id} and all(played == 1 for played, _ in rated.values())


async def test_a_post_refused_in_the_thread_moves_the_table_without_retrying(e2e):
    world = await e2e(seeds=[20])
    alice = world.member("alice")
    tid = await open_table(world, alice, "shop-battle", ai=2, options=CAP)
    thread = world.threads[0]
    # the bot lost access to its thread: every request there is refused
    world.fail_requests("*", f"/channels/{thread.id}/*", status=403, code=50001, times=None)
    mark = len(world.http_log)
    table = await play_until(world, [alice], tid, random.Random(2))
    assert table.row.status == "finished" and table.row.thread_id is None
    assert len(requests_to(world, thread.id, mark)) == 1  # one refused request, then the channel
    assert world.message(table.row.board_message_id).channel_id == world.channel.id


async def test_an_archived_thread_is_reopened(e2e):
    world = await e2e(seeds=[20])
    alice = world.member("alice")
    tid = await open_table(world, alice, "shop-battle", ai=2, options=CAP)
    thread = world.threads[0]
    await world.archive_thread(thread)
    assert world.thread_state(thread)["archived"] is False
    table = await world.bot.hall.table(tid)
    assert table.row.thread_id == thread.id
    assert board_of(world, tid).channel_id == thread.id


async def test_a_thread_archived_while_the_bot_was_down_is_reopened_not_left(e2e):
    """No event tells a restarted bot that its table's thread was archived meanwhile: Discord
    refuses the board edit there (Thread is archived); the bot reopens the thread and plays on
    in it, as when it sees the archiving."""
    world = await e2e(seeds=[3])
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "gang-of-dice", members=[bob])
    thread = world.threads[0]
    await world.stop_bot()
    await world.archive_thread(thread)
    # (the fake Discord does not refuse edits in an archived thread by itself: the refusal, once)
    world.fail_requests("PATCH", f"/channels/{thread.id}/messages/*", status=400, code=50083, times=1)
    await world.start_bot(e2e.factory)
    for m in (alice, bob):
        if await take_turn(world, m, tid, random.Random(1), code=None):
            break
    await world.settle()
    table = await world.bot.hall.table(tid)
    assert table.row.thread_id == thread.id and world.thread_state(thread)["archived"] is False
    assert board_of(world, tid).channel_id == thread.id


async def test_a_thread_that_stays_refused_after_reopening_moves_the_table_once(e2e):
    world = await e2e(seeds=[3])
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "gang-of-dice", members=[bob])
    thread = world.threads[0]
    world.fail_requests("PATCH", f"/channels/{thread.id}/messages/*", status=400, code=50083, times=None)
    for m in (alice, bob):
        if await take_turn(world, m, tid, random.Random(1), code=None):
            break
    await world.settle()
    table = await world.bot.hall.table(tid)
    assert table.row.status == "running" and table.row.thread_id is None  # reopened once, then moved
    assert world.message(table.row.board_message_id).channel_id == world.channel.id


async def test_an_archived_thread_the_bot_cannot_reopen_moves_the_table(e2e):
    world = await e2e(seeds=[20])
    alice = world.member("alice")
    tid = await open_table(world, alice, "shop-battle", ai=2, options=CAP)
    thread = world.threads[0]
    world.fail_requests("PATCH", f"/channels/{thread.id}", status=403, code=50013, times=None)
    await world.archive_thread(thread, locked=True)
    table = await world.bot.hall.table(tid)
    assert table.row.status == "running" and table.row.thread_id is None
    assert world.message(table.row.board_message_id).channel_id == world.channel.id


async def test_a_table_played_in_a_thread_itself_has_it_unarchived_but_not_unlocked(e2e):
    """``/play`` inside a thread: the table plays there (no thread of its own). That thread
    archived: the bot reopens it, the table's only place; locked by a moderator: the bot does
    not undo it (the table waits)."""
    from tests.e2e import lobby_id

    world = await e2e(seeds=[5])
    alice = world.member("alice")
    first = await open_table(world, alice, "gang-of-dice", ai=1)
    thread = world.threads[0]
    await world.slash(alice, "table abandon", table=first)  # its thread stays, a place like any other
    res = await world.slash(alice, "play", channel=thread, game="moonshine")
    msg, tid = res.response, lobby_id(res.response)
    await world.click(alice, msg, f"se:l:{tid}:ai+")
    await world.click(alice, msg, f"se:l:{tid}:start")
    table = await world.bot.hall.table(tid)
    assert table.row.status == "running" and table.row.channel_id == thread.id and table.row.thread_id is None
    await world.archive_thread(thread)
    assert world.thread_state(thread) == {"archived": False, "locked": False}
    await world.archive_thread(thread, locked=True)
    assert world.thread_state(thread) == {"archived": True, "locked": True}
    assert (await world.bot.hall.table(tid)).row.status == "running"


async def test_deleting_the_channel_too_abandons_the_table_unrated(e2e):
    world = await e2e(seeds=[20])
    alice = world.member("alice")
    tid = await open_table(world, alice, "shop-battle", ai=2, options=CAP)
    lobby = (await world.slash(world.member("bob"), "play", game="gang-of-dice")).response
    await world.delete_thread(world.channel)  # the channel, and its thread with it
    assert (await world.bot.hall.table(tid)).row.status == "abandoned"
    assert (await world.bot.hall.table(lobby_id(lobby))).row.status == "abandoned"
    assert await world.bot.db.timer(turn_key(tid)) is None
    assert await ratings(world, "shop-battle") == {}


async def test_bot_removed_from_the_guild_closes_everything_with_no_rest_call_afterwards(e2e):
    world = await e2e(seeds=[7], turn_timeout_seconds=60)
    alice, bob = world.member("alice"), world.member("bob")
    tid = await open_table(world, alice, "gang-of-dice", members=[bob])
    lobby = (await world.slash(bob, "play", game="moonshine")).response
    service = world.bot
    assert await world.bot.db.timer(turn_key(tid)) is not None

    await world.remove_bot()
    mark = len(world.http_log)
    await world.advance(600)  # deadlines would have fired many times
    assert world.http_log[mark:] == []
    assert (await service.hall.table(tid)).row.status == "abandoned"
    assert (await service.hall.table(lobby_id(lobby))).row.status == "abandoned"
    assert await world.bot.db.timer(turn_key(tid)) is None
    assert await world.bot.db.guild_tables(world.guild_id) == []
    assert await ratings(world, "gang-of-dice") == {}


async def test_a_member_gone_at_the_end_is_not_rated(e2e):
    world = await e2e(seeds=[20], turn_timeout_seconds=60)
    alice, bob, carol = world.member("alice"), world.member("bob"), world.member("carol")
    tid = await open_table(world, alice, "shop-battle", members=[bob, carol], options=CAP)
    rng = random.Random(5)
    await play_until(world, [alice, bob, carol], tid, rng, stop=lambda tb: tb.version >= 4)
    await world.remove_member(bob)  # bob leaves the server: his turns time out, then the AI plays them
    table = await play_until(world, [alice, carol], tid, rng, wait=61)
    assert table.row.status == "finished"
    rated = await ratings(world, "shop-battle")
    assert set(rated) == {alice.id, carol.id}
    assert (await world.bot.records.stats(world.guild_id, bob.id)) == {}


# ---------------------------------------------------------------------------------------- lobbies
async def test_one_open_lobby_per_member_per_channel(e2e):
    world = await e2e()
    alice = world.member("alice")
    first = (await world.slash(alice, "play", game="gang-of-dice")).response
    res = await world.slash(alice, "play", game="moonshine")
    assert res.ephemeral and says("err.lobby_exists") in res.response.text()
    link = f"https://discord.com/channels/{world.guild_id}/{world.channel.id}/{first.id}"
    assert link in res.response.text()
    lobbies = [m for m in world.channel_messages() if any(c.startswith("se:l:") for c in m.custom_ids)]
    assert len(lobbies) == 1
    # another channel is fine; and once the first lobby is cancelled, a new one may open here
    other = world.text_channel("games")
    assert (await world.slash(alice, "play", channel=other, game="moonshine")).response.public
    await world.click(alice, first, f"se:l:{lobby_id(first)}:cancel")
    assert (await world.slash(alice, "play", game="moonshine")).response.public


# ---------------------------------------------------------------------------------------- /table
async def test_table_list_and_abandon_with_and_without_permission(e2e):
    world = await e2e(seeds=[7])
    alice, bob, carol = world.member("alice"), world.member("bob"), world.member("carol")
    root = world.member("root", admin=True)
    lobby = (await world.slash(alice, "play", game="moonshine")).response
    lobby_tid = lobby_id(lobby)
    running = await open_table(world, bob, "gang-of-dice", ai=1)
    thread = world.threads[0]

    listing = (await world.slash(carol, "table list")).response
    text = listing.text()
    assert listing.ephemeral
    assert f"#{lobby_tid}" in text and says("game.moonshine.name") in text and says("admin.status.lobby") in text and alice.mention in text
    assert f"#{running}" in text and says("game.gang-of-dice.name") in text and says("admin.status.running") in text and bob.mention in text
    assert f"https://discord.com/channels/{world.guild_id}/{thread.id}" in text
    assert f"https://discord.com/channels/{world.guild_id}/{world.channel.id}/{lobby.id}" in text
    assert "<t:" in text  # the age, as a Discord relative timestamp

    # autocomplete: the host sees their own tables, Manage Server sees all, others none
    assert [c["value"] for c in await world.autocomplete(alice, "table abandon", "table", "")] == [lobby_tid]
    assert {c["value"] for c in await world.autocomplete(root, "table abandon", "table", "")} == {lobby_tid, running}
    assert await world.autocomplete(carol, "table abandon", "table", "") == []
    picked = await world.autocomplete(root, "table abandon", "table", "gang")
    assert [c["value"] for c in picked] == [running]

    # a member who is neither host nor Manage Server is refused
    res = await world.slash(carol, "table abandon", table=running)
    assert res.ephemeral and says("err.host_or_admin") in res.response.text()
    assert (await world.bot.hall.table(running)).row.status == "running"
    # an admin abandons the running table: unrated, announced in its thread
    res = await world.slash(root, "table abandon", table=running)
    assert says("admin.closed", id=running) in res.response.text()
    assert (await world.bot.hall.table(running)).row.status == "abandoned"
    assert any("abandoned" in m.text() for m in world.thread_messages(thread))
    # the host closes their lobby: the lobby message shows it closed, its buttons disabled
    res = await world.slash(alice, "table abandon", table=lobby_tid)
    assert (await world.bot.hall.table(lobby_tid)).row.status == "abandoned"
    assert all(b.disabled for b in lobby.buttons)
    # nothing left to list; a closed or unknown table is refused
    assert says("admin.none") in (await world.slash(carol, "table list")).response.text()
    res = await world.slash(root, "table abandon", table=running)
    assert res.response.text() == Translator("en")("err.no_table")
    assert await ratings(world, "gang-of-dice") == {}


async def test_table_commands_in_french(e2e):
    world = await e2e(guild_locale="fr")
    anne = world.member("anne", locale="fr")
    res = await world.slash(anne, "table liste")
    assert says("admin.none", "fr") in res.response.text()
    cmd = world.command("table")
    assert cmd["name_localizations"]["fr"] == "table"
    subs = {o["name"]: o for o in cmd["options"]}
    assert subs["abandon"]["name_localizations"]["fr"] == "abandonner"


# ---------------------------------------------------------------------------------------- rematch
async def test_rematch_of_a_table_played_in_a_thread_of_an_allowed_channel(e2e):
    """/play is allowed in #games only; a table opened by /play in a thread of #games (allowed
    through its parent) finishes: its Rematch opens there too."""
    world = await e2e(seeds=[5])
    root, alice = world.member("root", admin=True), world.member("alice")
    games = world.text_channel("games")
    msg = (await world.slash(root, "settings")).response
    await world.select(root, msg, "se:cc", [games])
    first = (await world.slash(alice, "play", channel=games, game="gang-of-dice")).response
    await world.click(alice, first, f"se:l:{lobby_id(first)}:ai+")
    await world.click(alice, first, f"se:l:{lobby_id(first)}:start")
    res = await world.slash(alice, "play", channel=world.threads[0], game="three-player-moon")
    tid = lobby_id(res.response)
    for op in ("ai+", "ai+", "start"):
        await world.click(alice, res.response, f"se:l:{tid}:{op}")
    rng = random.Random(1)
    while (await world.bot.hall.table(tid)).row.status == "running":
        await take_turn(world, alice, tid, rng)
    res = await world.click(alice, board_of(world, tid), f"se:b:{tid}:rematch")
    assert says("rematch.opened") in res.response.text(), res.response.text()


async def test_rematch_from_a_finished_board(e2e):
    world = await e2e(seeds=[20, 21])
    alice, bob, carol = world.member("alice"), world.member("bob"), world.member("carol")
    tid = await open_table(world, alice, "shop-battle", members=[bob], ai=1, options=CAP)
    await play_until(world, [alice, bob], tid, random.Random(1))
    board = board_of(world, tid)
    assert f"se:b:{tid}:rematch" in board.custom_ids

    # someone who did not play cannot ask for it
    res = await world.click(carol, board, f"se:b:{tid}:rematch")
    assert res.ephemeral and res.response.text() == Translator("en")("err.not_seated")
    res = await world.click(bob, board, f"se:b:{tid}:rematch")
    assert res.ephemeral and says("rematch.opened") in res.response.text()
    lobby = world.channel_messages()[-1]
    new = lobby_id(lobby)
    assert new != tid and f"https://discord.com/channels/{world.guild_id}/{world.channel.id}/{lobby.id}" in \
        res.response.text()
    table = await world.bot.hall.table(new)
    old = await world.bot.hall.table(tid)
    assert table.row.status == "lobby" and table.row.host_user_id == alice.id and table.row.game == "shop-battle"
    assert [(s.user_id, s.is_ai) for s in table.seats] == [(s.user_id, s.is_ai) for s in old.seats]
    assert table.row.options == old.row.options
    # a second click points to the same lobby
    res = await world.click(alice, board, f"se:b:{tid}:rematch")
    assert says("err.lobby_exists") in res.response.text() and str(lobby.id) in res.response.text()
    # members may leave it; only the host starts it, as usual
    await world.click(bob, lobby, f"se:l:{new}:leave")
    assert bob.mention not in lobby.text()
    res = await world.click(bob, lobby, f"se:l:{new}:join")
    res = await world.click(bob, lobby, f"se:l:{new}:start")
    assert res.followups[-1].text() == Translator("en")("err.host_only")
    await world.click(alice, lobby, f"se:l:{new}:start")
    assert (await world.bot.hall.table(new)).row.status == "running"


# ---------------------------------------------------------------------------------------- /help
@pytest.mark.parametrize(("locale", "command", "expected"), [
    ("en-US", "help", (says("help.start"), "/play", "/table list", says("game.gang-of-dice.name"),
                       says("game.moonshine.name"))),
    ("fr", "aide", (says("help.start", "fr"), "/jouer", "/table liste", says("game.moonshine.name", "fr"))),
])
async def test_help_in_both_languages(e2e, locale, command, expected):
    world = await e2e(enabled_games="gang-of-dice, moonshine")
    member = world.member("m", locale=locale)
    res = await world.slash(member, command)
    text = res.response.text()
    assert res.ephemeral
    for part in expected:
        assert part in text, part
    assert says("game.shop-battle.name") not in text and says("game.shop-battle.name", "fr") not in text  # not offered here: no game, no /deck


# ---------------------------------------------------------------------------------------- game log
async def test_the_finished_board_carries_the_public_game_log(e2e):
    world = await e2e(seeds=[2_718_281_828_459], guild_locale="fr")
    alice = world.member("alice", locale="fr")
    tid = await open_table(world, alice, "shop-battle", ai=2, options=CAP)
    await play_until(world, [alice], tid, random.Random(1))
    board = board_of(world, tid)
    files = world.attachments(board)
    assert list(files) == [f"speakeasy-table-{tid}.txt"]
    log = files[f"speakeasy-table-{tid}.txt"].decode("utf-8")

    service = world.bot
    table = await service.hall.table(tid)
    t = Translator("fr")
    events = await service.records.all_events(tid)
    public = compose.public_log(events, table, t)
    lines = log.splitlines()
    # every public event, in order, in the server's language
    body = lines[lines.index("Déroulement :") + 1:lines.index("Classement final (rang, joueur, score) :") - 1]
    assert body == [f"  {n}. {line}" for n, line in enumerate(public, start=1)]
    outcome = table.game.outcome(table.state)
    ctx = compose.context(table, t, None)
    for seat in range(len(table.seats)):
        assert f"{outcome.ranks[seat]}. {ctx.name(seat)} — {outcome.scores[seat]}" in log
    # nothing hidden: no private line of any seat, no seed
    private = {line for seat in range(len(table.seats)) for line in compose.private_log(events, table, t, seat)}
    assert private and not (private - set(public)) & {line.split(". ", 1)[-1] for line in lines}
    assert str(table.row.seed) not in log
    assert any(e.audience is not None for e in events)  # there were private events to leave out


# ---------------------------------------------------------------------------------------- custom deck
async def test_a_custom_deck_table_replays_after_its_deck_is_removed(e2e):
    world = await e2e(seeds=[3])
    root = world.member("root", admin=True)
    service = world.bot
    await world.slash(root, "deck upload", file=world.file("deck.json", EXAMPLE.read_text()))
    (deck_id, _), = await service.decks.of(world.guild_id, "shop-battle")
    tid = await open_table(world, root, "shop-battle", ai=2, options={"deck": str(deck_id), **CAP})
    rng = random.Random(2)
    await play_until(world, [root], tid, rng, stop=lambda tb: tb.version >= 8)
    await world.slash(root, "deck remove", name="Rue de la Paix")
    assert await service.decks.of(world.guild_id, "shop-battle") == []
    table = await play_until(world, [root], tid, rng)
    assert table.row.status == "finished"
    game = GAMES["shop-battle"].game
    replayed = await service.tables.replay(tid)
    assert game.dump_state(replayed) == game.dump_state(table.state)
    assert table.row.options["deck_data"]["name"] == "Rue de la Paix"


async def test_an_older_custom_deck_table_storing_only_the_deck_id_keeps_working(e2e):
    world = await e2e(seeds=[3])
    root = world.member("root", admin=True)
    service = world.bot
    await world.slash(root, "deck upload", file=world.file("deck.json", EXAMPLE.read_text()))
    (deck_id, _), = await service.decks.of(world.guild_id, "shop-battle")
    tid = await open_table(world, root, "shop-battle", ai=2, options={"deck": str(deck_id), **CAP})
    # as a table started before cards were stored: its options name the deck only
    row = await world.bot.db.get_table(tid)
    old_options = {k: v for k, v in row.options.items() if k != "deck_data"}
    await world.bot.db.update_table(tid, row.updated_at, options=old_options)
    await e2e.restart()
    service = world.bot
    table = await play_until(world, [root], tid, random.Random(2))
    assert table.row.status == "finished"
    game = GAMES["shop-battle"].game
    assert game.dump_state(await service.tables.replay(tid)) == game.dump_state(table.state)
    await world.slash(root, "deck remove", name="Rue de la Paix")
    with pytest.raises(ReplayError, match="deleted"):
        await service.tables.replay(tid)
