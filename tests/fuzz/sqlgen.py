"""A grammar-based SQL generator for fuzzing the guard: seeded, reproducible, per dialect.

Queries are built as sqlglot expression trees (selects, joins, nested subqueries, CTEs, set operations,
window and aggregate functions, CASE, casts) and rendered in each engine's dialect, so the same statement can
be compared across engines. Around them the generator writes what the guard must refuse or bound: writes, DDL,
utility and session statements, data-modifying CTEs, locks, system catalogs, other databases and schemas, file
readers, the engine's own functions (its catalogue, read from the engine where it can be), comments of every
kind, odd quoting and whitespace, and stacked statements. A statement is a `Case`: its number, its kind and,
per dialect, its text. The same (seed, number) always gives the same case.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp

#: The shop tables every engine holds (tests/security/harness.py), with their columns and kinds.
SHOP: dict[str, dict[str, str]] = {
    "customers": {"id": "int", "name": "text", "region": "text", "segment": "text", "signup_date": "date",
                  "email": "text"},
    "products": {"id": "int", "name": "text", "category": "text", "price": "num"},
    "orders": {"id": "int", "customer_id": "int", "order_date": "date", "status": "text", "total": "num"},
    "order_items": {"order_id": "int", "product_id": "int", "quantity": "int", "unit_price": "num"},
    "events": {"id": "int", "customer_id": "int", "kind": "text", "payload": "text"},
}

DIALECTS = ("sqlite", "duckdb", "postgres", "mysql", "spark")

#: Relations outside the connected database, per dialect: catalogs, other databases and schemas, files.
FOREIGN_RELATIONS: dict[str, list[str]] = {
    "common": ["information_schema.tables", "information_schema.columns", "groundsql_canary_db.secret",
               "secret_schema.secret", "other.secret", "canary.secret", "INFORMATION_SCHEMA.SCHEMATA"],
    "sqlite": ["sqlite_master", "sqlite_schema", "main.sqlite_master", "temp.sqlite_master", "sqlite_temp_master",
               "sqlite_sequence", "pragma_table_info('orders')", "pragma_database_list", "other.customers",
               "sqlite_dbpage", "fts5vocab"],
    "duckdb": ["duckdb_settings()", "duckdb_tables()", "duckdb_databases()", "duckdb_secrets()", "pg_catalog.pg_class",
               "read_csv('SECRET_FILE')", "read_text('SECRET_FILE')", "'SECRET_FILE'", "read_blob('SECRET_FILE')",
               "glob('/tmp/*')", "system.main.duckdb_tables", "temp.main.x", "other.main.secret",
               "pragma_database_list", "read_parquet('SECRET_FILE')", "sniff_csv('SECRET_FILE')",
               "which_secret('s3://x', 's3')", "duckdb_extensions()", "test_all_types()"],
    "postgres": ["pg_catalog.pg_authid", "pg_authid", "pg_shadow", "pg_roles", "pg_stat_activity", "pg_settings",
                 "pg_catalog.pg_proc", "pg_file_settings", "pg_hba_file_rules", "pg_stat_statements",
                 "pg_ls_dir('.')", "pg_read_file('PG_VERSION')", "pg_largeobject", "dblink('x', 'y')",
                 "pg_stat_file('SECRET_FILE')", "pg_user_mappings", "pg_temp.x", "public.pg_class",
                 "groundsql_canary_db.public.secret", "pg_toast.pg_toast_1262", "pg_available_extensions()"],
    "mysql": ["mysql.user", "mysql.db", "performance_schema.threads", "performance_schema.events_statements_current",
              "information_schema.processlist", "sys.session", "mysql.global_priv", "information_schema.user_privileges",
              "information_schema.global_variables", "sys.x$processlist", "DUAL", "`mysql`.`user`",
              "mysql . user", "information_schema.innodb_sys_tables"],
    "spark": ["global_temp.groundsql_secret", "default.secret", "spark_catalog.groundsql_canary_db.secret",
              "parquet.`SECRET_DIR`", "text.`SECRET_FILE`", "csv.`SECRET_FILE`", "json.`/etc/passwd`",
              "`file:SECRET_FILE`", "range(10)", "system.information_schema.tables", "IDENTIFIER('default.x')"],
}

#: Engine functions the guard must refuse (side effects, files, settings, sessions), per dialect.
DANGEROUS_FUNCTIONS: dict[str, list[str]] = {
    "common": ["sleep", "pg_sleep", "load_extension", "readfile", "writefile", "current_setting", "set_config",
               "version", "user", "current_user", "session_user", "database", "getenv", "system", "shell",
               "load_file", "benchmark", "get_lock", "nextval", "setval", "lo_import", "lo_export", "edit",
               "fts3_tokenizer", "sqlite_version", "uuid_generate_v4", "random_bytes", "txid_current"],
    "sqlite": ["load_extension", "readfile", "writefile", "edit", "fts3_tokenizer", "sqlite_compileoption_get",
               "sqlite_offset", "zeroblob", "randomblob", "changes", "last_insert_rowid", "total_changes",
               "sqlite_source_id", "likelihood", "unlikely", "fts5", "json_each", "json_tree", "generate_series"],
    "duckdb": ["getenv", "read_text", "read_blob", "read_csv", "read_csv_auto", "read_parquet", "read_json",
               "glob", "current_setting", "duckdb_secrets", "which_secret", "sql_auto_complete", "query",
               "query_table", "nextval", "currval", "pg_typeof", "version", "icu_sort_key", "from_substrait",
               "get_substrait", "json_execute_serialized_sql", "json_deserialize_sql", "current_user",
               "enum_range", "unnest", "range", "error", "checkpoint", "force_checkpoint", "txid_current",
               "current_query", "in_search_path", "list_pack", "sleep_ms", "repeat", "set_bit"],
    "postgres": ["pg_read_file", "pg_read_binary_file", "pg_ls_dir", "pg_stat_file", "pg_sleep", "pg_terminate_backend",
                 "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile", "pg_stat_reset", "pg_promote",
                 "pg_advisory_lock", "pg_try_advisory_lock", "pg_advisory_xact_lock", "lo_import", "lo_export",
                 "lo_from_bytea", "lo_put", "dblink", "dblink_exec", "set_config", "current_setting", "nextval",
                 "setval", "txid_current", "pg_current_wal_lsn", "pg_switch_wal", "pg_backend_pid",
                 "pg_notify", "pg_logical_emit_message", "query_to_xml", "table_to_xml", "xpath",
                 "pg_get_userbyid", "inet_server_addr", "current_database", "pg_postmaster_start_time",
                 "pg_ls_logdir", "pg_ls_waldir", "pg_stat_get_activity", "has_table_privilege",
                 "pg_create_restore_point", "pg_export_snapshot", "generate_series", "to_regclass",
                 "pg_table_size", "pg_database_size", "repeat", "lpad", "format", "pg_sleep_for",
                 "pg_get_functiondef", "pg_get_viewdef", "obj_description", "current_schemas", "version"],
    "mysql": ["sleep", "benchmark", "get_lock", "release_lock", "is_free_lock", "load_file", "master_pos_wait",
              "connection_id", "current_user", "user", "system_user", "database", "schema", "version",
              "last_insert_id", "row_count", "found_rows", "uuid_short", "sys_exec", "sys_eval", "des_encrypt",
              "encrypt", "password", "old_password", "name_const", "extractvalue", "updatexml", "json_extract",
              "get_format", "nextval", "lastval", "setval", "release_all_locks", "is_used_lock",
              "master_gtid_wait", "column_create", "charset", "collation", "repeat", "rpad", "space", "format",
              "inet_aton", "load_data", "convert_tz", "sformat", "json_table"],
    "spark": ["reflect", "java_method", "try_reflect", "input_file_name", "current_user", "current_catalog",
              "current_database", "version", "uuid", "raise_error", "assert_true", "spark_partition_id",
              "monotonically_increasing_id", "read_files", "sequence", "array_repeat", "repeat", "explode",
              "aes_decrypt", "url_decode", "session_user", "input_file_block_start", "current_schema",
              "transform", "aggregate", "from_json", "schema_of_json", "to_csv", "hash", "xpath", "xpath_string",
              "parse_url", "sentences", "secret", "typeof", "stack"],
}

#: Statements that write, change schema, session or server state, or reach outside: templates filled with
#: generated names and expressions. {t} a shop table, {c} its column, {e} an expression, {q} a query,
#: {s} a string literal, {f} a path, {n} a name.
STATEMENT_TEMPLATES: dict[str, list[str]] = {
    "write": [
        "INSERT INTO {t} ({c}) VALUES ({e})", "INSERT INTO {t} SELECT * FROM {t}", "INSERT INTO {t} {q}",
        "UPDATE {t} SET {c} = {e}", "UPDATE {t} SET {c} = {e} WHERE {e}", "DELETE FROM {t}",
        "DELETE FROM {t} WHERE {e}", "REPLACE INTO {t} ({c}) VALUES ({e})", "INSERT OR REPLACE INTO {t} ({c}) VALUES ({e})",
        "MERGE INTO {t} USING {t} AS s ON {e} WHEN MATCHED THEN DELETE", "UPSERT INTO {t} ({c}) VALUES ({e})",
        "INSERT INTO {t} ({c}) VALUES ({e}) ON CONFLICT DO NOTHING", "INSERT IGNORE INTO {t} ({c}) VALUES ({e})",
        "INSERT INTO {t} ({c}) VALUES ({e}) RETURNING *", "DELETE FROM {t} RETURNING *", "TRUNCATE TABLE {t}",
        "TRUNCATE {t}", "INSERT OVERWRITE TABLE {t} {q}", "INSERT OVERWRITE DIRECTORY '{f}' {q}",
        "INSERT OVERWRITE LOCAL DIRECTORY '{f}' {q}", "SELECT * INTO pwned FROM {t}", "SELECT {e} INTO OUTFILE '{f}'",
        "SELECT {e} INTO DUMPFILE '{f}'", "SELECT {e} INTO @v", "CREATE TABLE pwned AS {q}",
        "WITH x AS (DELETE FROM {t} RETURNING *) SELECT * FROM x",
        "WITH x AS (UPDATE {t} SET {c} = {e} RETURNING *) SELECT * FROM x",
        "WITH x AS (INSERT INTO {t} ({c}) VALUES ({e}) RETURNING *) SELECT * FROM x",
        "DELETE {t} FROM {t} JOIN {t} AS b ON {e}", "UPDATE {t} AS a JOIN {t} AS b ON {e} SET a.{c} = {e}",
        "LOAD DATA LOCAL INFILE '{f}' INTO TABLE {t}", "LOAD DATA INPATH '{f}' INTO TABLE {t}",
        "COPY {t} FROM '{f}'", "COPY {t} TO '{f}'", "COPY ({q}) TO '{f}'", "COPY {t} FROM PROGRAM 'id'",
        "HANDLER {t} OPEN", "DO {e}", "CALL {n}()", "VALUES ({e}) RETURNING *",
    ],
    "ddl": [
        "CREATE TABLE {n} (a INT)", "CREATE TEMP TABLE {n} AS {q}", "CREATE TEMPORARY TABLE {n} (a INT)",
        "CREATE VIEW {n} AS {q}", "CREATE OR REPLACE VIEW {t} AS {q}", "CREATE TEMP VIEW {n} AS {q}",
        "CREATE INDEX {n} ON {t} ({c})", "CREATE UNIQUE INDEX {n} ON {t} ({c})", "DROP TABLE {t}",
        "DROP TABLE IF EXISTS {t}", "DROP VIEW IF EXISTS {n}", "DROP INDEX {n}", "DROP SCHEMA public CASCADE",
        "DROP DATABASE groundsql_canary_db", "ALTER TABLE {t} ADD COLUMN {n} INT", "ALTER TABLE {t} DROP COLUMN {c}",
        "ALTER TABLE {t} RENAME TO {n}", "ALTER TABLE {t} RENAME COLUMN {c} TO {n}", "CREATE SEQUENCE {n}",
        "CREATE SCHEMA {n}", "CREATE DATABASE {n}", "CREATE FUNCTION {n}() RETURNS INT AS 'SELECT 1' LANGUAGE sql",
        "CREATE MACRO {n}(a) AS a + 1", "CREATE TRIGGER {n} AFTER INSERT ON {t} BEGIN SELECT 1; END",
        "CREATE TEMPORARY FUNCTION {n} AS 'java.lang.Runtime'", "CREATE TABLE {n} USING parquet LOCATION '{f}' AS {q}",
        "CREATE EXTENSION dblink", "CREATE ROLE pwned", "CREATE USER pwned", "ALTER ROLE postgres PASSWORD 'x'",
        "COMMENT ON TABLE {t} IS {s}", "CREATE VIRTUAL TABLE {n} USING fts5(a)", "CREATE TYPE {n} AS ENUM ('a')",
        "CREATE SECRET {n} (TYPE s3, KEY_ID 'x')", "ALTER DATABASE postgres SET work_mem = '1GB'",
        "ALTER SYSTEM SET work_mem = '1GB'", "CREATE EVENT {n} ON SCHEDULE EVERY 1 SECOND DO DELETE FROM {t}",
        "RENAME TABLE {t} TO {n}", "CREATE OR REPLACE TEMP MACRO {n}() AS TABLE {q}", "CREATE MATERIALIZED VIEW {n} AS {q}",
        "REFRESH MATERIALIZED VIEW {n}", "CLUSTER {t}", "REINDEX TABLE {t}", "OPTIMIZE TABLE {t}",
    ],
    "utility": [
        "SET work_mem = '1GB'", "SET statement_timeout = 0", "SET SESSION max_statement_time = 0",
        "SET GLOBAL max_connections = 1", "SET @@session.sql_select_limit = 1000000", "SET @a = 1",
        "SET search_path = secret_schema", "SET ROLE postgres", "SET SESSION AUTHORIZATION postgres",
        "RESET ALL", "RESET statement_timeout", "SET spark.sql.variable.substitute = true", "SET memory_limit = '100GB'",
        "SET enable_external_access = true", "SET threads = 64", "PRAGMA query_only = OFF", "PRAGMA writable_schema = ON",
        "PRAGMA table_info({t})", "PRAGMA database_list", "PRAGMA enable_profiling", "PRAGMA journal_mode = DELETE",
        "ATTACH DATABASE '{f}' AS pwned", "ATTACH '{f}' AS pwned", "ATTACH ':memory:' AS pwned", "DETACH other",
        "INSTALL httpfs", "LOAD httpfs", "LOAD '{f}'", "EXPORT DATABASE '{f}'", "IMPORT DATABASE '{f}'",
        "VACUUM", "VACUUM INTO '{f}'", "ANALYZE", "ANALYZE {t}", "CHECKPOINT", "FORCE CHECKPOINT",
        "BEGIN", "BEGIN; DELETE FROM {t}; COMMIT", "COMMIT", "ROLLBACK", "START TRANSACTION", "SAVEPOINT a",
        "RELEASE SAVEPOINT a", "LOCK TABLE {t} IN ACCESS EXCLUSIVE MODE", "LOCK TABLES {t} WRITE", "UNLOCK TABLES",
        "GRANT ALL ON {t} TO PUBLIC", "REVOKE ALL ON {t} FROM PUBLIC", "USE groundsql_canary_db", "USE other",
        "SHOW TABLES", "SHOW DATABASES", "SHOW VARIABLES", "SHOW GRANTS", "SHOW PROCESSLIST", "SHOW ALL",
        "SHOW data_directory", "SHOW CREATE TABLE {t}", "DESCRIBE {t}", "DESC {t}", "DESCRIBE {q}",
        "EXPLAIN {q}", "EXPLAIN ANALYZE {q}", "EXPLAIN (ANALYZE) {q}", "EXPLAIN QUERY PLAN {q}",
        "EXPLAIN ANALYZE DELETE FROM {t}", "EXPLAIN DELETE FROM {t}", "EXPLAIN FORMAT=JSON {q}", "EXPLAIN EXTENDED {q}",
        "PREPARE p AS {q}", "EXECUTE p", "DEALLOCATE p", "EXECUTE IMMEDIATE 'DROP TABLE {t}'", "LISTEN x",
        "NOTIFY x, 'y'", "KILL 1", "FLUSH PRIVILEGES", "FLUSH TABLES WITH READ LOCK", "CACHE TABLE {t}",
        "UNCACHE TABLE {t}", "CLEAR CACHE", "REFRESH TABLE {t}", "MSCK REPAIR TABLE {t}", "ADD JAR '{f}'",
        "ADD FILE '{f}'", "LIST FILES", "DECLARE x INT DEFAULT 1", "SUMMARIZE {t}", "CALL pragma_version()",
        "FROM {t}", "FROM {t} SELECT {c}", "TABLE {t}", "VALUES ({e})", "PIVOT {t} ON {c} USING count(*)",
        "SELECT {e} FROM {t} FOR UPDATE", "SELECT {e} FROM {t} FOR SHARE", "SELECT {e} FROM {t} LOCK IN SHARE MODE",
        "SELECT {e} FROM {t} FOR UPDATE NOWAIT", "DISCARD ALL", "CHECKSUM TABLE {t}", "HELP 'select'", "SHUTDOWN",
        "RESET QUERY CACHE", "PURGE BINARY LOGS BEFORE NOW()", "INSTALL PLUGIN x SONAME 'x.so'",
        "SELECT pg_reload_conf()", "SET CATALOG other", "SET SCHEMA 'secret_schema'", "SET TIME ZONE 'UTC'",
        "SET NAMES utf8", "SET TRANSACTION READ WRITE", "SET sql_mode = ''", "SET autocommit = 1",
    ],
}

COMMENTS = ["/* c */", "-- c\n", "--c\n", "# c\n", "/*! SELECT 1 */", "/*!50000 1 */", "/*M! 1 */", "/*+ MAX_EXECUTION_TIME(0) */",
            "/* /* nested */ */", "-- \\\n", "/*+ BROADCAST(t) */", "/* ${env:GROUNDSQL_CANARY_ENV} */", "--\r",
            "-- ${system:line.separator}\n", "/**/", "/* */ /* */", "/*!*/", "/* ; DROP TABLE orders; */", "--\t\n"]
WHITESPACE = [" ", "  ", "\n", "\t", "\r\n", "\f", "\v", "\u00a0", "\u2028", " \n "]
ODD_STRINGS = ["'", "''", "\\", "\\'", "%", "_", "${env:GROUNDSQL_CANARY_ENV}", "${spark.groundsql.canary}",
               "*/", "/*", "--", ";", "\n", "é", "\u0000", "😀", "a' OR '1'='1", "$$", "E'\\x41'", "`", "\"", "?",
               ":name", "%s", "{x}", "\\N", "0x41", "NULL", "null", "-- x", "'; DROP TABLE orders; --"]
ODD_NAMES = ["a", "A b", "select", "from", "\"", "`", "[x]", "x;y", "é", "orders\u00a0", "ORDERS", "Orders",
             "order", "group", "_", "1a", "x\ny", "${env:GROUNDSQL_CANARY_ENV}", "pg_x", "sqlite_x", "duckdb_x"]
#: Functions every engine has, as sqlglot classes (rendered in each dialect's spelling).
PORTABLE_FUNCTIONS = [
    lambda a, b: exp.Upper(this=a), lambda a, b: exp.Lower(this=a), lambda a, b: exp.Length(this=a),
    lambda a, b: exp.Abs(this=a), lambda a, b: exp.Round(this=a), lambda a, b: exp.Coalesce(this=a, expressions=[b]),
    lambda a, b: exp.Substring(this=a, start=exp.Literal.number(1), length=exp.Literal.number(3)),
    lambda a, b: exp.Trim(this=a), lambda a, b: exp.Nullif(this=a, expression=b),
    lambda a, b: exp.Greatest(this=a, expressions=[b]), lambda a, b: exp.Least(this=a, expressions=[b]),
    lambda a, b: exp.Concat(expressions=[a, b]), lambda a, b: exp.Replace(this=a, expression=b, replacement=b),
    lambda a, b: exp.Repeat(this=a, times=b), lambda a, b: exp.Floor(this=a), lambda a, b: exp.Ceil(this=a),
    lambda a, b: exp.Sqrt(this=a), lambda a, b: exp.Pad(this=a, expression=b, is_left=True),
    lambda a, b: exp.Max(this=a), lambda a, b: exp.Count(this=exp.Distinct(expressions=[a])),
    lambda a, b: exp.Extract(this=exp.var("YEAR"), expression=exp.cast(a, "DATE")),
]
KINDS = ("read", "setop", "nested", "functions", "catalog", "write", "ddl", "utility", "comments", "quoting",
         "stacked", "mutated")


@dataclass
class Case:
    """One generated statement: its number, kind, and text per dialect."""

    number: int
    kind: str
    sql: dict[str, str] = field(default_factory=dict)
    #: The same tree rendered in every dialect: its verdicts should agree across engines.
    portable: bool = False


class Generator:
    """Statements for `dialects`, from `seed`. `functions`: extra function names per dialect (the engine's own
    catalogue, read from the engine), mixed with the reviewed allow-lists and known-dangerous names."""

    def __init__(self, seed: int, dialects: tuple[str, ...] = DIALECTS, *,
                 functions: dict[str, list[str]] | None = None, secret_file: str = "/tmp/groundsql_fuzz_secret.txt"):
        self.seed = seed
        self.dialects = dialects
        self.secret_file = secret_file
        self.functions = {d: sorted(set((functions or {}).get(d, []))) for d in dialects}
        from groundsql.db.policy import policy_for

        self.allowed = {d: sorted(policy_for(d).functions) for d in dialects}
        for d in dialects:  # the sqlglot dialects load lazily; not from worker threads (Database._warm_dialect)
            sqlglot.parse_one("SELECT 1", read=d)

    def cases(self, count: int, start: int = 0) -> Iterator[Case]:
        for number in range(start, start + count):
            yield self.case(number)

    def case(self, number: int) -> Case:
        rng = random.Random(f"{self.seed}:{number}")
        kind = rng.choice(KINDS)
        case = Case(number, kind)
        if kind in ("read", "setop", "nested"):
            tree = self._query(rng, depth={"read": 1, "setop": 2, "nested": 3}[kind], setop=kind == "setop")
            case.portable = True
            for d in self.dialects:
                case.sql[d] = _render(tree, d)
        else:
            for d in self.dialects:
                local = random.Random(f"{self.seed}:{number}:{d}")
                case.sql[d] = getattr(self, f"_{kind}")(local, d)
        return case

    # -- query trees ------------------------------------------------------------------------------------

    def _query(self, rng: random.Random, depth: int, setop: bool = False) -> exp.Expression:
        if setop or (depth > 0 and rng.random() < 0.15):
            op = rng.choice([exp.Union, exp.Intersect, exp.Except])
            left, right = self._select(rng, depth - 1), self._select(rng, depth - 1)
            width = min(len(left.expressions), len(right.expressions))
            left.set("expressions", left.expressions[:width])
            right.set("expressions", right.expressions[:width])
            query: exp.Expression = op(this=left, expression=right, distinct=rng.random() < 0.5)
        else:
            query = self._select(rng, depth)
        if depth > 0 and rng.random() < 0.3:
            name = f"cte{rng.randint(0, 3)}"
            inner = self._select(rng, depth - 1)
            recursive = rng.random() < 0.1
            if recursive:  # a bounded recursive CTE
                inner = sqlglot.parse_one(f"SELECT 1 AS n UNION ALL SELECT n + 1 FROM {name} WHERE n < "
                                          f"{rng.choice([3, 10, 1000, 100000])}")
            query = _with(query, name, inner, recursive)
        return query

    def _select(self, rng: random.Random, depth: int) -> exp.Select:
        table = rng.choice(list(SHOP))
        alias = "t0"
        scope = [(alias, table)]
        source: exp.Expression = exp.to_table(table).as_(alias) if rng.random() < 0.8 else exp.to_table(table)
        if rng.random() < 0.05:
            source = exp.to_table(rng.choice(FOREIGN_RELATIONS["common"]))
            scope = []
        if depth > 0 and rng.random() < 0.15:
            source = exp.Subquery(this=self._select(rng, depth - 1), alias=exp.TableAlias(this=exp.to_identifier("t0")))
            scope = []
        select = exp.select(*[self._projection(rng, scope, depth) for _ in range(rng.randint(1, 4))]).from_(source, copy=False)
        for j in range(rng.choice([0, 0, 1, 2])):
            other = rng.choice(list(SHOP))
            other_alias = f"t{j + 1}"
            kind = rng.choice(["", "LEFT", "RIGHT", "FULL", "CROSS", "INNER", "NATURAL"])
            on = self._predicate(rng, scope + [(other_alias, other)], depth) if kind not in ("CROSS", "NATURAL") else None
            if kind == "NATURAL":
                select = select.join(exp.to_table(other).as_(other_alias), join_type="NATURAL", copy=False)
            else:
                select = select.join(exp.to_table(other).as_(other_alias), on=on, join_type=kind or None, copy=False)
            scope.append((other_alias, other))
        if rng.random() < 0.5:
            select = select.where(self._predicate(rng, scope, depth), copy=False)
        if rng.random() < 0.25:
            select = select.group_by(*[self._column(rng, scope) for _ in range(rng.randint(1, 2))], copy=False)
            if rng.random() < 0.4:
                select = select.having(self._predicate(rng, scope, depth), copy=False)
        if rng.random() < 0.3:
            select = select.order_by(rng.choice([exp.Literal.number(1), self._column(rng, scope)]), copy=False)
        if rng.random() < 0.3:
            select = select.limit(rng.choice([0, 1, 5, 100, 10 ** 9]), copy=False)
            if rng.random() < 0.2:
                select = select.offset(rng.randint(0, 5), copy=False)
        if rng.random() < 0.1:
            select = select.distinct(copy=False)
        return select

    def _column(self, rng: random.Random, scope: list[tuple[str, str]]) -> exp.Expression:
        if not scope or rng.random() < 0.03:
            return exp.column(rng.choice(["id", "name", "x", "rowid", "oid", "ctid", "_rowid_", "*"]))
        alias, table = rng.choice(scope)
        column = rng.choice(list(SHOP[table]))
        return exp.column(column, table=alias if rng.random() < 0.7 else None)

    def _projection(self, rng: random.Random, scope: list[tuple[str, str]], depth: int) -> exp.Expression:
        value = self._expression(rng, scope, depth, 2)
        if rng.random() < 0.5:
            return value.as_(f"c{rng.randint(0, 9)}", quoted=rng.random() < 0.2)
        return value

    def _expression(self, rng: random.Random, scope: list[tuple[str, str]], depth: int, budget: int) -> exp.Expression:
        roll = rng.random()
        if budget <= 0 or roll < 0.3:
            return self._column(rng, scope) if rng.random() < 0.6 else self._literal(rng)
        if roll < 0.45:
            op = rng.choice([exp.Add, exp.Sub, exp.Mul, exp.Div, exp.Mod, exp.DPipe, exp.BitwiseAnd])
            return op(this=self._expression(rng, scope, depth, budget - 1),
                      expression=self._expression(rng, scope, depth, budget - 1))
        if roll < 0.65:
            return self._function(rng, scope, depth, budget)
        if roll < 0.72:
            return exp.Case(ifs=[exp.If(this=self._predicate(rng, scope, depth),
                                        true=self._expression(rng, scope, depth, budget - 1))],
                            default=self._literal(rng))
        if roll < 0.78:
            kind = rng.choice(["INT", "TEXT", "VARCHAR(10)", "DECIMAL(10, 2)", "DATE", "DOUBLE", "BOOLEAN"])
            return exp.cast(self._expression(rng, scope, depth, budget - 1), kind)
        if roll < 0.85 and depth > 0:
            return exp.Subquery(this=self._select(rng, depth - 1).limit(1, copy=False))
        if roll < 0.93:
            agg = rng.choice([exp.Count, exp.Sum, exp.Avg, exp.Min, exp.Max])
            call = agg(this=self._column(rng, scope))
            if rng.random() < 0.4:
                return exp.Window(this=call, partition_by=[self._column(rng, scope)])
            return call
        return exp.Window(this=exp.RowNumber(), order=exp.Order(expressions=[exp.Ordered(this=self._column(rng, scope))]))

    def _function(self, rng: random.Random, scope: list[tuple[str, str]], depth: int, budget: int) -> exp.Expression:
        pool = rng.random()
        dialect = rng.choice(self.dialects)
        argument = self._expression(rng, scope, depth, budget - 1)
        if pool < 0.65:  # sqlglot's own function classes, written in each dialect's spelling
            builder = rng.choice(PORTABLE_FUNCTIONS)
            return builder(argument, self._literal(rng))
        if pool < 0.85:
            name = rng.choice(self.allowed[dialect] or ["abs"])
        elif pool < 0.93 and self.functions.get(dialect):
            name = rng.choice(self.functions[dialect])
        else:
            name = rng.choice(DANGEROUS_FUNCTIONS["common"] + DANGEROUS_FUNCTIONS[dialect])
        args = [argument] + [self._literal(rng) for _ in range(rng.choice([0, 0, 1, 2]))]
        return exp.Anonymous(this=name, expressions=args[:rng.choice([0, 1, 1, 1, 2, 3])])

    def _predicate(self, rng: random.Random, scope: list[tuple[str, str]], depth: int) -> exp.Expression:
        roll = rng.random()
        left = self._expression(rng, scope, depth, 1)
        if roll < 0.5:
            op = rng.choice([exp.EQ, exp.NEQ, exp.GT, exp.LT, exp.GTE, exp.LTE, exp.Like])
            return op(this=left, expression=self._expression(rng, scope, depth, 1))
        if roll < 0.6:
            return exp.Is(this=left, expression=exp.Null())
        if roll < 0.7 and depth > 0:
            inner = self._select(rng, depth - 1)
            inner.set("expressions", inner.expressions[:1])
            return exp.In(this=left, query=exp.Subquery(this=inner))
        if roll < 0.78 and depth > 0:
            return exp.Exists(this=self._select(rng, depth - 1))
        if roll < 0.86:
            return exp.Between(this=left, low=self._literal(rng), high=self._literal(rng))
        if roll < 0.93:
            return exp.And(this=self._predicate(rng, scope, 0), expression=self._predicate(rng, scope, 0))
        return exp.Not(this=exp.Paren(this=self._predicate(rng, scope, 0)))

    def _literal(self, rng: random.Random) -> exp.Expression:
        roll = rng.random()
        if roll < 0.35:
            return exp.Literal.number(rng.choice([0, 1, -1, 2, 10, 1000, 2 ** 31, 2 ** 63, 1.5, 1e308]))
        if roll < 0.75:
            return exp.Literal.string(rng.choice(["North", "books", "2024-01-01", "x", ""] + ODD_STRINGS))
        if roll < 0.85:
            return exp.Null()
        return exp.Boolean(this=rng.random() < 0.5)

    # -- statement kinds as text ------------------------------------------------------------------------

    def _text_query(self, rng: random.Random, dialect: str, depth: int = 1) -> str:
        return _render(self._query(rng, depth), dialect)

    def _fill(self, rng: random.Random, dialect: str, template: str) -> str:
        table = rng.choice(list(SHOP))
        parts = {
            "t": table, "c": rng.choice(list(SHOP[table])), "n": rng.choice(["pwned", "x", "orders2", "t_1"]),
            "s": "'" + rng.choice(ODD_STRINGS).replace("'", "''") + "'",
            "f": rng.choice([self.secret_file, "/tmp/pwned", "/tmp/pwned.db", "/tmp/pwned.csv", "/etc/passwd",
                             "/tmp/pwned.parquet", "pwned.duckdb"]),
        }
        parts["e"] = _render(self._expression(rng, [("t0", table)], 0, 1), dialect)
        parts["q"] = self._text_query(rng, dialect, 1)
        return template.format(**parts)

    def _write(self, rng: random.Random, dialect: str) -> str:
        return self._fill(rng, dialect, rng.choice(STATEMENT_TEMPLATES["write"]))

    def _ddl(self, rng: random.Random, dialect: str) -> str:
        return self._fill(rng, dialect, rng.choice(STATEMENT_TEMPLATES["ddl"]))

    def _utility(self, rng: random.Random, dialect: str) -> str:
        return self._fill(rng, dialect, rng.choice(STATEMENT_TEMPLATES["utility"]))

    def _functions(self, rng: random.Random, dialect: str) -> str:
        """An engine function from its catalogue or the dangerous list, in a projection, FROM or WHERE."""
        pool = self.functions.get(dialect) or []
        names = pool if pool and rng.random() < 0.6 else DANGEROUS_FUNCTIONS[dialect] + DANGEROUS_FUNCTIONS["common"]
        name = rng.choice(names)
        args = ", ".join(rng.choice(["1", "'x'", "NULL", "id", f"'{self.secret_file}'", "'GROUNDSQL_CANARY_ENV'",
                                     "'work_mem'", "0", "10000000", "'/'", "'.'", "true", "ARRAY[1]", "*",
                                     "'java.lang.System'", "'getenv'", "2147483647"])
                         for _ in range(rng.choice([0, 1, 1, 2, 3])))
        table = rng.choice(list(SHOP))
        form = rng.choice(["SELECT {f} FROM {t}", "SELECT {f}", "SELECT * FROM {f}", "SELECT 1 FROM {t} WHERE {f} IS NULL",
                           "SELECT count(*) FROM {t} GROUP BY {f}", "SELECT * FROM {t}, LATERAL {f} AS x",
                           "SELECT {f} OVER () FROM {t}", "SELECT (SELECT {f}) AS v"])
        return form.format(f=f"{name}({args})", t=table)

    def _catalog(self, rng: random.Random, dialect: str) -> str:
        relation = rng.choice(FOREIGN_RELATIONS[dialect] + FOREIGN_RELATIONS["common"])
        relation = relation.replace("SECRET_FILE", self.secret_file).replace(
            "SECRET_DIR", self.secret_file.rsplit("/", 1)[0])
        table = rng.choice(list(SHOP))
        form = rng.choice(["SELECT * FROM {r}", "SELECT * FROM {t} JOIN {r} ON 1 = 1",
                           "SELECT * FROM {t} WHERE id IN (SELECT 1 FROM {r})", "WITH x AS (SELECT * FROM {r}) SELECT * FROM x",
                           "SELECT (SELECT count(*) FROM {r}) FROM {t}", "SELECT * FROM {t} UNION ALL SELECT * FROM {r}",
                           "SELECT * FROM (SELECT * FROM {r}) AS s", "SELECT * FROM {r} AS {t}",
                           "WITH {t} AS (SELECT * FROM {r}) SELECT * FROM {t}", "SELECT EXISTS (SELECT * FROM {r})"])
        return form.format(r=relation, t=table)

    def _comments(self, rng: random.Random, dialect: str) -> str:
        """A query, a write or a catalog read with comments spliced between (or inside) its tokens."""
        base = rng.choice([self._text_query(rng, dialect), self._write(rng, dialect), self._catalog(rng, dialect)])
        return _splice(rng, base, lambda: rng.choice(COMMENTS), count=rng.randint(1, 3))

    def _quoting(self, rng: random.Random, dialect: str) -> str:
        table = rng.choice(list(SHOP))
        column = rng.choice(list(SHOP[table]))
        quote = rng.choice(['"{}"', "`{}`", "[{}]", "{}", 'U&"{}"', '"{}"""'])
        name = rng.choice([table, table.upper(), table.title(), rng.choice(ODD_NAMES), "main." + table,
                           "public." + table, f"{table}\"; DROP TABLE {table}; --"])
        literal = rng.choice(["'{}'", "E'{}'", "N'{}'", "$${}$$", "$q${}$q$", "X'41'", "_utf8'{}'", "B'1'",
                              "q'[{}]'", "'{}' '{}'", '"{}"', "r'{}'", "e'\\'{}'"]).replace(
            "{}", rng.choice(ODD_STRINGS))
        form = rng.choice(["SELECT {l} FROM {q}", "SELECT {q2} FROM {q} WHERE {q2} = {l}", "SELECT {l} AS {q2}",
                           "SELECT * FROM {q} AS {q2}", "SELECT {l}, {l}", "SELECT {l} FROM {t}; {l}"])
        return form.format(l=literal, q=quote.format(name), q2=quote.format(column), t=table)

    def _stacked(self, rng: random.Random, dialect: str) -> str:
        first = self._text_query(rng, dialect)
        second = rng.choice([self._write, self._ddl, self._utility, self._catalog])(rng, dialect)
        sep = rng.choice([";", "; ", ";\n", ";;", "\n;", "; -- x\n", ";/**/", "\\;", "\\g", "\ngo\n"])
        return rng.choice([f"{first}{sep}{second}", f"{second}{sep}{first}", f"{first}{sep}"])

    def _mutated(self, rng: random.Random, dialect: str) -> str:
        """A query whose text is cut, doubled, re-cased or re-spaced at random: near-valid statements."""
        text = self._text_query(rng, dialect)
        for _ in range(rng.randint(1, 3)):
            roll = rng.random()
            i, j = sorted(rng.randint(0, len(text)) for _ in range(2))
            if roll < 0.2:
                text = text[:i] + text[j:]
            elif roll < 0.4:
                text = text[:j] + text[i:j] + text[j:]
            elif roll < 0.55:
                text = text[:i] + text[i:j].swapcase() + text[j:]
            elif roll < 0.75:
                text = text.replace(" ", rng.choice(WHITESPACE), rng.randint(1, 5))
            elif roll < 0.9:
                text = text[:i] + rng.choice([";", "'", '"', "`", "(", ")", "*/", "/*", "--", "$", "${", "\\",
                                              ",", "||", "::", "@", "@@", ":=", "?", "%"]) + text[i:]
            elif roll < 0.95:
                other = self._utility(rng, dialect)
                text = text[:i] + other + text[i:]
            else:  # deep nesting: parentheses, signs or NOTs around a value
                depth = rng.choice([50, 500, 3000])
                left, right = rng.choice([("(", ")"), ("-", ""), ("NOT ", ""), ("+", ""), ("~", "")])
                text = f"SELECT {left * depth}1{right * depth} FROM orders"
        return text


def _with(query: exp.Expression, name: str, inner: exp.Expression, recursive: bool) -> exp.Expression:
    if not isinstance(query, exp.Query):
        return query
    return query.with_(name, as_=inner, recursive=recursive, copy=False)


def _render(tree: exp.Expression, dialect: str) -> str:
    try:
        return tree.sql(dialect=dialect)
    except Exception:  # a node this dialect cannot write: the default spelling, which the guard then reads
        return tree.sql()


def _splice(rng: random.Random, text: str, piece, count: int) -> str:
    """`text` with `count` pieces inserted at random spaces (or anywhere, one time in five)."""
    for _ in range(count):
        spaces = [i for i, ch in enumerate(text) if ch == " "]
        if spaces and rng.random() < 0.8:
            at = rng.choice(spaces)
        else:
            at = rng.randint(0, len(text))
        text = text[:at] + " " + piece() + " " + text[at:]
    return text
