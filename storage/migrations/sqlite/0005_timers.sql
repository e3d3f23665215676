-- Version 5: general persisted timers. A turn deadline is the timer 'turn:<table id>', its
-- payload the step version, both times and whether the reminder went out; the per-table
-- deadlines move there. The action and event logs' sequence counters are kept on the table
-- (no MAX(seq) per step). A seat's timeouts in a row survive a restart. Running tables are
-- found by status.

CREATE TABLE timers (
    key TEXT PRIMARY KEY,
    due REAL NOT NULL,
    payload TEXT NOT NULL DEFAULT '{}'
);
INSERT INTO timers (key, due, payload)
    SELECT 'turn:' || table_id, CASE WHEN reminded <> 0 OR act_at < remind_at THEN act_at ELSE remind_at END,
           json_object('version', version, 'remind_at', remind_at, 'act_at', act_at,
                       'reminded', json(CASE WHEN reminded <> 0 THEN 'true' ELSE 'false' END))
    FROM deadlines;
DROP TABLE deadlines;

ALTER TABLE game_tables ADD COLUMN action_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE game_tables ADD COLUMN event_seq INTEGER NOT NULL DEFAULT 0;
UPDATE game_tables SET
    action_seq = (SELECT COALESCE(MAX(seq), 0) FROM actions WHERE actions.table_id = game_tables.id),
    event_seq = (SELECT COALESCE(MAX(seq), 0) FROM events WHERE events.table_id = game_tables.id);

ALTER TABLE seats ADD COLUMN timeouts INTEGER NOT NULL DEFAULT 0;

CREATE INDEX game_tables_status ON game_tables (status);
