-- 5: clocks: a time per turn (NULL: none), after which the computer plays the turn.

ALTER TABLE games ADD COLUMN turn_seconds REAL;
