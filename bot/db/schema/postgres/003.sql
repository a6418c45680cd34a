-- 3: finished games' results (for history, stats and ratings; bot.core.home), and the
-- indexes that find a player's games and a channel's or server's past games.

CREATE TABLE results (
    game_id     BIGINT PRIMARY KEY REFERENCES games (id),
    guild_id    BIGINT,
    channel_id  BIGINT NOT NULL,
    variant     TEXT NOT NULL,
    started_at  DOUBLE PRECISION NOT NULL,
    finished_at DOUBLE PRECISION NOT NULL
);

CREATE INDEX results_guild ON results (guild_id, finished_at, game_id);

CREATE TABLE result_seats (
    game_id  BIGINT NOT NULL REFERENCES results (game_id),
    seat     INTEGER NOT NULL,
    name     TEXT NOT NULL,
    user_id  BIGINT,
    display  TEXT NOT NULL,
    ai_level TEXT,
    score    INTEGER NOT NULL,
    rank     INTEGER NOT NULL,
    PRIMARY KEY (game_id, seat)
);

CREATE INDEX seats_user ON seats (user_id);

CREATE INDEX games_channel ON games (channel_id, id);

CREATE INDEX games_guild ON games (guild_id, id);
