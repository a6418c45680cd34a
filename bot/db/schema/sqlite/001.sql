-- 1: games, seats, the append-only action log, meta. A statement ends with ";" at the end of a line (outside $$ … $$).

CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE games (
    id                  INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id            INTEGER,
    channel_id          INTEGER NOT NULL,
    author_id           INTEGER NOT NULL,
    status              TEXT NOT NULL
                        CHECK (status IN ('open', 'running', 'over', 'cancelled')),
    seats_wanted        INTEGER NOT NULL,
    bots                INTEGER NOT NULL,
    variant             TEXT NOT NULL,
    seed                INTEGER NOT NULL,
    initial             TEXT,
    position            TEXT,
    turn_no             INTEGER NOT NULL DEFAULT 0,
    turn_start_seq      INTEGER NOT NULL DEFAULT 0,
    turn_start_position TEXT,
    last_seq            INTEGER NOT NULL DEFAULT 0,
    created_at          REAL NOT NULL,
    updated_at          REAL NOT NULL,
    last_activity       REAL NOT NULL,
    reminder_interval   REAL NOT NULL,
    reminder_limit      INTEGER NOT NULL,
    reminders_sent      INTEGER NOT NULL DEFAULT 0,
    idle_cancel_after   REAL NOT NULL,
    result              TEXT
);

CREATE UNIQUE INDEX games_one_active_per_channel
    ON games (channel_id) WHERE status IN ('open', 'running');

CREATE INDEX games_status ON games (status);

CREATE TABLE seats (
    game_id   INTEGER NOT NULL REFERENCES games (id),
    seat      INTEGER NOT NULL,
    user_id   INTEGER,
    display   TEXT NOT NULL,
    name      TEXT,
    is_ai     INTEGER NOT NULL DEFAULT 0,
    resigned  INTEGER NOT NULL DEFAULT 0,
    joined_at REAL NOT NULL,
    PRIMARY KEY (game_id, seat)
);

CREATE TABLE actions (
    game_id INTEGER NOT NULL REFERENCES games (id),
    seq     INTEGER NOT NULL,
    player  TEXT NOT NULL,
    user_id INTEGER,
    kind    TEXT NOT NULL CHECK (kind IN ('play', 'undo', 'resign')),
    action  TEXT NOT NULL,
    time    REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);

CREATE TRIGGER actions_append_only_update BEFORE UPDATE ON actions
BEGIN SELECT RAISE(ABORT, 'the actions log is append-only'); END;

CREATE TRIGGER actions_append_only_delete BEFORE DELETE ON actions
BEGIN SELECT RAISE(ABORT, 'the actions log is append-only'); END;
