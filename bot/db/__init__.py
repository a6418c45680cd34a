"""Persistence only: row types and shared decoders (``rows``), the store contract
(``contract``), the SQLite and PostgreSQL stores and their schema files (``schema/``)."""
