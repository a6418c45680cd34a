-- 9: the tutorial (/torres learn, bot.core.learn): one per user, its game as the
-- seed and the log of actions played (JSON), the lessons shown and tried (JSON lists),
-- and a version that each change raises (a tap on an older picture changes nothing).

CREATE TABLE tutorials (
    user_id    INTEGER PRIMARY KEY,
    seed_text  TEXT NOT NULL,
    log        TEXT NOT NULL,
    shown      TEXT NOT NULL,
    tried      TEXT NOT NULL,
    version    INTEGER NOT NULL,
    finished   INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
