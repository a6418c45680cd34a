-- 9: the tutorial (/torres learn, bot.core.learn): one per user, its game as the
-- seed and the log of actions played (JSON), the lessons shown and tried (JSON lists),
-- and a version that each change raises (a tap on an older picture changes nothing).

CREATE TABLE tutorials (
    user_id    BIGINT PRIMARY KEY,
    seed_text  TEXT NOT NULL,
    log        TEXT NOT NULL,
    shown      TEXT NOT NULL,
    tried      TEXT NOT NULL,
    version    INTEGER NOT NULL,
    finished   BOOLEAN NOT NULL DEFAULT FALSE,
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL
);
