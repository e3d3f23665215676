-- Version 6: the level of an AI seat ('easy', 'normal', 'strong'); NULL plays normal (seats
-- stored before levels existed).

ALTER TABLE seats ADD COLUMN ai_level TEXT;
