-- Version 8: a table's turn deadline (the timer 'turn:<table id>') is kept in the table's own
-- row, so a step that moves it writes no timers row; the stored ones move there.

ALTER TABLE game_tables ADD COLUMN turn_due DOUBLE PRECISION;
ALTER TABLE game_tables ADD COLUMN turn_timer TEXT;
UPDATE game_tables g SET turn_due = tm.due, turn_timer = tm.payload
    FROM timers tm WHERE tm.key = 'turn:' || g.id;
DELETE FROM timers
    WHERE CAST(CASE WHEN key ~ '^turn:[0-9]{1,18}$' THEN substr(key, 6) END AS BIGINT) IN (SELECT id FROM game_tables);
