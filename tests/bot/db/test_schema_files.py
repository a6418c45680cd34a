"""The SQLite and PostgreSQL schema files (bot/db/schema/) describe the same schema.

Both stores migrate step by step to the same version numbers; a step that adds a
column in one dialect and not the other would make the two stores answer differently.
"""

import re

import pytest

from bot.db.rows import NEW_GAME_COLUMNS, TABLES, migrations, split_sql

_CREATE = re.compile(r"CREATE TABLE (\w+) \((.*)\)\s*$", re.S)
_ADD = re.compile(r"ALTER TABLE (\w+) ADD COLUMN (\w+)")
_INDEX = re.compile(r"CREATE (?:UNIQUE )?INDEX (\w+) ON (\w+)")
_NOT_A_COLUMN = ("PRIMARY", "CHECK", "UNIQUE", "FOREIGN", "CONSTRAINT")


def _shape(step: list[str]) -> set[tuple[str, ...]]:
    """What a step makes: tables with their columns, added columns, indexes."""
    made: set[tuple[str, ...]] = set()
    for statement in step:
        one_line = " ".join(statement.split())
        if m := _CREATE.match(statement.strip()):
            columns = tuple(
                line.split()[0]
                for line in m.group(2).splitlines()
                if line.strip() and not line.split()[0].startswith(_NOT_A_COLUMN)
            )
            made.add(("table", m.group(1), *columns))
        elif m := _ADD.match(one_line):
            made.add(("column", m.group(1), m.group(2)))
        elif m := _INDEX.match(one_line):
            made.add(("index", m.group(1), m.group(2)))
    return made


def test_both_dialects_have_the_same_steps_with_the_same_tables_columns_and_indexes():
    sqlite, postgres = migrations("sqlite"), migrations("postgres")
    assert len(sqlite) == len(postgres) == 9
    for version, (a, b) in enumerate(zip(sqlite, postgres, strict=True), 1):
        assert _shape(a) == _shape(b), f"schema step {version} differs"
        assert _shape(a), f"schema step {version} makes nothing"


@pytest.mark.parametrize("dialect", ["sqlite", "postgres"])
def test_the_column_list_is_what_the_schema_files_make(dialect):
    """bot.db.rows.TABLES (which bot.core.migrate copies) names every column of every table."""
    columns: dict[str, set[str]] = {}
    for step in migrations(dialect):
        for item in _shape(step):
            if item[0] == "table":
                columns[item[1]] = set(item[2:])
            elif item[0] == "column":
                columns[item[1]].add(item[2])
    assert columns == {table: set(names) for table, names in TABLES.items()}
    assert set(NEW_GAME_COLUMNS) < columns["games"] and "seed_text" in NEW_GAME_COLUMNS


def test_the_first_step_makes_the_tables_every_later_step_builds_on():
    tables = {item[1] for item in _shape(migrations("sqlite")[0]) if item[0] == "table"}
    assert tables == {"meta", "games", "seats", "actions"}
    games = next(i for i in _shape(migrations("postgres")[0]) if i[:2] == ("table", "games"))
    assert games[2:5] == ("id", "guild_id", "channel_id") and games[-1] == "result"


def test_statements_end_at_a_semicolon_outside_a_function_body():
    text = """-- a comment

CREATE TABLE t (
    a INTEGER
);

CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'no';
END
$$;
CREATE TRIGGER x BEFORE DELETE ON t BEGIN SELECT RAISE(ABORT, 'no'); END;
"""
    statements = split_sql(text)
    assert statements[0] == "CREATE TABLE t (\n    a INTEGER\n)"
    assert statements[1].startswith("CREATE FUNCTION") and statements[1].endswith("END\n$$")
    assert statements[2].endswith("'no'); END")
    assert len(statements) == 3


def test_a_statement_without_its_semicolon_is_refused():
    with pytest.raises(RuntimeError, match="does not end with ';'"):
        split_sql("CREATE TABLE t (a INTEGER)\n")
