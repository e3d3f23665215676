-- Version 3: a member who went quiet is away; the AI plays their seat until they come back.

ALTER TABLE seats ADD COLUMN away BIGINT NOT NULL DEFAULT 0 CHECK (away IN (0, 1));
