-- Version 11: seasons. A server's leaderboard of a game is its current season's ratings; an
-- admin starts a new season (the one that ends keeps its ratings as its final standings, with
-- ended_at set). A guild and game with no seasons row are in season 1: every rating stored
-- before seasons existed is season 1. rating_history keeps a member's rating after each rated
-- result (the bot fills it in for older results by replaying them in order, bot/seasons.py).

CREATE TABLE seasons (
    guild_id INTEGER NOT NULL,
    game TEXT NOT NULL,
    season INTEGER NOT NULL,
    name TEXT,
    started_at REAL,
    ended_at REAL,
    PRIMARY KEY (guild_id, game, season)
);

ALTER TABLE ratings RENAME TO ratings_before_seasons;
CREATE TABLE ratings (
    guild_id INTEGER NOT NULL,
    game TEXT NOT NULL,
    user_id INTEGER NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    played INTEGER NOT NULL DEFAULT 0,
    won INTEGER NOT NULL DEFAULT 0,
    season INTEGER NOT NULL DEFAULT 1,
    PRIMARY KEY (guild_id, game, season, user_id)
);
INSERT INTO ratings (guild_id, game, user_id, mu, sigma, played, won, season)
    SELECT guild_id, game, user_id, mu, sigma, played, won, 1 FROM ratings_before_seasons;
DROP TABLE ratings_before_seasons;
CREATE INDEX ratings_member ON ratings (guild_id, user_id);

CREATE TABLE rating_history (
    table_id INTEGER NOT NULL REFERENCES results (table_id) ON DELETE CASCADE,
    user_id INTEGER NOT NULL,
    guild_id INTEGER NOT NULL,
    game TEXT NOT NULL,
    season INTEGER NOT NULL,
    mu REAL NOT NULL,
    sigma REAL NOT NULL,
    rated_at REAL NOT NULL,
    PRIMARY KEY (table_id, user_id)
);
CREATE INDEX rating_history_member ON rating_history (guild_id, game, user_id, season, rated_at);
