"""The statement guard: one read-only query, parsed with sqlglot and checked against an allow-list."""

from __future__ import annotations

import logging

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from groundsql.errors import RefusedStatement

logging.getLogger("sqlglot").setLevel(logging.ERROR)

#: Statement roots a query may have.
ALLOWED_ROOTS = (exp.Select, exp.SetOperation, exp.Subquery, exp.Values)

#: Nodes that write, change schema or session state, or reach outside the database.
FORBIDDEN_NODES: tuple[type[exp.Expression], ...] = tuple(
    node
    for node in (
        getattr(exp, name, None)
        for name in (
            "Insert", "Update", "Delete", "Merge", "Create", "Drop", "Alter", "AlterColumn", "TruncateTable",
            "Command", "Pragma", "Attach", "Detach", "Copy", "Set", "Use", "Transaction", "Commit",
            "Rollback", "LoadData", "Grant", "Revoke", "Into", "Install", "Lock", "Analyze", "Refresh",
        )
    )
    if node is not None
)

#: Functions with side effects or access to files, the network, the server or other sessions.
FORBIDDEN_FUNCTIONS = frozenset(
    {
        # SQLite
        "load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "zipfile", "sqlar_uncompress",
        # DuckDB
        "read_csv", "read_csv_auto", "read_parquet", "parquet_scan", "read_json", "read_json_auto",
        "read_json_objects", "read_ndjson", "read_ndjson_auto", "read_text", "read_blob", "glob", "sniff_csv",
        "parquet_metadata", "parquet_schema", "iceberg_scan", "delta_scan", "sqlite_scan", "postgres_scan",
        "mysql_scan", "query_table", "query", "install_extension", "load", "csv_scan", "read_xlsx",
        "duckdb_secrets", "getenv",
        # PostgreSQL
        "pg_read_file", "pg_read_binary_file", "pg_ls_dir", "pg_stat_file", "lo_import", "lo_export",
        "lo_get", "lo_put", "lo_create", "lo_unlink", "dblink", "dblink_exec", "set_config", "nextval",
        "setval", "pg_sleep", "pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf",
        "pg_rotate_logfile", "pg_advisory_lock", "pg_advisory_xact_lock", "pg_try_advisory_lock",
        "pg_notify", "txid_current", "pg_switch_wal", "pg_create_restore_point", "query_to_xml",
        # MySQL / MariaDB
        "load_file", "sleep", "benchmark", "get_lock", "release_lock", "sys_exec", "sys_eval",
    }
)

FILE_LIKE_SUFFIXES = (".csv", ".parquet", ".json", ".jsonl", ".ndjson", ".tsv", ".txt", ".gz", ".xlsx")


def check_statement(sql: str, dialect: str) -> exp.Expression:
    """Parse `sql` and make sure it is exactly one read-only query.

    Args:
        sql: the statement as written (a trailing semicolon is fine).
        dialect: the sqlglot dialect of the target engine.

    Returns:
        The parsed statement.

    Raises:
        RefusedStatement: the statement is empty, unparsable, not a single read-only query, or calls a
            function with side effects.
    """
    text = (sql or "").strip()
    if not text.strip(";").strip():
        raise RefusedStatement("refused: the statement is empty")
    try:
        statements = [s for s in sqlglot.parse(text, read=dialect) if s is not None]
    except (ParseError, TokenError) as exc:
        first = str(exc).splitlines()[0]
        raise RefusedStatement(f"refused: cannot parse the statement ({first})") from None
    if len(statements) != 1:
        raise RefusedStatement(f"refused: expected one statement, found {len(statements)}")
    statement = statements[0]
    inner = _unwrap_explain(statement, dialect)
    _check_tree(inner if inner is not None else statement, dialect)
    return statement


def _unwrap_explain(statement: exp.Expression, dialect: str) -> exp.Expression | None:
    """EXPLAIN [QUERY PLAN] <query> is allowed; EXPLAIN ANALYZE runs the query, so it is not."""
    if not (isinstance(statement, exp.Command) and str(statement.this).upper() == "EXPLAIN"):
        return None
    rest = statement.expression.name if statement.expression is not None else ""
    words = rest.split(None, 2)
    if len(words) >= 2 and words[0].upper() == "QUERY" and words[1].upper() == "PLAN":
        rest = rest.split(None, 2)[2] if len(words) == 3 else ""
    if rest.strip().upper().startswith(("ANALYZE", "ANALYSE", "(")):
        raise RefusedStatement("refused: EXPLAIN ANALYZE executes the statement; use plain EXPLAIN")
    try:
        inner = sqlglot.parse(rest, read=dialect)
    except ParseError:
        raise RefusedStatement("refused: cannot parse the statement after EXPLAIN") from None
    if len(inner) != 1 or inner[0] is None:
        raise RefusedStatement("refused: EXPLAIN takes exactly one query")
    return inner[0]


def _check_tree(statement: exp.Expression, dialect: str) -> None:
    root = statement
    if isinstance(root, exp.With):  # some dialects attach WITH at the root
        root = root.this
    if not isinstance(root, ALLOWED_ROOTS):
        kind = type(root).__name__.upper()
        raise RefusedStatement(f"refused: only read-only queries (SELECT/WITH) may run, not {kind}")
    for node in statement.walk():
        if isinstance(node, FORBIDDEN_NODES):
            raise RefusedStatement(
                f"refused: the query contains a {type(node).__name__.upper()} clause, which is not read-only"
            )
        if isinstance(node, exp.Func):
            name = (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()
            if name in FORBIDDEN_FUNCTIONS:
                raise RefusedStatement(f"refused: function {name}() has side effects or reads files")
        if isinstance(node, exp.Select) and node.args.get("locks"):
            raise RefusedStatement("refused: row locks (FOR UPDATE/SHARE) are not allowed")
        if dialect == "duckdb" and isinstance(node, exp.Table) and _names_a_file(node):
            raise RefusedStatement(f"refused: reading files ({node.name}) is not allowed")


def _names_a_file(table: exp.Table) -> bool:
    name = table.name.lower()
    return "/" in name or "\\" in name or name.endswith(FILE_LIKE_SUFFIXES) or "://" in name
