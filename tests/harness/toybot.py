"""A small discord.py bot used only to self-test the harness (tests/test_harness.py).

It exercises the discord.py features the real bot relies on, written the way the
real cogs should be written (see README.md "Rules for bot code"):

* ``/play game:<choice> [opponent:<user>]`` -> public table message with an embed,
  DynamicItem buttons (join / hand / name / take / racy / boom) and a DynamicItem select;
* ``/jouer`` is the French localisation of ``/play`` (via an ``app_commands.Translator``);
* ``/open-table [from_message]`` -> a thread (from the reply message or from the channel),
  a board message in it with a DynamicItem ``move`` button that edits it;
* ``/locale`` -> ephemeral echo of interaction.locale / guild_locale;
* ``/admin-reset`` -> ``default_permissions(administrator)`` + ``checks.has_permissions``;
* ``/upload-setup file:<attachment>`` -> reads the JSON with ``Attachment.read()``, defer +
  followups + edit_original_response; a temporary followup deleted after 20 s;
* ``/flash`` -> ephemeral ``send_message(..., delete_after=30)``;
* ``/note text`` -> stores/reads a row in an aiosqlite in-memory DB (real thread-backed I/O).

State that must survive a restart lives in ``ToyStore``, passed to every instance
(it stands in for the database).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

import aiosqlite
import discord
from discord import app_commands
from discord.ext import commands

FR = {
    "play": "jouer",
    "Start a game table": "Ouvrir une table de jeu",
    "game": "jeu",
    "opponent": "adversaire",
}


class ToyTranslator(app_commands.Translator):
    """Localises a few command strings into French (what tree.sync sends as *_localizations)."""

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContext
    ) -> str | None:
        if locale is discord.Locale.french:
            return FR.get(string.message)
        return None


@dataclass
class Table:
    id: int
    game: str
    host: int
    players: list[int] = field(default_factory=list)
    name: str = ""
    color: str | None = None
    taken_by: int | None = None
    racy_claims: list[int] = field(default_factory=list)
    moves: int = 0


@dataclass
class ToyStore:
    """World-level state shared by successive bot instances (stands in for the DB)."""

    tables: dict[int, Table] = field(default_factory=dict)
    locks: dict[int, asyncio.Lock] = field(default_factory=dict)
    handled_by: list[tuple[str, int]] = field(default_factory=list)  # (what, id(bot))
    events: list[str] = field(default_factory=list)

    def lock(self, table_id: int) -> asyncio.Lock:
        return self.locks.setdefault(table_id, asyncio.Lock())


def _store(interaction: discord.Interaction) -> ToyStore:
    return interaction.client.store  # type: ignore[attr-defined]


def table_embed(table: Table) -> discord.Embed:
    embed = discord.Embed(title=f"Table {table.id}: {table.game}", description=table.name or "unnamed")
    embed.add_field(name="Players", value=", ".join(f"<@{p}>" for p in table.players) or "nobody")
    if table.color:
        embed.add_field(name="Color", value=table.color)
    embed.set_footer(text=f"moves: {table.moves}")
    return embed


# --------------------------------------------------------------------- dynamic items


class JoinButton(discord.ui.DynamicItem[discord.ui.Button], template=r"toy:join:(?P<table>\d+)"):
    def __init__(self, table_id: int) -> None:
        super().__init__(discord.ui.Button(label="Join", style=discord.ButtonStyle.success, custom_id=f"toy:join:{table_id}"))
        self.table_id = table_id

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # type: ignore[override]
        return cls(int(match["table"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        store = _store(interaction)
        store.handled_by.append(("join", id(interaction.client)))
        table = store.tables[self.table_id]
        if interaction.user.id not in table.players:
            table.players.append(interaction.user.id)
        await interaction.response.edit_message(embed=table_embed(table), view=lobby_view(table))


class HandButton(discord.ui.DynamicItem[discord.ui.Button], template=r"toy:hand:(?P<table>\d+)"):
    def __init__(self, table_id: int) -> None:
        super().__init__(discord.ui.Button(label="Your hand", custom_id=f"toy:hand:{table_id}"))
        self.table_id = table_id

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # type: ignore[override]
        return cls(int(match["table"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        secret = f"secret hand of {interaction.user.name}: A-spades"
        await interaction.response.send_message(secret, ephemeral=True, view=RevealView(interaction.user.name))
        await interaction.followup.send(f"psst {interaction.user.name}, only you see this", ephemeral=True)


class RevealView(discord.ui.View):
    """Non-persistent view on an ephemeral message (dies with the bot instance)."""

    def __init__(self, owner: str) -> None:
        super().__init__(timeout=600)
        self.owner = owner

    @discord.ui.button(label="Reveal", custom_id="toy:reveal")
    async def reveal(self, interaction: discord.Interaction, button: discord.ui.Button) -> None:
        button.disabled = True
        await interaction.response.edit_message(content=f"revealed hand of {self.owner}: A-spades K-hearts", view=self)


class NameButton(discord.ui.DynamicItem[discord.ui.Button], template=r"toy:name:(?P<table>\d+)"):
    def __init__(self, table_id: int) -> None:
        super().__init__(discord.ui.Button(label="Name table", custom_id=f"toy:name:{table_id}"))
        self.table_id = table_id

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # type: ignore[override]
        return cls(int(match["table"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.send_modal(NameModal(self.table_id))


class NameModal(discord.ui.Modal, title="Name the table"):
    name = discord.ui.TextInput(label="Table name", custom_id="toy:name:field", max_length=40)
    motto = discord.ui.TextInput(
        label="Motto", custom_id="toy:motto:field", style=discord.TextStyle.paragraph, required=False
    )

    def __init__(self, table_id: int) -> None:
        super().__init__(timeout=600)
        self.table_id = table_id

    async def on_submit(self, interaction: discord.Interaction) -> None:
        table = _store(interaction).tables[self.table_id]
        table.name = self.name.value
        await interaction.response.send_message(f"Table renamed to {table.name}", ephemeral=True)
        if interaction.message is not None:  # edit the public table message (bot REST edit)
            await interaction.message.edit(embed=table_embed(table))


class TakeButton(discord.ui.DynamicItem[discord.ui.Button], template=r"toy:(?P<kind>take|racy):(?P<table>\d+)"):
    """``take`` is serialised by a per-table lock; ``racy`` deliberately is not."""

    def __init__(self, kind: str, table_id: int) -> None:
        super().__init__(discord.ui.Button(label=kind.title(), custom_id=f"toy:{kind}:{table_id}"))
        self.kind = kind
        self.table_id = table_id

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # type: ignore[override]
        return cls(match["kind"], int(match["table"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        store = _store(interaction)
        table = store.tables[self.table_id]
        if self.kind == "racy":
            if not table.racy_claims:  # check ...
                await interaction.response.defer()  # ... HTTP call: other handlers run here ...
                table.racy_claims.append(interaction.user.id)  # ... then act on a stale check
                await interaction.edit_original_response(content=f"racy claimed by {interaction.user.name}")
            else:
                await interaction.response.send_message("racy: too late", ephemeral=True)
            return
        async with store.lock(self.table_id):
            if table.taken_by is not None:
                await interaction.response.send_message("already taken", ephemeral=True)
                return
            await interaction.response.defer()
            table.taken_by = interaction.user.id
            await interaction.edit_original_response(content=f"taken by {interaction.user.name}")


class BoomButton(discord.ui.DynamicItem[discord.ui.Button], template=r"toy:boom:(?P<table>\d+)"):
    def __init__(self, table_id: int) -> None:
        super().__init__(discord.ui.Button(label="Boom", style=discord.ButtonStyle.danger, custom_id=f"toy:boom:{table_id}"))

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # type: ignore[override]
        return cls(int(match["table"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        await interaction.response.defer()
        raise ZeroDivisionError("boom in a button callback")


class PickSelect(discord.ui.DynamicItem[discord.ui.Select], template=r"toy:pick:(?P<table>\d+)"):
    def __init__(self, table_id: int) -> None:
        super().__init__(
            discord.ui.Select(
                custom_id=f"toy:pick:{table_id}",
                placeholder="Pick a colour",
                options=[discord.SelectOption(label=c.title(), value=c) for c in ("red", "green", "blue")],
            )
        )
        self.table_id = table_id

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # type: ignore[override]
        return cls(int(match["table"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        table = _store(interaction).tables[self.table_id]
        table.color = self.item.values[0]
        await interaction.response.defer()  # deferred update of the component's message
        await interaction.edit_original_response(embed=table_embed(table))


class MoveButton(discord.ui.DynamicItem[discord.ui.Button], template=r"toy:move:(?P<table>\d+):(?P<version>\d+)"):
    def __init__(self, table_id: int, version: int) -> None:
        super().__init__(discord.ui.Button(label=f"Move (v{version})", custom_id=f"toy:move:{table_id}:{version}"))
        self.table_id = table_id
        self.version = version

    @classmethod
    async def from_custom_id(cls, interaction, item, match):  # type: ignore[override]
        return cls(int(match["table"]), int(match["version"]))

    async def callback(self, interaction: discord.Interaction) -> None:
        store = _store(interaction)
        store.handled_by.append(("move", id(interaction.client)))
        table = store.tables[self.table_id]
        if self.version != table.moves:
            await interaction.response.send_message("stale button", ephemeral=True)
            return
        table.moves += 1
        await interaction.response.edit_message(embed=table_embed(table), view=board_view(table))


def lobby_view(table: Table) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for item in (JoinButton(table.id), HandButton(table.id), NameButton(table.id)):
        view.add_item(item)
    view.add_item(TakeButton("take", table.id))
    view.add_item(TakeButton("racy", table.id))
    view.add_item(BoomButton(table.id))
    view.add_item(PickSelect(table.id))
    return view


def board_view(table: Table) -> discord.ui.View:
    return discord.ui.View(timeout=None).add_item(MoveButton(table.id, table.moves))


# --------------------------------------------------------------------- the bot


class ToyBot(commands.Bot):
    def __init__(self, store: ToyStore) -> None:
        super().__init__(command_prefix=commands.when_mentioned, intents=discord.Intents.default())
        self.store = store
        self.db: aiosqlite.Connection | None = None
        self._register_commands()

    async def setup_hook(self) -> None:
        # Persistent components: register DynamicItems on EVERY instance, before any click arrives.
        self.add_dynamic_items(JoinButton, HandButton, NameButton, TakeButton, BoomButton, PickSelect, MoveButton)
        self.db = await aiosqlite.connect(":memory:")
        await self.db.execute("CREATE TABLE notes (user INTEGER, text TEXT)")
        await self.tree.set_translator(ToyTranslator())
        await self.tree.sync()
        self.store.events.append(f"setup_hook {id(self)}")

    async def close(self) -> None:
        if self.db is not None:
            await self.db.close()
            self.db = None
        self.store.events.append(f"close {id(self)}")
        await super().close()

    def _register_commands(self) -> None:
        tree = self.tree
        _ = app_commands.locale_str

        @tree.command(name=_("play"), description=_("Start a game table"))
        @app_commands.rename(game=_("game"), opponent=_("opponent"))
        @app_commands.describe(game="Which game", opponent="Someone to invite")
        @app_commands.choices(
            game=[
                app_commands.Choice(name="Gang of Dice", value="gang-of-dice"),
                app_commands.Choice(name="Moonshine", value="moonshine"),
            ]
        )
        async def play(interaction: discord.Interaction, game: app_commands.Choice[str], opponent: discord.Member | None = None) -> None:
            store = _store(interaction)
            table = Table(id=len(store.tables) + 1, game=game.value, host=interaction.user.id)
            table.players.append(interaction.user.id)
            store.tables[table.id] = table
            text = f"{interaction.user.name} opened {game.name}"
            if opponent is not None:
                text += f" and invites {opponent.mention}"
            await interaction.response.send_message(text, embed=table_embed(table), view=lobby_view(table))

        @tree.command(name="open-table", description="Open a table thread")
        async def open_table(interaction: discord.Interaction, from_message: bool = True) -> None:
            store = _store(interaction)
            table = Table(id=len(store.tables) + 1, game="moonshine", host=interaction.user.id)
            store.tables[table.id] = table
            if from_message:
                await interaction.response.send_message(f"Table {table.id} lobby")
                lobby = await interaction.original_response()
                thread = await lobby.create_thread(name=f"table-{table.id}")
            else:
                await interaction.response.defer(ephemeral=True)
                assert isinstance(interaction.channel, discord.TextChannel)
                thread = await interaction.channel.create_thread(
                    name=f"table-{table.id}", type=discord.ChannelType.public_thread
                )
                await interaction.followup.send(f"opened {thread.mention}", ephemeral=True)
            board = await thread.send("board", embed=table_embed(table))
            await board.edit(content=f"board of table {table.id}", view=board_view(table))

        @tree.command(name="locale", description="Echo locales")
        async def locale(interaction: discord.Interaction) -> None:
            await interaction.response.send_message(
                f"user={interaction.locale.value} guild={interaction.guild_locale.value if interaction.guild_locale else None}",
                ephemeral=True,
            )

        @tree.command(name="admin-reset", description="Reset everything (admins)")
        @app_commands.default_permissions(administrator=True)
        @app_commands.checks.has_permissions(administrator=True)
        async def admin_reset(interaction: discord.Interaction) -> None:
            _store(interaction).tables.clear()
            await interaction.response.send_message("all tables reset", ephemeral=True)

        @admin_reset.error
        async def admin_reset_error(interaction: discord.Interaction, error: app_commands.AppCommandError) -> None:
            if isinstance(error, app_commands.MissingPermissions):
                await interaction.response.send_message("admins only", ephemeral=True)
            else:
                raise error

        @tree.command(name="upload-setup", description="Load a JSON setup")
        async def upload_setup(interaction: discord.Interaction, file: discord.Attachment) -> None:
            data = json.loads(await file.read())
            await interaction.response.defer(ephemeral=True, thinking=True)
            await interaction.followup.send(f"loaded setup {data['name']} ({len(data['seats'])} seats)", ephemeral=True)
            note = await interaction.followup.send("this note self-destructs", ephemeral=True, wait=True)
            await interaction.edit_original_response(content=f"setup {data['name']} ready")
            await note.delete(delay=20)

        @tree.command(name="flash", description="A short-lived secret")
        async def flash(interaction: discord.Interaction) -> None:
            await interaction.response.send_message("flash secret", ephemeral=True, delete_after=30)

        @tree.command(name="note", description="Store a note")
        async def note(interaction: discord.Interaction, text: str) -> None:
            assert interaction.client.db is not None  # type: ignore[attr-defined]
            db: aiosqlite.Connection = interaction.client.db  # type: ignore[attr-defined]
            await db.execute("INSERT INTO notes VALUES (?, ?)", (interaction.user.id, text))
            async with db.execute("SELECT COUNT(*) FROM notes WHERE user = ?", (interaction.user.id,)) as cur:
                (count,) = await cur.fetchone()  # type: ignore[misc]
            await interaction.response.send_message(f"noted ({count})", ephemeral=True)


def make_toy_bot(store: ToyStore) -> Any:
    """A factory for ``world.start_bot``: ``world.start_bot(make_toy_bot(store))``."""

    def factory() -> ToyBot:
        return ToyBot(store)

    return factory
