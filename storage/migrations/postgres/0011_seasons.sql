-- Version 11: seasons. A server's leaderboard of a game is its current season's ratings; an
-- admin starts a new season (the one that ends keeps its ratings as its final standings, with
-- ended_at set). A guild and game with no seasons row are in season 1: every rating stored
-- before seasons existed is season 1. rating_history keeps a member's rating after each rated
-- result (the bot fills it in for older results by replaying them in order, bot/seasons.py).

CREATE TABLE seasons (
    guild_id BIGINT NOT NULL,
    game TEXT NOT NULL,
    season BIGINT NOT NULL,
    name TEXT,
    started_at DOUBLE PRECISION,
    ended_at DOUBLE PRECISION,
    PRIMARY KEY (guild_id, game, season)
);

ALTER TABLE ratings ADD COLUMN season BIGINT NOT NULL DEFAULT 1;
ALTER TABLE ratings DROP CONSTRAINT ratings_pkey;
ALTER TABLE ratings ADD PRIMARY KEY (guild_id, game, season, user_id);
CREATE INDEX ratings_member ON ratings (guild_id, user_id);

CREATE TABLE rating_history (
    table_id BIGINT NOT NULL REFERENCES results (table_id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL,
    guild_id BIGINT NOT NULL,
    game TEXT NOT NULL,
    season BIGINT NOT NULL,
    mu DOUBLE PRECISION NOT NULL,
    sigma DOUBLE PRECISION NOT NULL,
    rated_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (table_id, user_id)
);
CREATE INDEX rating_history_member ON rating_history (guild_id, game, user_id, season, rated_at);
