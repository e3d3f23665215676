-- Version 8: a table's turn deadline (the timer 'turn:<table id>') is kept in the table's own
-- row, so a step that moves it writes no timers row; the stored ones move there.

ALTER TABLE game_tables ADD COLUMN turn_due REAL;
ALTER TABLE game_tables ADD COLUMN turn_timer TEXT;
UPDATE game_tables SET
    turn_due = (SELECT tm.due FROM timers tm WHERE tm.key = 'turn:' || game_tables.id),
    turn_timer = (SELECT tm.payload FROM timers tm WHERE tm.key = 'turn:' || game_tables.id)
    WHERE EXISTS (SELECT 1 FROM timers tm WHERE tm.key = 'turn:' || game_tables.id);
DELETE FROM timers WHERE CAST(CASE WHEN rtrim(key, '0123456789') = 'turn:' AND length(key) > 5
                                   THEN substr(key, 6) END AS INTEGER) IN (SELECT id FROM game_tables);
