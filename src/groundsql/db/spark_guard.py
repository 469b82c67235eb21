"""Spark SQL's own dangerous constructs, refused on top of the common guard.

Spark has no read-only session, so the guard is what stands between a model's SQL and the cluster. The common
guard (`check_statement`) already refuses every statement that is not one query: INSERT [OVERWRITE], CACHE,
UNCACHE, ADD JAR/FILE/ARCHIVE, CREATE FUNCTION, LOAD DATA, SET, USE, REFRESH, MSCK, EXECUTE IMMEDIATE.
This module refuses what a SELECT can still do on Spark: call Java (`reflect`, `java_method`), run a script
(`SELECT TRANSFORM … USING`), and read or write storage by path (`parquet.`/path``, `read_files`).
"""

from __future__ import annotations

from sqlglot import exp

from groundsql.errors import RefusedStatement

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
