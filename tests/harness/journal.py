"""The message journal: every message the simulated Discord ever held, with its history.

The simulator (simcord) keeps only the *current* state of each message and forgets
deleted ones. The journal hooks the four places where its backend mutates messages
(commit, edit, delete, bulk delete; plus channel deletion) and keeps, per message,
every version (content, embeds, components, flags) and a ``deleted`` mark.

Visibility: a message is *public* unless it carries the EPHEMERAL flag; an ephemeral
message is visible only to the user who triggered the interaction it answers
(``viewer_id``). That is exactly Discord's rule.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

EPHEMERAL = 1 << 6
LOADING = 1 << 7

_COMPONENT_KINDS = {
    1: "action_row",
    2: "button",
    3: "select",
    4: "text_input",
    5: "user_select",
    6: "role_select",
    7: "mentionable_select",
    8: "channel_select",
    10: "text_display",
    11: "thumbnail",
    12: "media_gallery",
    13: "file",
    14: "separator",
}
COMPONENTS_V2 = 1 << 15


@dataclass(frozen=True)
class Comp:
    """One interactive component, flattened out of its action row.

    ``kind`` is "button", "select", "user_select", ... ; ``options`` lists a string
    select's options as dicts (label, value, description, default).
    """

    kind: str
    custom_id: str | None
    label: str | None = None
    disabled: bool = False
    style: int | None = None
    url: str | None = None
    emoji: str | None = None
    placeholder: str | None = None
    options: tuple[dict[str, Any], ...] = ()
    row: int = 0

    @property
    def option_values(self) -> list[str]:
        return [o.get("value") for o in self.options]

    @property
    def option_labels(self) -> list[str]:
        return [o.get("label") for o in self.options]


_CONTAINERS = (1, 9, 17, 18)  # action row, section, container, label


def walk_components(rows: Iterable[dict[str, Any]]) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (top-level row index, leaf component) for every non-layout component, in display order."""

    def leaves(node: dict[str, Any]) -> Iterator[dict[str, Any]]:
        if node.get("type") in _CONTAINERS:
            for child in node.get("components") or []:
                yield from leaves(child)
            for key in ("accessory", "component"):
                if isinstance(node.get(key), dict):
                    yield from leaves(node[key])
        else:
            yield node

    for index, row in enumerate(rows or []):
        for leaf in leaves(row):
            yield index, leaf


def flatten_components(rows: Iterable[dict[str, Any]]) -> list[Comp]:
    out = []
    for index, c in walk_components(rows):
        emoji = c.get("emoji")
        emoji_text = None
        if isinstance(emoji, dict):
            emoji_text = emoji.get("name") if not emoji.get("id") else f"{emoji.get('name')}:{emoji.get('id')}"
        out.append(
            Comp(
                kind=_COMPONENT_KINDS.get(c.get("type"), f"type{c.get('type')}"),
                custom_id=c.get("custom_id"),
                label=c.get("label") if c.get("type") != 10 else c.get("content"),
                disabled=bool(c.get("disabled", False)),
                style=c.get("style"),
                url=c.get("url"),
                emoji=emoji_text,
                placeholder=c.get("placeholder"),
                options=tuple(copy.deepcopy(c.get("options") or [])),
                row=index,
            )
        )
    return out


def embed_text(embed: dict[str, Any]) -> list[str]:
    """Every human-readable string of an embed (title, description, fields, footer, author)."""
    parts = [embed.get("title"), embed.get("description")]
    for f in embed.get("fields") or []:
        parts += [f.get("name"), f.get("value")]
    parts.append((embed.get("footer") or {}).get("text"))
    parts.append((embed.get("author") or {}).get("name"))
    return [p for p in parts if p]


def components_text(rows: Iterable[dict[str, Any]]) -> list[str]:
    parts: list[str] = []
    for c in flatten_components(rows):
        parts += [c.label, c.placeholder]
        for o in c.options:
            parts += [o.get("label"), o.get("description")]
    return [p for p in parts if p]


def _card_of(box: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """A V2 container read back in the shape of an embed (``title``, ``description``, ``fields``,
    ``footer``, ``image``, ``color``), from the way :mod:`cogs.layout` writes a block: a
    ``### title`` heading and the description, ``**name**`` + value paragraphs, ``-#`` footer
    lines, a media gallery (its ``attachment://<name>`` URL, from the attachment it points at)."""
    card: dict[str, Any] = {"fields": []}
    if box.get("accent_color") is not None:
        card["color"] = box["accent_color"]
    for c in box.get("components") or []:
        kind = c.get("type")
        if kind == 12:
            media = (c.get("items") or [{}])[0].get("media") or {}
            name = names.get(str(media.get("attachment_id")))
            card["image"] = {"url": f"attachment://{name}" if name else media.get("url")}
        elif kind == 13:
            card.setdefault("files", []).append(names.get(str((c.get("file") or {}).get("attachment_id"))))
        elif kind == 10:
            text = c.get("content") or ""
            if text.startswith("### ") and "title" not in card:
                title, _, rest = text[4:].partition("\n")
                card["title"] = title
                if rest:
                    card["description"] = rest
            elif text.startswith("-# "):
                card["footer"] = {"text": "\n".join(line[3:] for line in text.splitlines())}
            elif text.startswith("**"):
                for para in text.split("\n\n**"):
                    head, _, value = para.lstrip("*").partition("\n")
                    card["fields"].append({"name": head.rstrip("*"), "value": value})
            else:
                card["description"] = (card.get("description", "") + "\n" + text).strip("\n")
    return card


@dataclass(frozen=True)
class Version:
    """One state of a message: what it showed between two edits."""

    seq: int
    content: str
    embeds: tuple[dict[str, Any], ...]
    raw_components: tuple[dict[str, Any], ...]
    flags: int
    attachments: tuple[dict[str, Any], ...] = ()

    @property
    def components(self) -> list[Comp]:
        return flatten_components(self.raw_components)

    @property
    def attachment_ids(self) -> tuple[str, ...]:
        """The ids of this version's attachments (a kept attachment keeps its id; a new upload
        gets a new one)."""
        return tuple(str(a.get("id")) for a in self.attachments)

    def attachment(self, filename: str) -> dict[str, Any] | None:
        """The attachment called ``filename`` (``id``, ``filename``, ``description``, ``size``,
        ``url``, ``content_type``), or ``None``."""
        return next((copy.deepcopy(a) for a in self.attachments if a.get("filename") == filename), None)

    @property
    def v2(self) -> bool:
        """Whether this version is a Components V2 message (the ``IS_COMPONENTS_V2`` flag)."""
        return bool(self.flags & COMPONENTS_V2)

    @property
    def cards(self) -> list[dict[str, Any]]:
        """The V2 containers, read back as embed-shaped dicts (``title``, ``description``,
        ``fields``, ``footer``, ``image``; see :func:`_card_of`)."""
        names = {str(a.get("id")): str(a.get("filename")) for a in self.attachments}
        return [_card_of(c, names) for c in self.raw_components if c.get("type") == 17]

    @property
    def image_urls(self) -> list[str]:
        """The image URLs of the embeds and of the V2 media galleries (``attachment://name`` for
        an uploaded picture)."""
        return [(e.get("image") or {}).get("url") for e in [*self.embeds, *self.cards]
                if (e.get("image") or {}).get("url")]

    def text(self) -> str:
        """Content + embed texts + component labels/placeholders/option labels, one per line."""
        parts = [self.content] if self.content else []
        for e in self.embeds:
            parts += embed_text(e)
        parts += components_text(self.raw_components)
        return "\n".join(parts)


@dataclass
class Msg:
    """A message as recorded by the journal. Live: later edits/deletion update it.

    Attributes: ``id``, ``channel_id``, ``author_id``, ``type`` (Discord message type),
    ``viewer_id`` (the only user who sees it when ephemeral, else None),
    ``interaction_id`` (the interaction it answers, if any), ``versions`` (every state,
    oldest first), ``deleted``.
    """

    id: int
    channel_id: int
    author_id: int
    type: int
    viewer_id: int | None
    interaction_id: int | None
    versions: list[Version] = field(default_factory=list)
    deleted: bool = False
    deleted_seq: int | None = None

    # -- current state --------------------------------------------------
    @property
    def current(self) -> Version:
        return self.versions[-1]

    @property
    def content(self) -> str:
        return self.current.content

    @property
    def embeds(self) -> list[dict[str, Any]]:
        """Embeds as Discord wire dicts (title, description, fields[{name,value,inline}], footer{text}, color...)."""
        return [copy.deepcopy(e) for e in self.current.embeds]

    @property
    def raw_components(self) -> list[dict[str, Any]]:
        return [copy.deepcopy(c) for c in self.current.raw_components]

    @property
    def components(self) -> list[Comp]:
        return self.current.components

    @property
    def buttons(self) -> list[Comp]:
        return [c for c in self.components if c.kind == "button"]

    @property
    def selects(self) -> list[Comp]:
        return [c for c in self.components if c.kind.endswith("select")]

    @property
    def custom_ids(self) -> list[str]:
        return [c.custom_id for c in self.components if c.custom_id]

    def component(self, custom_id: str) -> Comp:
        """The component with this exact custom_id (KeyError if absent)."""
        for c in self.components:
            if c.custom_id == custom_id:
                return c
        raise KeyError(f"message {self.id} has no component {custom_id!r}; has {self.custom_ids}")

    @property
    def attachments(self) -> list[dict[str, Any]]:
        """The current attachments as Discord wire dicts (``id``, ``filename``, ``description``,
        ``size``, ``url``, ``content_type``); read the bytes with ``world.attachment_bytes``."""
        return [copy.deepcopy(a) for a in self.current.attachments]

    def attachment(self, filename: str) -> dict[str, Any] | None:
        """The current attachment called ``filename``, or ``None``."""
        return self.current.attachment(filename)

    @property
    def image_urls(self) -> list[str]:
        """The current embeds' and media galleries' image URLs (``attachment://board.png`` for an
        uploaded picture)."""
        return self.current.image_urls

    @property
    def cards(self) -> list[dict[str, Any]]:
        """The current V2 containers as embed-shaped dicts (:attr:`Version.cards`)."""
        return self.current.cards

    @property
    def v2(self) -> bool:
        """Whether the message is now a Components V2 message."""
        return self.current.v2

    @property
    def flags(self) -> int:
        return self.current.flags

    @property
    def ephemeral(self) -> bool:
        return bool(self.versions[0].flags & EPHEMERAL)

    @property
    def public(self) -> bool:
        return not self.ephemeral

    @property
    def loading(self) -> bool:
        """True while this is a deferred "Bot is thinking..." placeholder."""
        return bool(self.flags & LOADING)

    # -- history ------------------------------------------------------------
    @property
    def edits(self) -> list[Version]:
        """Versions after the first one (one per edit)."""
        return self.versions[1:]

    @property
    def edited(self) -> bool:
        return len(self.versions) > 1

    def text(self) -> str:
        return self.current.text()

    def all_text(self) -> str:
        """Text of every version, oldest first."""
        return "\n".join(v.text() for v in self.versions)

    def visible_to(self, user_id: int | None) -> bool:
        return self.public or (user_id is not None and user_id == self.viewer_id)

    def __repr__(self) -> str:
        flags = []
        if self.ephemeral:
            flags.append(f"ephemeral->{self.viewer_id}")
        if self.deleted:
            flags.append("deleted")
        if self.edited:
            flags.append(f"edits={len(self.edits)}")
        return f"<Msg {self.id} ch={self.channel_id} {self.content[:40]!r} {' '.join(flags)}>"


@dataclass
class ChannelRecord:
    id: int
    name: str | None
    parent_id: int | None
    is_thread: bool
    deleted: bool = False


class Journal:
    """Hooks a simcord backend instance and records every message and thread.

    Only the backend *instance* is patched (instance attributes shadowing its
    methods), so nothing global changes and a second world gets its own journal.
    """

    def __init__(self) -> None:
        self.messages: dict[int, Msg] = {}
        self.order: list[int] = []
        self._seq = itertools.count(1)
        self.bot_user_id: int | None = None

    def attach(self, backend: Any) -> None:
        journal = self
        commit = backend.commit_message
        edit = backend.edit_message
        delete = backend.delete_message
        bulk = backend.bulk_delete_messages
        delete_channel = backend.delete_channel

        def commit_message(message: Any, *args: Any, **kwargs: Any) -> Any:
            result = commit(message, *args, **kwargs)
            stored = backend.messages.get(result.channel_id, {}).get(result.id)
            if stored is result:  # not blocked by auto-moderation
                journal._created(result)
            return result

        def edit_message(channel_id: int, message_id: int, fields: dict[str, Any]) -> Any:
            result = edit(channel_id, message_id, fields)
            journal._edited(result)
            return result

        def delete_message(channel_id: int, message_id: int) -> None:
            delete(channel_id, message_id)
            journal._deleted(message_id)

        def bulk_delete_messages(channel_id: int, message_ids: Iterable[int]) -> list[int]:
            gone = bulk(channel_id, message_ids)
            for mid in gone:
                journal._deleted(mid)
            return gone

        def delete_channel_(channel_id: int) -> None:
            doomed = [m.id for m in journal.messages.values() if m.channel_id == channel_id and not m.deleted]
            delete_channel(channel_id)
            for mid in doomed:
                journal._deleted(mid)

        backend.commit_message = commit_message
        backend.edit_message = edit_message
        backend.delete_message = delete_message
        backend.bulk_delete_messages = bulk_delete_messages
        backend.delete_channel = delete_channel_

    # -- recording ------------------------------------------------------------
    @staticmethod
    def _snapshot(seq: int, message: Any) -> Version:
        return Version(
            seq=seq,
            content=message.content or "",
            embeds=tuple(copy.deepcopy(message.embeds or [])),
            raw_components=tuple(copy.deepcopy(message.components or [])),
            flags=int(message.flags or 0),
            attachments=tuple(copy.deepcopy(list(message.attachments or []))),
        )

    def _created(self, message: Any) -> None:
        meta = message.interaction_metadata or {}
        viewer = None
        if message.flags & EPHEMERAL:
            uid = (meta.get("user") or {}).get("id")
            viewer = int(uid) if uid is not None else None
        record = Msg(
            id=message.id,
            channel_id=message.channel_id,
            author_id=message.author_id,
            type=int(message.type or 0),
            viewer_id=viewer,
            interaction_id=int(meta["id"]) if meta.get("id") is not None else None,
        )
        record.versions.append(self._snapshot(next(self._seq), message))
        self.messages[message.id] = record
        self.order.append(message.id)

    def _edited(self, message: Any) -> None:
        record = self.messages.get(message.id)
        if record is None:  # a message that predates the journal
            self._created(message)
            return
        record.versions.append(self._snapshot(next(self._seq), message))

    def _deleted(self, message_id: int) -> None:
        record = self.messages.get(message_id)
        if record is not None and not record.deleted:
            record.deleted = True
            record.deleted_seq = next(self._seq)

    # -- queries --------------------------------------------------------------
    def all(self) -> list[Msg]:
        return [self.messages[i] for i in self.order]

    def get(self, message_id: int) -> Msg:
        return self.messages[message_id]
