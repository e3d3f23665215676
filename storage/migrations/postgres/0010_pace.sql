-- Version 10: the pace of a table ('live' 60 s a turn, 'normal', 'relaxed' 1 h,
-- 'correspondence' 24 h), chosen in its lobby; NULL for tables stored before paces existed
-- (they keep the bot's TURN_TIMEOUT_SECONDS and the away rule). A member may mute the turn
-- pings of one table (muted, per seat).

ALTER TABLE game_tables ADD COLUMN pace TEXT CHECK (pace IN ('live', 'normal', 'relaxed', 'correspondence'));
ALTER TABLE seats ADD COLUMN muted BIGINT NOT NULL DEFAULT 0 CHECK (muted IN (0, 1));
CREATE INDEX seats_member ON seats (user_id) WHERE user_id IS NOT NULL;
