-- Version 9: each server's own settings (/settings). A NULL column means "the bot's default"
-- (its environment variable, see .env.example); lists are compact JSON text. The web pages'
-- setting ('off', 'private': signed links only, 'public') and the secret the links are signed
-- with (rotated by the admin; web_secret_at is when it was last made). Every change is logged
-- in guild_settings_log with who made it.

CREATE TABLE guild_settings (
    guild_id INTEGER PRIMARY KEY,
    games TEXT,
    channels TEXT,
    pace TEXT CHECK (pace IN ('live', 'normal', 'relaxed', 'correspondence')),
    min_games INTEGER,
    pictures INTEGER CHECK (pictures IN (0, 1)),
    ai_levels TEXT,
    monthly_seasons INTEGER NOT NULL DEFAULT 0 CHECK (monthly_seasons IN (0, 1)),
    web TEXT NOT NULL DEFAULT 'off' CHECK (web IN ('off', 'private', 'public')),
    web_secret TEXT NOT NULL DEFAULT '',
    web_secret_at REAL,
    updated_at REAL NOT NULL,
    updated_by INTEGER
);

CREATE TABLE guild_settings_log (
    guild_id INTEGER NOT NULL,
    changed_at REAL NOT NULL,
    user_id INTEGER,
    field TEXT NOT NULL,
    value TEXT
);
CREATE INDEX guild_settings_log_guild ON guild_settings_log (guild_id, changed_at);
