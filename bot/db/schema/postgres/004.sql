-- 4: players' own settings (bot.core.home): turn notices by DM, away periods.

CREATE TABLE user_settings (
    user_id    BIGINT PRIMARY KEY,
    dm         BOOLEAN NOT NULL DEFAULT FALSE,
    dm_refused BOOLEAN NOT NULL DEFAULT FALSE,
    away_until DOUBLE PRECISION
);
