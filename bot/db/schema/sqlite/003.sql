-- 3: finished games' results (for history, stats and ratings; bot.core.home), and the
-- indexes that find a player's games and a channel's or server's past games.

CREATE TABLE results (
    game_id     INTEGER PRIMARY KEY REFERENCES games (id),
    guild_id    INTEGER,
    channel_id  INTEGER NOT NULL,
    variant     TEXT NOT NULL,
    started_at  REAL NOT NULL,
    finished_at REAL NOT NULL
);

CREATE INDEX results_guild ON results (guild_id, finished_at, game_id);

CREATE TABLE result_seats (
    game_id  INTEGER NOT NULL REFERENCES results (game_id),
    seat     INTEGER NOT NULL,
    name     TEXT NOT NULL,
    user_id  INTEGER,
    display  TEXT NOT NULL,
    ai_level TEXT,
    score    INTEGER NOT NULL,
    rank     INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
);

CREATE INDEX seats_user ON seats (user_id);

CREATE INDEX games_channel ON games (channel_id, id);

CREATE INDEX games_guild ON games (guild_id, id);
