-- Version 7: a step's events ride in its action-log row (a JSON array, the first event's seq
-- beside it): a step then writes one B-tree and its index instead of two and two. Rows written
-- before keep their events in the events table (NULL here), which still takes the events
-- recorded outside a step (a table's opening events); readers merge both by seq.

ALTER TABLE actions ADD COLUMN event_seq INTEGER;
ALTER TABLE actions ADD COLUMN events TEXT;
