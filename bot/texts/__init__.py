"""Every word a user reads: the catalogs' speaker (``i18n``), the game's posts (``posts``),
the rules' topics (``rules``) and the engine's refusals in words (``refusals``), summaries and reviews (``review``).

Imports only engine, renderer and bot.db."""
