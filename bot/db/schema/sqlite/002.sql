-- 2: an outbox, so that a turn message committed with its turn is posted even
-- if the process dies before Discord has it.

CREATE TABLE outbox (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id    INTEGER NOT NULL REFERENCES games (id),
    created_at REAL NOT NULL,
    sent_at    REAL,
    payload    TEXT NOT NULL
);

CREATE INDEX outbox_unsent ON outbox (id) WHERE sent_at IS NULL;
