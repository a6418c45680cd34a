"""The Discord-free services: games (``service``), the panel (``panel``), the home's reads and
ratings (``home``), computer players (``workers``), the outbox and its batching, settings.

Imports engine, renderer, bot.db and bot.texts; never discord."""
