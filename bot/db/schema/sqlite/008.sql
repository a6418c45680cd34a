-- 8: a game in a thread of its own (issue 35): the channel its lobby card is in (NULL: the
-- game plays in its channel, ``channel_id``) and that card's message, edited through the game.

ALTER TABLE games ADD COLUMN lobby_channel_id INTEGER;

ALTER TABLE games ADD COLUMN lobby_message_id INTEGER;

CREATE INDEX games_lobby ON games (lobby_channel_id) WHERE status IN ('open', 'running');
