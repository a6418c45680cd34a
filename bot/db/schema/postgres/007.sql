-- 7: seeds of 128 bits do not fit the 64-bit BIGINT ``seed``: ``seed_text`` holds
-- the seed exactly (see bot.db.rows.seed_columns).

ALTER TABLE games ADD COLUMN seed_text TEXT;
