-- Version 4: the rules version a table was set up under; tables stored before versions were
-- recorded were all set up under rules 1.

ALTER TABLE game_tables ADD COLUMN rules_version INTEGER NOT NULL DEFAULT 1;
