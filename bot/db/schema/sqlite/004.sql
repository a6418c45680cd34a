-- 4: players' own settings (bot.core.home): turn notices by DM, away periods.

CREATE TABLE user_settings (
    user_id    INTEGER PRIMARY KEY,
    dm         INTEGER NOT NULL DEFAULT 0,
    dm_refused INTEGER NOT NULL DEFAULT 0,
    away_until REAL
);
