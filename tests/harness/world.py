"""``DiscordWorld``: the project-owned facade over the offline Discord simulator.

Tests talk to this module only; the simulator (simcord 3.2.1) stays behind it.
See tests/harness/README.md for the API tour and the discord.py rules bot code must follow.

Usage::

    async with DiscordWorld(guild_locale="fr") as world:
        alice = world.member("alice", locale="fr")
        bot = await world.start_bot(make_bot)          # setup_hook + tree.sync run
        res = await world.slash(alice, "play", game="gang-of-dice")
        await world.click(alice, res.response, "join")
        assert "Alice" in world.channel_messages()[-1].content
    # leaving the block fails the test if discord.py logged errors or a bot task died
"""

from __future__ import annotations

import copy
import os
import pickle
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

import discord
import simcord
from simcord.actors import MemberActor
from simcord.backend.errors import BackendError, SetupError
from simcord.builders import ChannelHandle, GuildHandle, RoleHandle, UserHandle
from simcord.results import InteractionResult, ResponseMessage

from . import _patches, conformance
from .errors import (
    BotError,
    BotErrorsReported,
    CommandNotVisible,
    ErrorCollector,
    ExpectedErrors,
    HarnessError,
    ImpossibleAction,
    SettleTimeout,
    UnansweredInteraction,
)
from .journal import Journal, Msg

BotFactory = Callable[[], discord.Client]


# --------------------------------------------------------------------------- handles


@dataclass(eq=False)
class Member:
    """A guild member the test acts as. ``locale`` may be changed between actions."""

    world: DiscordWorld = field(repr=False)
    _actor: Any = field(repr=False)
    name: str
    locale: str
    admin: bool

    @property
    def guild_id(self) -> int:
        """The guild this member belongs to (the world's first guild unless ``member(guild=)``)."""
        return self._actor.guild.id

    @property
    def id(self) -> int:
        return self._actor.id

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def __repr__(self) -> str:
        return f"<Member {self.name} id={self.id} locale={self.locale}{' admin' if self.admin else ''}>"


@dataclass(eq=False)
class Channel:
    """A text channel or thread of the world."""

    world: DiscordWorld = field(repr=False)
    _handle: ChannelHandle = field(repr=False)

    @property
    def id(self) -> int:
        return self._handle.id

    @property
    def name(self) -> str | None:
        return self.world._env.backend.get_channel(self.id).name

    @property
    def is_thread(self) -> bool:
        return self._handle.is_thread

    @property
    def parent_id(self) -> int | None:
        return self.world._env.backend.get_channel(self.id).parent_id

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    def __repr__(self) -> str:
        kind = "Thread" if self.is_thread else "Channel"
        return f"<{kind} #{self.name} id={self.id}>"


@dataclass(eq=False)
class Guild:
    """A guild of the world (:meth:`DiscordWorld.add_guild`), with its default text ``channel``."""

    world: DiscordWorld = field(repr=False)
    _handle: GuildHandle = field(repr=False)
    channel: Channel

    @property
    def id(self) -> int:
        return self._handle.id

    def shard(self, shard_count: int) -> int:
        """The shard that receives this guild's events: ``(id >> 22) % shard_count``."""
        return (self.id >> 22) % shard_count

    def __repr__(self) -> str:
        return f"<Guild {self._handle.name} id={self.id}>"


@dataclass(frozen=True)
class ModalField:
    custom_id: str
    label: str | None
    style: int | None
    required: bool
    value: str | None
    kind: str


@dataclass(frozen=True)
class ModalSpec:
    """A modal the bot showed: title, custom_id and its input fields."""

    custom_id: str
    title: str
    fields: tuple[ModalField, ...]
    raw: dict[str, Any]

    def field(self, custom_id: str) -> ModalField:
        for f in self.fields:
            if f.custom_id == custom_id:
                return f
        raise KeyError(custom_id)


def _modal_spec(raw: dict[str, Any]) -> ModalSpec:
    from .journal import walk_components

    fields = []
    for _, c in walk_components(raw.get("components") or []):
        if not c.get("custom_id"):
            continue
        fields.append(
            ModalField(
                custom_id=c["custom_id"],
                label=c.get("label"),
                style=c.get("style"),
                required=bool(c.get("required", True)),
                value=c.get("value"),
                kind={4: "text_input", 3: "select"}.get(c.get("type"), f"type{c.get('type')}"),
            )
        )
    return ModalSpec(raw.get("custom_id", ""), raw.get("title", ""), tuple(fields), raw)


class Outcome:
    """What the bot did in answer to one interaction (live: reflects later edits).

    ``kind``: "message" (replied), "deferred" (thinking...), "deferred_update"
    (component defer), "update" (edited the clicked message), "modal", or None (no answer).
    ``response``: the reply message (or the clicked message for "update"/"deferred_update").
    ``followups``: followup messages, deleted ones included (check ``.deleted``).
    """

    def __init__(self, world: DiscordWorld, member: Member, result: InteractionResult, label: str) -> None:
        self._world = world
        self._result = result
        self.member = member
        self.label = label

    @property
    def _record(self) -> Any:
        return self._result._interaction

    @property
    def interaction_id(self) -> int:
        return self._record.id

    @property
    def acknowledged(self) -> bool:
        return self._record.responded

    @property
    def kind(self) -> str | None:
        kind = self._record.response_kind
        return None if kind is None else str(kind.value)

    @property
    def deferred(self) -> bool:
        return self._record.deferred

    @property
    def ephemeral(self) -> bool:
        """Whether the answer is private: the response message is ephemeral (for an "update",
        the clicked message), or, without a message, the reply was flagged ephemeral."""
        response = self.response
        return response.ephemeral if response is not None else bool(self._record.ephemeral)

    @property
    def response(self) -> Msg | None:
        mid = self._record.message_id
        return self._world._journal.messages.get(mid) if mid is not None else None

    message = response

    @property
    def followups(self) -> list[Msg]:
        return [self._world._journal.messages[i] for i in self._record.followup_ids if i in self._world._journal.messages]

    @property
    def messages(self) -> list[Msg]:
        """The response (if any) then every followup."""
        return ([self.response] if self.response is not None else []) + self.followups

    @property
    def modal(self) -> ModalSpec | None:
        raw = self._record.modal
        return _modal_spec(copy.deepcopy(raw)) if raw is not None else None

    def __repr__(self) -> str:
        return (
            f"<Outcome {self.label} by {self.member.name}: kind={self.kind} ephemeral={self.ephemeral} "
            f"response={self.response!r} followups={len(self.followups)}>"
        )


MessageRef = Msg | Outcome | int


# --------------------------------------------------------------------------- world


class DiscordWorld:
    """One simulated Discord: a guild, a default text channel, members, and at most one running bot.

    Args:
        guild_locale: the guild's preferred locale (sent as ``interaction.guild_locale``).
        guild_id: pin the guild's snowflake (e.g. to match a bot that syncs to one guild);
            default: a generated id, readable as ``world.guild_id`` before starting the bot.
        guild_name / channel_name: names of the guild and of the default channel.
        default_locale: user locale for members created without ``locale=``.
        settle_timeout: seconds an action waits for the bot to finish its work before
            raising :class:`SettleTimeout`. Bot timers due within this window run in real
            time during settling; longer ones wait for :meth:`advance`.
        require_ack: record an :class:`UnansweredInteraction` error when an interaction
            was never acknowledged by the bot (real users would see "interaction failed").
    """

    def __init__(
        self,
        *,
        guild_locale: str = "en-US",
        guild_id: int | None = None,
        guild_name: str = "Speakeasy Test",
        channel_name: str = "general",
        default_locale: str = "en-US",
        settle_timeout: float = 5.0,
        require_ack: bool = True,
        guild_shard: tuple[int, int] | None = None,
        restore: str | os.PathLike[str] | None = None,
    ) -> None:
        self.guild_locale = guild_locale
        self._guild_id = guild_id
        self._guild_shard = guild_shard
        self._restore = restore
        self.default_locale = default_locale
        self.require_ack = require_ack
        self._guild_name = guild_name
        self._channel_name = channel_name
        self._settle_timeout = settle_timeout
        self._journal = Journal()
        self._errors = ErrorCollector()
        self._members: dict[int, Member] = {}
        self._by_name: dict[str, Member] = {}
        self._bot: discord.Client | None = None
        self._env: Any = None
        self._sim_cursor = 0
        self._admin_role: Any = None
        self._bursting = False
        self._burst: list[Outcome] = []
        self._time_ctx: Any = None
        self._open = False
        self.bots_started = 0
        self._factory: BotFactory | discord.Client | None = None
        self._seen_versions: dict[tuple[int | None, int], int] = {}
        self._seen_threads: set[int] = set()
        self._uploads: list[_patches.Upload] = []
        self._guild: Any = None
        self._extra_guilds: list[GuildHandle] = []

    # ----------------------------------------------------------- lifecycle

    async def __aenter__(self) -> DiscordWorld:
        _patches.install()
        self._errors.install()
        try:
            placeholder = discord.Client(intents=discord.Intents.none())
            env = simcord.Env(placeholder, check_errors=False, settle_timeout=self._settle_timeout)
            self._env = env
            _patches.register_world(env.backend, self)
            if self._restore is not None:
                self._load(self._restore)
            else:
                self._journal.attach(env.backend)
                first = self.add_guild(self._guild_name, id=self._guild_id, shard=self._guild_shard,
                                       locale=self.guild_locale, channel_name=self._channel_name)
                self._guild, self.channel = first._handle, first.channel
        except BaseException:
            self._errors.uninstall()
            _patches.uninstall()
            raise
        self._open = True
        return self

    async def __aexit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            if self._bot is not None:
                try:
                    await self.stop_bot(self._bot)
                except BaseException as stop_error:
                    if exc is None:
                        raise
                    exc.add_note(f"(also, stopping the bot failed: {stop_error!r})")
            self._harvest_errors()
        finally:
            self._open = False
            _patches.unregister_world(self._env.backend)
            self._errors.uninstall()
            _patches.uninstall()
        leftover = list(self._errors.pending)
        if leftover:
            report = "\n\n".join(e.format() for e in leftover)
            if exc is None:
                raise BotErrorsReported(f"the bot produced {len(leftover)} error(s):\n\n{report}")
            exc.add_note(f"the bot also produced {len(leftover)} error(s):\n{report}")

    # ----------------------------------------------------------- bots

    @property
    def bot(self) -> discord.Client | None:
        """The running bot instance, if any."""
        return self._bot

    async def start_bot(self, factory: BotFactory | discord.Client) -> discord.Client:
        """Build a bot with ``factory()`` (or take an unstarted instance) and connect it.

        Runs discord.py's real login: ``setup_hook`` (where the bot must register
        DynamicItems/persistent views and call ``tree.sync()``), READY, GUILD_CREATE,
        then settles. Returns the bot. Only one bot runs at a time; a new instance
        started after :meth:`stop_bot` sees the same world (messages, threads, commands).
        """
        self._require_open()
        if self._bot is not None:
            raise HarnessError("a bot is already running in this world; stop_bot() it first (or use restart_bot)")
        bot = factory() if callable(factory) and not isinstance(factory, discord.Client) else factory
        if not isinstance(bot, discord.Client):
            raise HarnessError(f"factory must return a discord.Client, got {type(bot).__name__}")
        env = self._env
        env.bot = bot
        try:
            await env.start()
        except TimeoutError as error:
            raise SettleTimeout(str(error)) from error
        finally:
            self._harvest_errors()
        self._bot = bot
        self._factory = factory
        self.bots_started += 1
        self._time_ctx = env.time_context()
        self._time_ctx.__enter__()
        return bot

    async def stop_bot(self, bot: discord.Client | None = None) -> None:
        """Settle, ``await bot.close()`` (cogs unload, the bot's own close() runs), then disconnect it."""
        if self._bot is None:
            return
        if bot is not None and bot is not self._bot:
            raise HarnessError("that bot is not the one running in this world")
        env = self._env
        try:
            try:
                await self.settle()
            except SettleTimeout as hang:
                # still stop cleanly (shutdown cancels the stuck work), but report it
                self._errors.add(BotError("harness", f"bot still busy when stopped: {hang}", hang))
            await self._bot.close()
        finally:
            if self._time_ctx is not None:
                try:
                    self._time_ctx.__exit__(None, None, None)
                except ValueError:  # context var token from another context (fixture teardown)
                    pass
                self._time_ctx = None
            await env.shutdown()
            self._bot = None
            self._harvest_errors()

    async def restart_bot(self, factory: BotFactory | discord.Client | None = None) -> discord.Client:
        """Stop the running bot and start a fresh instance against the same world
        (by default with the factory of the last start)."""
        factory = factory if factory is not None else self._factory
        if factory is None or isinstance(factory, discord.Client):
            raise HarnessError("restart_bot() needs a factory (the last bot was started from an instance)")
        await self.stop_bot()
        return await self.start_bot(factory)

    # ----------------------------------------------------------- persistence

    _JOURNAL_HOOKS = ("commit_message", "edit_message", "delete_message", "bulk_delete_messages", "delete_channel")

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the whole simulated Discord (guilds, channels, threads, members, messages with
        their history, commands, the clock) to ``path``, atomically: ``DiscordWorld(restore=path)``
        opens it again, e.g. in another process after the bot's process was killed, as the real
        Discord outlives a bot. Call it between actions (not while the bot works)."""
        self._require_open()
        backend = self._env.backend
        state = {k: v for k, v in backend.__dict__.items() if k not in (*self._JOURNAL_HOOKS, "subscribers")}
        data = {
            "backend": state,
            "journal": self._journal,
            "guilds": [g.id for g in self.guilds],
            "channel": self.channel.id,
            "members": [(m.name, m.id, m.guild_id, m.locale, m.admin) for m in self._members.values()],
            "admin_role": self._admin_role.id if self._admin_role is not None else None,
        }
        tmp = f"{os.fspath(path)}.tmp"
        with open(tmp, "wb") as f:
            pickle.dump(data, f)
        os.replace(tmp, path)

    def _load(self, path: str | os.PathLike[str]) -> None:
        """Restore what :meth:`save` wrote into this (just opened) world."""
        with open(path, "rb") as f:
            data = pickle.load(f)  # noqa: S301  # a file this harness wrote
        env = self._env
        backend = env.backend
        backend.__dict__.update(data["backend"])
        backend.subscribers = []
        self._journal = data["journal"]
        self._journal.attach(backend)
        handles = {gid: GuildHandle(env, backend.guilds[gid]) for gid in data["guilds"]}
        env._guilds.extend(handles.values())
        self._guild = handles[data["guilds"][0]]
        self.channel = Channel(self, ChannelHandle(env, self._guild, backend.channels[data["channel"]]))
        self._extra_guilds = [handles[gid] for gid in data["guilds"][1:]]
        for name, uid, gid, locale, admin in data["members"]:
            actor = MemberActor(env, handles[gid], UserHandle(env, backend.users[uid]))
            member = Member(self, actor, name, locale, admin)
            self._members[uid] = member
            self._by_name[name] = member
        if data["admin_role"] is not None:
            self._admin_role = RoleHandle(env, self._guild, backend.guilds[self._guild.id].roles[data["admin_role"]])

    # ----------------------------------------------------------- arrange

    def add_guild(self, name: str, *, id: int | None = None, shard: tuple[int, int] | None = None,
                  locale: str | None = None, channel_name: str = "general") -> Guild:
        """Add a guild with one text channel. ``shard=(shard_id, shard_count)`` gives it an id on
        that shard (``(id >> 22) % shard_count == shard_id``): a sharded bot receives its events
        only when it runs that shard, as from Discord's gateway. The first guild is the world's
        default (``world.channel``, ``world.guild_id``); members join one with ``member(guild=)``."""
        if self._env is None:
            raise HarnessError("use the world inside `async with DiscordWorld() as world:`")
        env = self._env
        if shard is not None and id is None:
            shard_id, count = shard
            if not 0 <= shard_id < count:
                raise HarnessError(f"shard {shard_id} is not between 0 and {count - 1}")
            model = env.backend.create_guild(name, shard_id=shard_id, shard_count=count,
                                             preferred_locale=locale or self.guild_locale)
            handle = GuildHandle(env, model)
            env._guilds.append(handle)
        else:
            handle = env.create_guild(name, id=id, preferred_locale=locale or self.guild_locale)
        guild = Guild(self, handle, Channel(self, handle.create_text_channel(channel_name)))
        if getattr(self, "_guild", None) is not None:
            self._extra_guilds.append(handle)
        return guild

    @property
    def guilds(self) -> list[Guild]:
        """Every guild of the world, the default one first."""
        out = []
        for handle in [self._guild, *self._extra_guilds]:
            channel = self.channel if handle is self._guild else next(
                Channel(self, c) for c in handle.channels.values() if not c.is_thread)
            out.append(Guild(self, handle, channel))
        return out

    def member(
        self,
        name: str,
        *,
        admin: bool = False,
        locale: str | None = None,
        permissions: discord.Permissions | None = None,
        nick: str | None = None,
        guild: Guild | None = None,
    ) -> Member:
        """Create the member ``name`` (or return it if it exists and no options differ).

        ``admin=True`` gives them a role with the Administrator permission.
        ``permissions`` adds a role with exactly those permissions on top of @everyone.
        ``locale`` is the Discord locale their client sends ("fr", "en-US", "de", ...).
        ``guild``: the guild they join (default: the world's first guild); their slash commands
        are typed in its channel unless ``channel=`` says otherwise.
        """
        self._require_open()
        existing = self._by_name.get(name)
        if existing is not None:
            if admin != existing.admin or (locale is not None and locale != existing.locale) or permissions or nick:
                raise HarnessError(f"member {name!r} already exists with other settings")
            return existing
        roles = []
        if admin:
            if self._admin_role is None:
                self._admin_role = self._guild.create_role(
                    "Admin", permissions=discord.Permissions(administrator=True)
                )
            roles.append(self._admin_role)
        if permissions is not None:
            roles.append(self._guild.create_role(f"{name}-perms", permissions=permissions))
        home = guild._handle if guild is not None else self._guild
        actor = home.add_member(self._env.create_user(name), roles=roles, nick=nick)
        member = Member(self, actor, name, locale or self.default_locale, admin)
        self._members[member.id] = member
        self._by_name[name] = member
        return member

    def text_channel(self, name: str) -> Channel:
        """Create another text channel."""
        self._require_open()
        return Channel(self, self._guild.create_text_channel(name))

    def allow_command(self, command: str, member: Member, allowed: bool = True) -> None:
        """Seed the per-user command permission override a guild admin could set in
        Server Settings > Integrations (lets a member see a ``default_permissions`` command,
        so the bot's own checks can be exercised). ``allowed=False`` hides it instead."""
        payload = self._command_payload(self._resolve_root(command, member)[0])
        self._guild.set_command_permissions(int(payload["id"]), {member._actor: allowed})

    def _home_channel(self, member: Member) -> Channel:
        """The default channel of the member's guild."""
        if member.guild_id == self._guild.id:
            return self.channel
        return next(g.channel for g in self.guilds if g.id == member.guild_id)

    def _locale_of(self, user_id: int) -> str:
        member = self._members.get(user_id)
        return member.locale if member is not None else self.default_locale

    # ----------------------------------------------------------- act

    async def slash(
        self,
        member: Member,
        command: str,
        *,
        channel: Channel | None = None,
        options: dict[str, Any] | None = None,
        **kw_options: Any,
    ) -> Outcome:
        """Invoke a synced slash command as ``member`` in ``channel`` (default: the world's channel).

        ``command`` is the name as the member types it: the canonical name, or its
        localisation for any locale (``"jouer"``), with subcommands space-separated
        (``"table join"``). Options by canonical name: str/int/float/bool as is,
        a :class:`Member` for user options, a :class:`Channel` for channel options,
        a ``(filename, bytes)`` tuple for attachment options (see :meth:`file`), and the
        choice *value* for options with choices. Use ``options={...}`` for option names
        that clash with this method's keywords (``channel``).
        """
        self._require_open()
        where = channel or self._home_channel(member)
        values = {**(options or {}), **kw_options}
        values = {k: self._to_sim(v) for k, v in values.items()}
        path = self._canonical_path(command, member)
        return await self._act(
            member,
            f"/{path}",
            lambda: member._actor.slash(where._handle, path, **values),
        )

    async def click(
        self,
        member: Member,
        message: MessageRef,
        custom_id: str | None = None,
        *,
        label: str | None = None,
    ) -> Outcome:
        """Click the button with ``custom_id`` (or ``label``) on ``message`` as ``member``."""
        self._require_open()
        target = self._sim_message(message)
        return await self._act(
            member,
            f"click {custom_id or label!r}",
            lambda: member._actor.click(target, custom_id=custom_id, label=label),
        )

    async def select(
        self,
        member: Member,
        message: MessageRef,
        custom_id: str | None,
        values: Sequence[Any],
    ) -> Outcome:
        """Choose ``values`` (option values; Members/Channels for entity selects) in a select menu."""
        self._require_open()
        target = self._sim_message(message)
        chosen = [self._to_sim(v) for v in values]
        return await self._act(
            member,
            f"select {custom_id!r}={list(values)!r}",
            lambda: member._actor.select(target, chosen, custom_id=custom_id),
        )

    async def submit_modal(self, member: Member, shown: Outcome, values: dict[str, Any]) -> Outcome:
        """Fill and submit the modal the bot answered ``shown`` with; ``values`` by field custom_id."""
        self._require_open()
        if shown.modal is None:
            raise ImpossibleAction(f"{shown!r} did not answer with a modal")
        return await self._act(
            member,
            f"submit modal {shown.modal.title!r}",
            lambda: member._actor.submit_modal(shown._result, dict(values)),
        )

    async def gather(self, *actions: Awaitable[Outcome]) -> list[Outcome]:
        """Dispatch several actions at the *same instant*, then settle once.

        Pass un-awaited action coroutines, e.g.
        ``await world.gather(world.click(alice, msg, "take"), world.click(bob, msg, "take"))``.
        Every INTERACTION_CREATE is fed before any handler runs, so the handlers race
        (interleaving at each HTTP call), as two members clicking together would.
        """
        self._require_open()
        if self._bursting:
            raise HarnessError("gather() cannot be nested")
        env = self._env
        real_settle = env._settle_internal

        async def no_settle(*_a: Any, **_k: Any) -> None:
            return None

        self._bursting = True
        self._burst = []
        outcomes: list[Outcome] = []
        env._settle_internal = no_settle
        try:
            for action in actions:
                outcomes.append(await action)
        finally:
            env._settle_internal = real_settle
            self._bursting = False
        await self.settle()
        for outcome in outcomes:
            self._check_ack(outcome)
        self._harvest_errors()
        return outcomes

    def file(self, filename: str, data: bytes | str) -> tuple[str, bytes]:
        """An attachment value for a slash option: ``world.file("setup.json", json.dumps(x))``."""
        return filename, data.encode() if isinstance(data, str) else bytes(data)

    async def autocomplete(
        self, member: Member, command: str, option: str, value: str, *, channel: Channel | None = None,
        **filled: Any,
    ) -> list[dict[str, Any]]:
        """Type ``value`` into the autocomplete option ``option`` of ``command`` (canonical or
        localised name, subcommands space-separated) as ``member``; returns the choices the bot
        offered (dicts with ``name`` and ``value``)."""
        self._require_open()
        if self._bot is None:
            raise HarnessError("no bot is running; call world.start_bot(factory) first")
        where = channel or self.channel
        path = self._canonical_path(command, member)
        try:
            choices = await member._actor.autocomplete(where._handle, path, option, value,
                                                       **{k: self._to_sim(v) for k, v in filled.items()})
        except SetupError as error:
            raise ImpossibleAction(str(error)) from error
        finally:
            self._harvest_errors()
        return list(choices)

    # ----------------------------------------------------------- Discord's lifecycle

    async def delete_thread(self, thread: Channel) -> None:
        """A moderator deletes a thread (or a channel): THREAD_DELETE (CHANNEL_DELETE) is sent;
        its messages are marked deleted in the journal. Settles."""
        self._require_open()
        self._env.backend.delete_channel(thread.id)
        await self.settle()

    async def archive_thread(self, thread: Channel, *, locked: bool = False) -> None:
        """A moderator archives (``locked=True``: also locks) a thread: THREAD_UPDATE. Settles."""
        self._require_open()
        meta = {"archived": True, "locked": locked} if locked else {"archived": True}
        self._env.backend.edit_channel(thread.id, {}, thread_metadata=meta)
        await self.settle()

    def thread_state(self, thread: Channel) -> dict[str, bool]:
        """``{"archived": …, "locked": …}`` of a thread as Discord holds it now."""
        meta = self._env.backend.get_channel(thread.id).thread_metadata
        return {"archived": bool(meta.archived), "locked": bool(meta.locked)}

    async def remove_member(self, member: Member) -> None:
        """``member`` leaves the server (GUILD_MEMBER_REMOVE; REST calls about them now 404). Settles."""
        self._require_open()
        self._guild.remove_member(member._actor)
        await self.settle()

    async def remove_bot(self) -> None:
        """The bot is removed from the server (kicked): GUILD_DELETE; the guild, its channels and
        threads are gone for it (REST calls about them fail). Settles."""
        self._require_open()
        self._env.backend.remove_guild(self._guild.id)
        await self.settle()

    def attachments(self, message: Msg) -> dict[str, bytes]:
        """The files attached to ``message`` now: ``{filename: bytes}`` (from the fake CDN)."""
        stored = self._env.backend.get_message(message.channel_id, message.id)
        return {a["filename"]: self._env.backend.cdn.get(a["url"]) for a in stored.attachments or []}

    def fail_requests(self, method: str, path: str, *, status: int = 500, code: int = 0, times: int | None = 1) -> None:
        """Make the bot's next ``times`` REST calls matching ``method`` and the fnmatch ``path``
        (e.g. ``"/channels/*/messages"``) fail with ``status``/``code`` (``times=None``: always)."""
        self._env.inject_error(method, path, status=status, code=code, times=times)

    # ----------------------------------------------------------- time

    async def settle(self, timeout: float | None = None) -> None:
        """Wait until the bot has no runnable work left (bounded; :class:`SettleTimeout` otherwise).

        Every action already settles; call this after poking the bot directly.
        """
        self._require_open()
        if self._bot is None:
            return
        try:
            await self._env.settle(timeout=timeout)
        except TimeoutError as error:
            raise SettleTimeout(str(error)) from error
        finally:
            self._harvest_errors()

    async def advance(self, seconds: float) -> None:
        """Move the simulated clock forward, firing the bot's due timers (``asyncio.sleep``,
        ``delete_after``, view timeouts, ``tasks.loop``) in order, and settle."""
        self._require_open()
        try:
            await self._env.advance_time(seconds)
        except TimeoutError as error:
            raise SettleTimeout(str(error)) from error
        finally:
            self._harvest_errors()

    def now(self) -> datetime:
        """The simulated UTC time (what ``discord.utils.utcnow()`` returns inside the bot)."""
        return self._env.now()

    # ----------------------------------------------------------- inspect

    @property
    def guild_id(self) -> int:
        return self._guild.id

    @property
    def members(self) -> list[Member]:
        return list(self._members.values())

    @property
    def messages(self) -> list[Msg]:
        """Every message ever posted (public and ephemeral, deleted included), oldest first."""
        return self._journal.all()

    def message(self, message_id: int) -> Msg:
        return self._journal.get(message_id)

    def channel_messages(self, channel: Channel | None = None, *, include_deleted: bool = False) -> list[Msg]:
        """Public (non-ephemeral) messages of a channel or thread, oldest first."""
        cid = (channel or self.channel).id
        return [
            m for m in self._journal.all()
            if m.channel_id == cid and m.public and (include_deleted or not m.deleted)
        ]

    def last_message(self, channel: Channel | None = None) -> Msg | None:
        msgs = self.channel_messages(channel)
        return msgs[-1] if msgs else None

    @property
    def threads(self) -> list[Channel]:
        """Every thread that exists in the guild, in creation order."""
        backend = self._env.backend
        handles = {h.id: h for h in [self._guild, *self._extra_guilds]}
        ids = sorted(cid for cid, ch in backend.channels.items() if ch.is_thread and ch.guild_id in handles)
        return [Channel(self, ChannelHandle(self._env, handles[backend.channels[cid].guild_id], backend.channels[cid]))
                for cid in ids]

    def thread_messages(self, thread: Channel, *, include_deleted: bool = False) -> list[Msg]:
        return self.channel_messages(thread, include_deleted=include_deleted)

    def ephemeral_for(self, member: Member, *, include_deleted: bool = False) -> list[Msg]:
        """Ephemeral messages addressed to ``member`` (every channel), oldest first."""
        return [
            m for m in self._journal.all()
            if m.ephemeral and m.viewer_id == member.id and (include_deleted or not m.deleted)
        ]

    def visible_to(self, member: Member, channel: Channel | None = None) -> list[Msg]:
        """What ``member`` sees in ``channel`` right now: public messages and their own ephemerals."""
        cid = (channel or self.channel).id
        return [
            m for m in self._journal.all()
            if m.channel_id == cid and not m.deleted and m.visible_to(member.id)
        ]

    def all_public_text(self) -> str:
        """All text anyone could ever have seen publicly: every version of every non-ephemeral
        message (deleted ones too) and every thread name, one item per line. For leak checks."""
        parts = [m.all_text() for m in self._journal.all() if m.public]
        parts += [t.name or "" for t in self.threads]
        return "\n".join(p for p in parts if p)

    def new_public_text(self) -> str:
        """The part of :meth:`all_public_text` that is new since the previous call: the message
        versions (new messages, edits; deleted messages included) and thread names not returned
        before. Leak checks in long games use it to read each version once."""
        parts = self._new_versions(None, [m for m in self._journal.all() if m.public])
        for thread in self.threads:
            if thread.id not in self._seen_threads:
                self._seen_threads.add(thread.id)
                parts.append(thread.name or "")
        return "\n".join(p for p in parts if p)

    def new_private_text(self, member: Member) -> str:
        """The part of :meth:`private_text_for` that is new since the previous call for ``member``."""
        parts = self._new_versions(member.id, self.ephemeral_for(member, include_deleted=True))
        return "\n".join(p for p in parts if p)

    def _new_versions(self, reader: int | None, msgs: list[Msg]) -> list[str]:
        parts: list[str] = []
        for m in msgs:
            key = (reader, m.id)
            seen = self._seen_versions.get(key, 0)
            if len(m.versions) > seen:
                parts += [v.text() for v in m.versions[seen:]]
                self._seen_versions[key] = len(m.versions)
        return parts

    def private_text_for(self, member: Member) -> str:
        """All text of every version of every ephemeral message addressed to ``member``."""
        return "\n".join(m.all_text() for m in self.ephemeral_for(member, include_deleted=True))

    def synced_commands(self) -> list[dict[str, Any]]:
        """The command payloads the bot synced (global then guild), as Discord stored them:
        name, description, options, name_localizations, default_member_permissions, id..."""
        backend = self._env.backend
        out = []
        for scope in (None, self._guild.id):
            out += [copy.deepcopy(c) for c in backend.commands.get(scope, {}).values()]
        return out

    def command(self, name: str) -> dict[str, Any]:
        """The synced payload of the top-level command ``name`` (canonical or localised)."""
        return self._command_payload(self._resolve_root(name, None)[0])

    @property
    def http_log(self) -> list[Any]:
        """Every REST/webhook request the bot made (entries with method, path, json)."""
        return list(self._env.http_requests)

    def conformance(self, *, since: int = 0, v2_only: bool = True) -> list[str]:
        """The breaches of Discord's rules and limits in the requests ``http_log[since:]``, one
        line each (:func:`tests.harness.conformance.violations`: V2 limits, only V2 layouts with
        ``v2_only``, no follow-up completing a defer, modal labels)."""
        return conformance.violations(self.http_log[since:], v2_only=v2_only)

    def bot_rest_calls(self, since: int = 0) -> list[Any]:
        """The REST requests the bot made on its own, from ``http_log[since:]``: everything but
        the answers to interactions (``/interactions/...`` callbacks and the interaction
        webhook's ``/webhooks/<app>/<token>...`` edits and follow-ups). Posting, editing and
        deleting channel messages, creating threads... are counted."""
        return [e for e in self.http_log[since:]
                if not e.path.startswith("/interactions/") and not e.path.startswith("/webhooks/")]

    @property
    def uploads(self) -> list[_patches.Upload]:
        """Every file the bot uploaded (messages, edits, interaction answers), oldest first."""
        return list(self._uploads)

    def attachment_bytes(self, attachment: dict[str, Any] | str) -> bytes:
        """The bytes of an attachment (a wire dict from ``Msg.attachments``, or its URL), from
        the simulated CDN. ``KeyError`` when nothing is stored there."""
        url = attachment if isinstance(attachment, str) else attachment["url"]
        data = self._env.backend.cdn.get(url)
        if data is None:
            raise KeyError(url)
        return bytes(data)

    def transcript(self) -> str:
        """Human-readable log of gateway events and HTTP calls, in order (for debugging)."""
        return self._env.transcript()

    # ----------------------------------------------------------- errors

    @property
    def errors(self) -> list[BotError]:
        """Errors collected so far and not consumed by :meth:`expect_errors`."""
        self._harvest_errors()
        return list(self._errors.pending)

    def expect_errors(self, *kinds: type[BaseException], match: str | None = None) -> ExpectedErrors:
        """``with world.expect_errors(ZeroDivisionError, match="boom") as caught:`` —
        errors produced inside the block that match (exception type anywhere in the
        cause chain, and/or regex on the message) are consumed; AssertionError if none."""
        return ExpectedErrors(self, tuple(kinds), match)

    def assert_no_errors(self) -> None:
        """Fail now (instead of at the end of the block) if the bot produced errors."""
        errs = self.errors
        if errs:
            raise BotErrorsReported("\n\n".join(e.format() for e in errs))

    # ----------------------------------------------------------- roles, overwrites, moderation

    def role_names(self, guild: Guild | None = None) -> list[str]:
        """The names of the roles of ``guild`` (default: the world's first guild), ``"@everyone"`` included."""
        home = guild._handle if guild is not None else self._guild
        return sorted(home.roles)

    def channel_with_overwrites(self, name: str, overwrites: dict[str | Member, discord.PermissionOverwrite]) -> Channel:
        """Create a text channel with permission overwrites, keyed by role name (``"@everyone"``,
        ``"Admin"``, …) or by :class:`Member`, e.g. ``{"@everyone":
        discord.PermissionOverwrite(create_public_threads=False)}``. Call :meth:`settle` before
        using it. Raises ``KeyError`` for an unknown role name."""
        self._require_open()
        targets: dict[Any, discord.PermissionOverwrite] = {}
        for who, overwrite in overwrites.items():
            targets[who._actor if isinstance(who, Member) else self._guild.roles[who]] = overwrite
        return Channel(self, self._guild.create_text_channel(name, overwrites=targets))

    async def delete_message(self, member: Member, message: MessageRef) -> None:
        """``member`` deletes a message (another's needs Manage Messages, e.g. an admin):
        MESSAGE_DELETE reaches the bot; the journal marks it deleted. Settles. Raises
        :class:`ImpossibleAction` when the message is already gone."""
        self._require_open()
        await member._actor.delete(self._sim_message(message))
        await self.settle()

    def bot_persistent_items(self) -> tuple[list[type], list[discord.ui.Item[Any]]]:
        """What the running bot's discord.py view store holds for later interactions:
        (the registered ``DynamicItem`` classes, the items of views bound to a message)."""
        if self.bot is None:
            raise HarnessError("no bot is running")
        store = self.bot._connection._view_store
        dynamic = list(store._dynamic_items.values())
        bound = [item for view in store._synced_message_views.values() for item in view.children]
        return dynamic, bound

    # ----------------------------------------------------------- internals

    def _require_open(self) -> None:
        if not self._open:
            raise HarnessError("use the world inside `async with DiscordWorld() as world:`")

    def _harvest_errors(self) -> None:
        env = self._env
        if env is None:
            return
        fresh = env.errors_since(self._sim_cursor)
        self._sim_cursor += len(fresh)
        for exc in fresh:
            self._errors.add_simulator(exc)

    def _check_ack(self, outcome: Outcome) -> None:
        if self.require_ack and not outcome.acknowledged:
            self._errors.add(
                BotError(
                    "harness",
                    f"interaction {outcome.label} by {outcome.member.name} was never acknowledged "
                    "(a real user would see 'This interaction failed')",
                    UnansweredInteraction(outcome.label),
                )
            )

    async def _act(self, member: Member, label: str, run: Callable[[], Awaitable[InteractionResult]]) -> Outcome:
        if self._bot is None:
            raise HarnessError("no bot is running; call world.start_bot(factory) first")
        if not isinstance(member, Member) or member.world is not self:
            raise HarnessError(f"{member!r} is not a member of this world")
        try:
            result = await run()
        except TimeoutError as error:
            self._harvest_errors()
            raise SettleTimeout(str(error)) from error
        except SetupError as error:
            self._harvest_errors()
            text = str(error)
            cls = CommandNotVisible if "is not visible to this user" in text else ImpossibleAction
            raise cls(text) from error
        except BackendError as error:  # e.g. a message that no longer exists
            self._harvest_errors()
            raise ImpossibleAction(str(error)) from error
        outcome = Outcome(self, member, result, label)
        if not self._bursting:
            self._check_ack(outcome)
            self._harvest_errors()
        return outcome

    def _to_sim(self, value: Any) -> Any:
        if isinstance(value, Member):
            return value._actor
        if isinstance(value, Channel):
            return value._handle
        return value

    def _sim_message(self, ref: MessageRef) -> ResponseMessage:
        if isinstance(ref, Outcome):
            msg = ref.response
            if msg is None:
                raise ImpossibleAction(f"{ref!r} has no response message to interact with")
        elif isinstance(ref, Msg):
            msg = ref
        else:
            msg = self._journal.get(int(ref))
        try:
            stored = self._env.backend.get_message(msg.channel_id, msg.id)
        except BackendError as error:
            raise ImpossibleAction(f"message {msg.id} no longer exists ({error})") from error
        return ResponseMessage(self._env, stored)

    # command-name resolution (localised names -> canonical)

    def _chat_commands(self) -> list[dict[str, Any]]:
        return [c for c in self.synced_commands() if int(c.get("type", 1)) == 1]

    @staticmethod
    def _match_name(node: dict[str, Any], typed: str, locale: str | None) -> int:
        """0 = no match, 3 = canonical, 2 = localisation for the member's locale, 1 = any localisation."""
        if node.get("name") == typed:
            return 3
        locs = node.get("name_localizations") or {}
        if locale is not None and locs.get(locale) == typed:
            return 2
        return 1 if typed in locs.values() else 0

    def _resolve_root(self, typed: str, member: Member | None) -> tuple[dict[str, Any], list[str]]:
        parts = typed.strip().lstrip("/").split()
        if not parts:
            raise ImpossibleAction("empty command name")
        locale = member.locale if member is not None else None
        scored = [(self._match_name(c, parts[0], locale), c) for c in self._chat_commands()]
        scored = [s for s in scored if s[0]]
        if not scored:
            known = sorted(c["name"] for c in self._chat_commands())
            raise ImpossibleAction(f"no synced slash command /{parts[0]} (synced: {known})")
        # a guild command shadows a global one of the same name
        scored.sort(key=lambda s: (s[0], s[1].get("guild_id") is not None), reverse=True)
        return scored[0][1], parts[1:]

    def _command_payload(self, root: dict[str, Any]) -> dict[str, Any]:
        return copy.deepcopy(root)

    def _canonical_path(self, typed: str, member: Member) -> str:
        root, rest = self._resolve_root(typed, member)
        path = [root["name"]]
        node = root
        for part in rest:
            subs = [o for o in node.get("options") or [] if int(o.get("type", 0)) in (1, 2)]
            scored = [(self._match_name(o, part, member.locale), o) for o in subs]
            scored = [s for s in scored if s[0]]
            if not scored:
                raise ImpossibleAction(f"/{' '.join(path)} has no subcommand {part!r}")
            node = max(scored, key=lambda s: s[0])[1]
            path.append(node["name"])
        return " ".join(path)
