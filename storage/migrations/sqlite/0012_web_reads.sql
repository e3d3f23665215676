-- Version 12: indexes for the web pages' reads: a member's results and names (by user id), a
-- server's results of a game in order (the rating history, the pages' cache keys).

CREATE INDEX result_seats_user ON result_seats (user_id, table_id);
CREATE INDEX results_guild_game ON results (guild_id, game, finished_at);
CREATE INDEX seats_user_id ON seats (user_id) WHERE user_id IS NOT NULL;
