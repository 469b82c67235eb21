"""Spark SQL's own dangerous constructs, refused on top of the common guard.

Spark has no read-only session, so the guard is what stands between a model's SQL and the cluster. Spark's
statements that are never a query (INSERT [OVERWRITE] [DIRECTORY], CACHE, UNCACHE, CLEAR CACHE, ADD JAR/FILE,
LIST, CREATE FUNCTION, LOAD DATA, SET, RESET, USE, REFRESH, MSCK/REPAIR, EXECUTE IMMEDIATE…) are refused by
their leading words before parsing (`check_spark_statement`), so that the refusal names them even where sqlglot
cannot parse them; the common guard (`check_statement`) refuses any other statement that is not one query.
`check_spark_tree` refuses what a SELECT can still do on Spark: call Java (`reflect`, `java_method`), run a
script (`SELECT TRANSFORM … USING`), and read or write storage by path (`parquet.`/path``, `read_files`).
"""

from __future__ import annotations

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from groundsql.db.policy import names
from groundsql.errors import RefusedStatement

#: The first word of each Spark SQL statement that is never a query, and what the statement does.
SPARK_STATEMENTS = {
    "INSERT": "writes into a table or a storage directory",
    "LOAD": "loads files into a table",
    "UPDATE": "changes rows", "DELETE": "deletes rows", "MERGE": "changes rows", "TRUNCATE": "empties a table",
    "CREATE": "creates a table, view, database or function (code the cluster would run)",
    "ALTER": "changes a table or database", "DROP": "drops a table, view, database or function",
    "CACHE": "caches a table in the cluster's memory", "UNCACHE": "changes the session's cache",
    "CLEAR": "clears the session's cache",
    "ADD": "loads a jar, file or archive into the cluster (code it would run)",
    "LIST": "lists the jars and files loaded into the session",
    "REFRESH": "reloads cached metadata and data", "MSCK": "rewrites a table's partition metadata",
    "REPAIR": "rewrites a table's partition metadata", "ANALYZE": "computes and stores table statistics",
    "SET": "changes or reveals session settings and variables", "RESET": "resets session settings",
    "USE": "changes the session's current catalog or database", "DECLARE": "creates a session variable",
    "EXECUTE": "runs a statement built from a string",
    "SHOW": "reads catalog metadata (the schema is given to you)",
    "DESCRIBE": "reads catalog metadata (the schema is given to you)",
    "DESC": "reads catalog metadata (the schema is given to you)",
}

#: Words after the first that name the statement more precisely (INSERT OVERWRITE LOCAL DIRECTORY, ADD JAR).
_QUALIFIERS = names("""
    OVERWRITE INTO LOCAL DIRECTORY TABLE TABLES DATA INPATH JAR JARS FILE FILES ARCHIVE ARCHIVES FUNCTION FUNCTIONS
    TEMPORARY TEMP OR REPLACE EXTERNAL VIEW DATABASE SCHEMA CATALOG LAZY CACHE IMMEDIATE REPAIR VARIABLE VAR TIME ZONE
""")

#: Tokens that end a statement's leading words (a name, a path, a number).
_NOT_WORDS = {TokenType.STRING, TokenType.NUMBER, TokenType.IDENTIFIER, TokenType.DOT, TokenType.L_PAREN}

#: Functions that call arbitrary Java methods or read storage by path.
SPARK_FORBIDDEN_FUNCTIONS = frozenset({"reflect", "java_method", "try_reflect", "read_files", "input_file_name",
                                       "input_file_block_start", "input_file_block_length"})

#: Data source names Spark accepts as a table qualifier to read a path directly (format.`path`).
SPARK_PATH_SOURCES = frozenset({"parquet", "csv", "json", "orc", "text", "avro", "delta", "binaryfile", "jdbc",
                                "iceberg", "hudi", "xml", "file", "libsvm", "image"})

#: Statement nodes that are never a query (already refused as roots; refused anywhere here too).
SPARK_FORBIDDEN_NODES: tuple[type[exp.Expression], ...] = tuple(
    node for node in (getattr(exp, name, None) for name in ("Cache", "Uncache", "Directory", "Declare",
                                                             "QueryTransform", "LoadData"))
    if node is not None
)


def check_spark_statement(sql: str) -> None:
    """Refuse a Spark statement that is never a query by its leading words, naming it and what it does.

    Raises:
        RefusedStatement: e.g. "refused: ADD JAR loads a jar, file or archive into the cluster …".
    """
    try:
        tokens = Dialect.get_or_raise("spark").tokenize(sql)
    except (TokenError, ParseError, ValueError):
        return  # the common guard reports what cannot be read
    words: list[str] = []
    for token in tokens[:6]:
        if token.token_type in _NOT_WORDS:
            break
        words.extend(token.text.upper().split())
    if not words or words[0] not in SPARK_STATEMENTS:
        return
    name = [words[0]]
    for word in words[1:5]:
        if word not in _QUALIFIERS:
            break
        name.append(word)
    raise RefusedStatement(f"refused: {' '.join(name)} {SPARK_STATEMENTS[words[0]]}; only read-only queries "
                           "(SELECT/WITH) may run on Spark")


def check_spark_tree(statement: exp.Expression) -> None:
    """Refuse Spark-only ways a parsed query could run code, read paths or write.

    Args:
        statement: the statement `check_statement(sql, "spark")` returned.

    Raises:
        RefusedStatement: with the construct named.
    """
    for node in statement.walk():
        if isinstance(node, SPARK_FORBIDDEN_NODES):
            name = "TRANSFORM … USING (runs a script)" if type(node).__name__ == "QueryTransform" \
                else type(node).__name__.upper()
            raise RefusedStatement(f"refused: {name} is not allowed on Spark")
        if isinstance(node, exp.Func):
            name = (node.name if isinstance(node, exp.Anonymous) else node.sql_name()).lower()
            if name in SPARK_FORBIDDEN_FUNCTIONS:
                raise RefusedStatement(f"refused: function {name}() calls Java or reads files on Spark")
        if isinstance(node, exp.Table) and _reads_a_path(node):
            raise RefusedStatement(f"refused: reading storage by path ({node.sql(dialect='spark')}) is not allowed")


def _reads_a_path(table: exp.Table) -> bool:
    name = table.name
    if any(mark in name for mark in ("/", "\\", "://")):
        return True
    qualifier = (table.db or "").lower()
    return qualifier in SPARK_PATH_SOURCES and not table.catalog
