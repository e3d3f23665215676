-- Speakeasy's schema, version 1 (SQLite): tables, seats, action log, events, pending
-- simultaneous choices, deadlines, results, ratings.
-- Times are UNIX seconds (REAL); JSON values are compact JSON text.

CREATE TABLE game_tables (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id INTEGER NOT NULL,
    channel_id INTEGER NOT NULL,
    thread_id INTEGER,
    lobby_message_id INTEGER,
    board_message_id INTEGER,
    game TEXT NOT NULL,
    options TEXT NOT NULL DEFAULT '{}',
    status TEXT NOT NULL CHECK (status IN ('lobby', 'running', 'finished', 'abandoned')),
    host_user_id INTEGER NOT NULL,
    lang TEXT NOT NULL DEFAULT 'en',
    seed INTEGER,
    version INTEGER NOT NULL DEFAULT 0,
    state TEXT,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE INDEX game_tables_guild_status ON game_tables (guild_id, status);
CREATE INDEX game_tables_thread ON game_tables (thread_id);

CREATE TABLE seats (
    table_id INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    user_id INTEGER,
    name TEXT NOT NULL,
    is_ai INTEGER NOT NULL CHECK (is_ai IN (0, 1)),
    PRIMARY KEY (table_id, seat)
);
CREATE UNIQUE INDEX seats_user ON seats (table_id, user_id) WHERE user_id IS NOT NULL;

CREATE TABLE actions (
    table_id INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    version INTEGER NOT NULL,
    actions TEXT NOT NULL,
    source TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (table_id, seq)
);

CREATE TABLE events (
    table_id INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    version INTEGER NOT NULL,
    event TEXT NOT NULL,
    PRIMARY KEY (table_id, seq)
);

CREATE TABLE pending (
    table_id INTEGER NOT NULL REFERENCES game_tables (id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    version INTEGER NOT NULL,
    code TEXT NOT NULL,
    PRIMARY KEY (table_id, seat)
);

CREATE TABLE deadlines (
    table_id INTEGER PRIMARY KEY REFERENCES game_tables (id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    remind_at REAL NOT NULL,
    act_at REAL NOT NULL,
    reminded INTEGER NOT NULL DEFAULT 0
);

CREATE TABLE results (
    table_id INTEGER PRIMARY KEY REFERENCES game_tables (id) ON DELETE CASCADE,
    guild_id INTEGER NOT NULL,
    game TEXT NOT NULL,
    finished_at REAL NOT NULL,
    outcome TEXT NOT NULL
);

CREATE TABLE result_seats (
    table_id INTEGER NOT NULL REFERENCES results (table_id) ON DELETE CASCADE,
    seat INTEGER NOT NULL,
    user_id INTEGER,
    rank INTEGER NOT NULL,
    score INTEGER NOT NULL,
    PRIMARY KEY (table_id, seat)
);

CREATE TABLE ratings (
    guild_id INTEGER NOT NULL,
    game TEXT NOT NULL,
    user_id INTEGER NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    played INTEGER NOT NULL DEFAULT 0,
    won INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (guild_id, game, user_id)
);
