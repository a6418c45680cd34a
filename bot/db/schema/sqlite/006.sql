-- 6: the game's language (public posts, the picture) and its computer players' level
-- (NULL: the bot's configured level), both chosen at /torres new.

ALTER TABLE games ADD COLUMN language TEXT NOT NULL DEFAULT 'en';

ALTER TABLE games ADD COLUMN ai_level TEXT;
