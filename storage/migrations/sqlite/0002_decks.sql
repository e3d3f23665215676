-- Version 2: per-guild custom decks (Shop Battle); data is the deck as JSON.

CREATE TABLE decks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id INTEGER NOT NULL,
    game TEXT NOT NULL,
    name TEXT NOT NULL,
    data TEXT NOT NULL,
    created_by INTEGER NOT NULL,
    created_at REAL NOT NULL,
    UNIQUE (guild_id, game, name)
);
