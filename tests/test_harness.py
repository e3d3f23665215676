"""Self-tests of the offline Discord harness (tests/harness) against the toy bot.

Every test drives discord.py's real dispatch (CommandTree, Views, DynamicItems, Modals)
through gateway payloads; nothing touches the network.
"""

from __future__ import annotations

import asyncio
import json

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from tests.harness import (
    BotErrorsReported,
    CommandNotVisible,
    DiscordWorld,
    ImpossibleAction,
    NetworkAccessAttempted,
    SettleTimeout,
    UnansweredInteraction,
)
from tests.harness.fixtures import discord_world  # noqa: F401  (fixture)
from tests.harness.toybot import ToyStore, make_toy_bot
from tests.harness.transport import FakeDiscord


async def play(world, member, **opts):
    res = await world.slash(member, "play", game="gang-of-dice", **opts)
    assert res.kind == "message" and not res.ephemeral
    return res


# --------------------------------------------------------------------------- (a) slash


async def test_slash_with_choices_posts_public_table_with_components():
    store = ToyStore()
    async with DiscordWorld() as world:
        alice, bob = world.member("alice"), world.member("bob")
        await world.start_bot(make_toy_bot(store))

        res = await world.slash(alice, "play", game="moonshine", opponent=bob)

        msg = res.response
        assert res.acknowledged and res.kind == "message" and not res.deferred
        assert msg.public and msg.author_id == world.bot.user.id
        assert msg.content == f"alice opened Moonshine and invites {bob.mention}"
        assert msg.embeds[0]["title"] == "Table 1: moonshine"
        assert msg.embeds[0]["fields"][0] == {"name": "Players", "value": alice.mention, "inline": True}
        assert msg.custom_ids == [f"toy:{k}:1" for k in ("join", "hand", "name", "take", "racy", "boom", "pick")]
        assert msg.component("toy:join:1").label == "Join" and not msg.component("toy:join:1").disabled
        assert msg.selects[0].option_values == ["red", "green", "blue"]
        assert world.channel_messages() == [msg]
        assert store.tables[1].game == "moonshine"
        # a value outside the declared choices is impossible for a real user
        with pytest.raises(ImpossibleAction, match="only allows"):
            await world.slash(alice, "play", game="chess")
        with pytest.raises(ImpossibleAction, match="no synced slash command"):
            await world.slash(alice, "nope")


async def test_sync_records_localised_names_and_localised_invocation_works():
    store = ToyStore()
    async with DiscordWorld() as world:
        alice = world.member("alice", locale="fr")
        await world.start_bot(make_toy_bot(store))

        payload = world.command("play")
        assert payload["name_localizations"] == {"fr": "jouer"}
        assert payload["description_localizations"] == {"fr": "Ouvrir une table de jeu"}
        game = payload["options"][0]
        assert (game["name"], game["name_localizations"]) == ("game", {"fr": "jeu"})
        assert [c["value"] for c in game["choices"]] == ["gang-of-dice", "moonshine"]
        assert world.command("jouer")["id"] == payload["id"]
        assert {c["name"] for c in world.synced_commands()} >= {"play", "open-table", "admin-reset"}

        res = await world.slash(alice, "jouer", game="gang-of-dice")

        assert res.response.embeds[0]["title"] == "Table 1: gang-of-dice"


class GuildSyncBot(commands.Bot):
    """Syncs its commands to one guild only (as a bot configured with a home guild would)."""

    def __init__(self, guild_id: int) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default())
        self.home = discord.Object(id=guild_id)

        @self.tree.command(name="ping", description="pong", guild=self.home)
        async def ping(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("pong")

    async def setup_hook(self) -> None:
        await self.tree.sync(guild=self.home)


async def test_guild_scoped_sync_with_pinned_guild_id():
    async with DiscordWorld(guild_id=4242 << 22) as world:
        alice = world.member("alice")
        assert world.guild_id == 4242 << 22
        await world.start_bot(lambda: GuildSyncBot(world.guild_id))

        assert [(c["name"], int(c["guild_id"])) for c in world.synced_commands()] == [("ping", world.guild_id)]
        assert (await world.slash(alice, "ping")).response.content == "pong"


# --------------------------------------------------------------------------- (b)(f) clicks, edits


async def test_click_edits_message_and_history_is_recorded():
    store = ToyStore()
    async with DiscordWorld() as world:
        alice, bob = world.member("alice"), world.member("bob")
        await world.start_bot(make_toy_bot(store))
        table = (await play(world, alice)).response

        res = await world.click(bob, table, "toy:join:1")

        assert res.kind == "update" and res.response is table
        assert table.edited and len(table.edits) == 1
        assert table.versions[0].embeds[0]["fields"][0]["value"] == alice.mention
        assert table.embeds[0]["fields"][0]["value"] == f"{alice.mention}, {bob.mention}"
        public = world.all_public_text()
        assert "Table 1: gang-of-dice" in public and f"{alice.mention}, {bob.mention}" in public
        assert "Pick a colour" in public and "Blue" in public  # select placeholder and options


async def test_ephemeral_reply_followup_and_edit_are_private_to_the_clicker():
    store = ToyStore()
    async with DiscordWorld() as world:
        alice, bob = world.member("alice"), world.member("bob")
        await world.start_bot(make_toy_bot(store))
        table = (await play(world, alice)).response

        res = await world.click(bob, table, label="Your hand")

        assert res.ephemeral and res.response.viewer_id == bob.id
        assert res.response.content == "secret hand of bob: A-spades"
        assert [f.content for f in res.followups] == ["psst bob, only you see this"]
        assert res.followups[0].ephemeral and res.followups[0].viewer_id == bob.id
        assert world.ephemeral_for(bob) == [res.response, res.followups[0]]
        assert world.ephemeral_for(alice) == []
        assert res.response not in world.visible_to(alice) and res.response in world.visible_to(bob)
        # alice cannot click bob's ephemeral message
        with pytest.raises(ImpossibleAction, match="not visible"):
            await world.click(alice, res.response, "toy:reveal")

        reveal = await world.click(bob, res.response, "toy:reveal")

        assert reveal.kind == "update" and reveal.ephemeral
        assert res.response.content == "revealed hand of bob: A-spades K-hearts"
        assert res.response.component("toy:reveal").disabled
        assert [v.content for v in res.response.versions] == [
            "secret hand of bob: A-spades",
            "revealed hand of bob: A-spades K-hearts",
        ]
        assert "A-spades" not in world.all_public_text()
        assert "K-hearts" in world.private_text_for(bob) and world.private_text_for(alice) == ""
        with pytest.raises(ImpossibleAction, match="disabled"):
            await world.click(bob, res.response, "toy:reveal")


# --------------------------------------------------------------------------- (c) modal


async def test_modal_round_trip():
    store = ToyStore()
    async with DiscordWorld() as world:
        alice = world.member("alice")
        await world.start_bot(make_toy_bot(store))
        table = (await play(world, alice)).response

        shown = await world.click(alice, table, "toy:name:1")

        assert shown.kind == "modal" and shown.response is None
        assert shown.modal.title == "Name the table"
        assert [f.custom_id for f in shown.modal.fields] == ["toy:name:field", "toy:motto:field"]
        assert shown.modal.field("toy:motto:field").required is False
        with pytest.raises(ImpossibleAction):
            await world.submit_modal(alice, shown, {"toy:motto:field": "no name given"})

        done = await world.submit_modal(alice, shown, {"toy:name:field": "High rollers"})

        assert done.ephemeral and done.response.content == "Table renamed to High rollers"
        assert table.embeds[0]["description"] == "High rollers"  # public message edited by REST
        assert store.tables[1].name == "High rollers"


# --------------------------------------------------------------------------- (b)(d) select + deferred update


async def test_select_with_deferred_update_and_edit_original_response():
    store = ToyStore()
    async with DiscordWorld() as world:
        alice = world.member("alice")
        await world.start_bot(make_toy_bot(store))
        table = (await play(world, alice)).response

        res = await world.select(alice, table, "toy:pick:1", ["blue"])

        assert res.kind == "deferred_update" and res.deferred and res.response is table
        assert table.embeds[0]["fields"][-1] == {"name": "Color", "value": "blue", "inline": True}
        with pytest.raises(ImpossibleAction, match="does not exist"):
            await world.select(alice, table, "toy:pick:1", ["purple"])


# --------------------------------------------------------------------------- (e) threads


async def test_thread_from_message_and_from_channel_with_board_edits():
    store = ToyStore()
    async with DiscordWorld() as world:
        alice = world.member("alice")
        await world.start_bot(make_toy_bot(store))

        res = await world.slash(alice, "open-table")

        (thread,) = world.threads
        assert thread.is_thread and thread.name == "table-1" and thread.parent_id == world.channel.id
        assert thread.id == res.response.id  # a thread started from a message shares its id
        (board,) = world.thread_messages(thread)
        assert [v.content for v in board.versions] == ["board", "board of table 1"]
        assert board.custom_ids == ["toy:move:1:0"]

        moved = await world.click(alice, board, "toy:move:1:0")

        assert moved.kind == "update" and board.custom_ids == ["toy:move:1:1"]
        assert board.embeds[0]["footer"] == {"text": "moves: 1"}
        stale = await world.click(alice, board, "toy:move:1:1")
        assert stale.kind == "update"

        side = await world.slash(alice, "open-table", from_message=False)

        assert [t.name for t in world.threads] == ["table-1", "table-2"]
        assert side.ephemeral and side.response.content == f"opened {world.threads[1].mention}"
        assert world.thread_messages(world.threads[1])[0].content == "board of table 2"
        assert "table-2" in world.all_public_text()


# --------------------------------------------------------------------------- (g) restart + DynamicItem


async def test_dynamic_item_posted_by_old_instance_is_handled_by_new_instance():
    store = ToyStore()
    async with DiscordWorld() as world:
        alice, bob = world.member("alice"), world.member("bob")
        first = await world.start_bot(make_toy_bot(store))
        await world.slash(alice, "open-table")
        board = world.thread_messages(world.threads[0])[0]
        hand = await world.click(bob, (await play(world, alice)).response, "toy:hand:2")

        second = await world.restart_bot(make_toy_bot(store))

        assert second is not first and world.bot is second and world.bots_started == 2
        assert store.events == [f"setup_hook {id(first)}", f"close {id(first)}", f"setup_hook {id(second)}"]
        res = await world.click(alice, board, "toy:move:1:0")
        assert res.kind == "update" and board.custom_ids == ["toy:move:1:1"]
        assert store.handled_by == [("move", id(second))]
        # a plain (non-persistent) View died with the old instance: the click goes unanswered
        with world.expect_errors(UnansweredInteraction) as caught:
            lost = await world.click(bob, hand.response, "toy:reveal")
        assert not lost.acknowledged and len(caught.errors) == 1


# --------------------------------------------------------------------------- (h) concurrency


async def test_two_members_clicking_at_once_race_and_the_lock_serialises():
    store = ToyStore()
    async with DiscordWorld() as world:
        alice, bob = world.member("alice"), world.member("bob")
        await world.start_bot(make_toy_bot(store))
        table = (await play(world, alice)).response

        racy = await world.gather(world.click(alice, table, "toy:racy:1"), world.click(bob, table, "toy:racy:1"))
        # without a lock both handlers passed the check before either wrote: the harness interleaves
        assert sorted(store.tables[1].racy_claims) == sorted([alice.id, bob.id])
        assert all(o.acknowledged for o in racy)

        take = await world.gather(world.click(alice, table, "toy:take:1"), world.click(bob, table, "toy:take:1"))

        assert store.tables[1].taken_by == alice.id
        assert take[0].kind == "deferred_update" and table.content == "taken by alice"
        assert take[1].ephemeral and take[1].response.content == "already taken"


# --------------------------------------------------------------------------- (i) permissions + locales


async def test_admin_only_command():
    store = ToyStore()
    async with DiscordWorld() as world:
        root, bob = world.member("root", admin=True), world.member("bob")
        await world.start_bot(make_toy_bot(store))
        assert int(world.command("admin-reset")["default_member_permissions"]) == 8  # administrator
        await play(world, bob)

        # Discord hides the command from non-admins
        with pytest.raises(CommandNotVisible, match="default-member-permissions"):
            await world.slash(bob, "admin-reset")
        # a guild admin could still grant it to bob: the bot's own check must refuse
        world.allow_command("admin-reset", bob)
        refused = await world.slash(bob, "admin-reset")
        assert refused.ephemeral and refused.response.content == "admins only"
        assert store.tables  # nothing was reset

        ok = await world.slash(root, "admin-reset")

        assert ok.response.content == "all tables reset" and not store.tables


async def test_user_and_guild_locale_reach_the_interaction():
    async with DiscordWorld(guild_locale="de") as world:
        alice, bob = world.member("alice", locale="fr"), world.member("bob")
        await world.start_bot(make_toy_bot(ToyStore()))

        assert (await world.slash(alice, "locale")).response.content == "user=fr guild=de"
        assert (await world.slash(bob, "locale")).response.content == "user=en-US guild=de"
        alice.locale = "es-ES"
        assert (await world.slash(alice, "locale")).response.content == "user=es-ES guild=de"


# --------------------------------------------------------------------------- (j)(k) attachments, deletions


async def test_attachment_option_defer_followups_and_timed_deletions():
    store = ToyStore()
    async with DiscordWorld() as world:
        alice = world.member("alice")
        await world.start_bot(make_toy_bot(store))
        setup = json.dumps({"name": "duel", "seats": [0, 1]})

        res = await world.slash(alice, "upload-setup", file=world.file("setup.json", setup))

        original = res.response
        assert res.ephemeral and original.viewer_id == alice.id
        # deferred "thinking" -> first followup fills it -> edit_original_response
        assert [v.content for v in original.versions] == ["", "loaded setup duel (2 seats)", "setup duel ready"]
        assert original.versions[0].flags & (1 << 7)  # the loading placeholder
        (note,) = res.followups
        assert note.content == "this note self-destructs" and not note.deleted
        await world.advance(10)
        assert not note.deleted
        await world.advance(11)
        assert note.deleted and res.followups == [note]
        assert note not in world.ephemeral_for(alice) and note in world.ephemeral_for(alice, include_deleted=True)

        flash = await world.slash(alice, "flash")
        assert not flash.response.deleted
        await world.advance(30)
        assert flash.response.deleted
        assert "duel" not in world.all_public_text()


async def test_thread_backed_io_in_a_handler_is_awaited():
    async with DiscordWorld() as world:
        alice = world.member("alice")
        await world.start_bot(make_toy_bot(ToyStore()))
        assert (await world.slash(alice, "note", text="a")).response.content == "noted (1)"
        assert (await world.slash(alice, "note", text="b")).response.content == "noted (2)"


# --------------------------------------------------------------------------- errors


async def test_exception_in_a_component_callback_fails_the_test():
    store = ToyStore()
    with pytest.raises(BotErrorsReported, match="boom in a button callback"):
        async with DiscordWorld() as world:
            alice = world.member("alice")
            await world.start_bot(make_toy_bot(store))
            table = (await play(world, alice)).response
            await world.click(alice, table, "toy:boom:1")


async def test_expected_errors_are_consumed_and_missing_ones_fail():
    async with DiscordWorld() as world:
        alice = world.member("alice")
        await world.start_bot(make_toy_bot(ToyStore()))
        table = (await play(world, alice)).response

        with world.expect_errors(ZeroDivisionError, match="boom") as caught:
            await world.click(alice, table, "toy:boom:1")

        assert len(caught.errors) == 1 and "dynamic item callback" in caught.errors[0].message
        assert world.errors == []
        with pytest.raises(AssertionError, match="expected the bot to produce ZeroDivisionError"):
            with world.expect_errors(ZeroDivisionError):
                await world.click(alice, table, "toy:join:1")


class MisbehavingBot(commands.Bot):
    """/hang never finishes, /fail raises (the tree error handler swallows it), /toobig breaks a limit."""

    def __init__(self) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default())
        self.forever = asyncio.Event()

        @self.tree.command(name="hang", description="never answers")
        async def hang(interaction: discord.Interaction) -> None:
            await self.forever.wait()

        @self.tree.command(name="fail", description="raises; the tree handler swallows it")
        async def fail(interaction: discord.Interaction) -> None:
            raise KeyError("swallowed")

        @self.tree.command(name="toobig", description="26 embed fields")
        async def toobig(interaction: discord.Interaction) -> None:
            embed = discord.Embed(title="big")
            for i in range(26):
                embed.add_field(name=f"f{i}", value="x")
            await interaction.response.send_message(embed=embed)

        @self.tree.error
        async def on_tree_error(interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
            await interaction.response.send_message("sorry", ephemeral=True)

    async def setup_hook(self) -> None:
        await self.tree.sync()


async def test_hangs_time_out_and_swallowed_exceptions_still_count():
    async with DiscordWorld(settle_timeout=0.3) as world:
        alice = world.member("alice")
        await world.start_bot(MisbehavingBot)

        with pytest.raises(SettleTimeout, match="did not settle"):
            await world.slash(alice, "hang")
        with world.expect_errors(SettleTimeout):
            await world.stop_bot()
        await world.start_bot(MisbehavingBot)
        with world.expect_errors(KeyError, match="swallowed"):
            res = await world.slash(alice, "fail")
        assert res.response.content == "sorry"


async def test_discord_limits_are_enforced_like_production():
    async with DiscordWorld() as world:
        alice = world.member("alice")
        await world.start_bot(MisbehavingBot)
        # Discord answers 400; the bot's handler replies "sorry" but the HTTPException still counts
        with world.expect_errors(discord.HTTPException, match="25 or fewer"):
            res = await world.slash(alice, "toobig")
        assert res.response.content == "sorry"
        assert not [m for m in world.messages if m.embeds]


async def test_nothing_reaches_the_network_and_patches_are_removed():
    from simcord.http.client import FakeHTTPClient

    plain = FakeHTTPClient.request
    async with DiscordWorld() as world:
        await world.start_bot(make_toy_bot(ToyStore()))
        assert FakeHTTPClient.request is not plain  # yielding wrapper installed
        real = discord.http.HTTPClient(asyncio.get_running_loop())
        with pytest.raises(NetworkAccessAttempted):
            await real.request(discord.http.Route("GET", "/gateway"))
        async with aiohttp.ClientSession() as session:
            with pytest.raises(NetworkAccessAttempted):
                await session.get("https://discord.com/api/v10/gateway")
        assert all(not e.path.startswith("http") for e in world.http_log)
    assert FakeHTTPClient.request is plain


async def test_fixture_world(discord_world):  # noqa: F811
    world = discord_world
    alice = world.member("alice")
    assert world.member("alice") is alice
    await world.start_bot(make_toy_bot(ToyStore()))
    res = await world.slash(alice, "play", game="gang-of-dice")
    assert res.response.content == "alice opened Gang of Dice"


# ---------------------------------------------------------------------------------------- the light transport


async def test_the_light_transport_answers_a_bare_slash_command_through_discord_py() -> None:
    fake = FakeDiscord()
    client = discord.Client(intents=discord.Intents.none())
    tree = discord.app_commands.CommandTree(client)

    @tree.command(name="ping", description="bare")
    async def ping(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("pong", ephemeral=True)

    fake.install(client)
    await client.login("fake")
    guild, channel = 10**17, 10**17 + 1
    fake.connect(client, [fake.guild(guild, [channel])])
    assert client.get_channel(channel) is not None
    payload = fake.slash("ping", user_id=42, guild_id=guild, channel=fake.text_channel(channel, guild))
    answer = fake.expect_webhook(payload["token"])
    fake.feed(client, "INTERACTION_CREATE", payload)
    sent = await answer
    assert sent.method == "POST" and sent.route.endswith("/callback")
    assert sent.json["type"] == 4 and sent.json["data"]["content"] == "pong"
    assert sent.json["data"]["flags"] & 64  # ephemeral
    assert fake.calls["POST /interactions/{webhook_id}/{webhook_token}/callback"] == 1
    await client.close()
