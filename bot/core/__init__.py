"""The Discord-free services: games (``service``), the panel (``panel``), the home's reads and
ratings (``home``), computer players (``workers``), the outbox and its batching, settings, the score chart and turn reviews (``review``).

Imports engine, renderer, bot.db and bot.texts; never discord."""
