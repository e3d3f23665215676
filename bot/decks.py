"""A guild's custom decks: stored per guild and game, chosen in a lobby by the option ``deck``,
and copied into a table's options (``deck_data``) when it starts, so that the table replays after
its deck is gone."""

from __future__ import annotations

from typing import Any

from bot.service import Hall, ServiceError
from storage.base import TableRow

__all__ = ["Decks"]


class Decks:
    """The custom decks of every guild of the process, in the hall's store.

    Args:
        hall: the tables' shared state (the store and the clock are read).
    """

    def __init__(self, hall: Hall) -> None:
        self.hall = hall

    async def save(self, guild_id: int, game: str, name: str, data: dict[str, Any], user_id: int,
                   max_decks: int = 24) -> int:
        """Store a validated custom deck for a guild (same name, ignoring case = replaced, its id
        kept: a lobby offering it still starts with it); returns its id.

        Raises ``err.too_many_decks`` when the guild already has ``max_decks`` others (the lobby
        select holds 25 options, the default deck included).
        """
        db = self.hall.db
        async with db.transaction():
            existing = await db.decks(guild_id, game)
            same = [i for i, n in existing if n.casefold() == name.casefold()]
            if len(existing) >= max_decks and not same:
                raise ServiceError("err.too_many_decks", max=max_decks)
            # names are matched ignoring case: "RUE DE LA PAIX" replaces "Rue de la Paix" (and any
            # other case of it an earlier version stored: those go, one deck keeps its id)
            for other in same[1:]:
                await db.delete_deck(guild_id, other)
            return await db.save_deck(guild_id, game, name, data, user_id, self.hall.clock.now(),
                                      deck_id=same[0] if same else None)

    async def of(self, guild_id: int, game: str) -> list[tuple[int, str]]:
        """A guild's custom decks for a game: ``(deck_id, name)``."""
        return await self.hall.db.decks(guild_id, game)

    async def get(self, guild_id: int, deck_id: int) -> dict[str, Any] | None:
        """A guild's deck data, or ``None``."""
        return await self.hall.db.deck(guild_id, deck_id)

    async def delete(self, guild_id: int, deck_id: int) -> bool:
        """Remove a guild's deck (tables already started keep their copy of the cards)."""
        return await self.hall.db.delete_deck(guild_id, deck_id)

    async def require(self, guild_id: int, deck_id: Any) -> dict[str, Any]:
        """The data of the guild's deck ``deck_id`` (an id as a lobby option holds it: an int or
        its text). Raises ``err.no_deck`` when there is none."""
        try:
            data = await self.hall.db.deck(guild_id, int(deck_id))
        except (TypeError, ValueError):
            data = None
        if data is None:
            raise ServiceError("err.no_deck")
        return data

    async def setup_options(self, row: TableRow) -> dict[str, Any]:
        """The options a table's ``setup`` gets: the stored ones plus the cards of a custom deck
        (``deck_data``). Raises ``err.no_deck`` when that deck is gone."""
        options = dict(row.options)
        if options.get("deck") not in (None, "default") and not options.get("deck_data"):
            options["deck_data"] = await self.require(row.guild_id, options["deck"])
        return options
