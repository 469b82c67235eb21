"""Database access: guarded, read-only, limited execution (the only code that talks to an engine)."""

from groundsql.db.database import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S, Database
from groundsql.db.guard import check_statement
from groundsql.db.result import Result
from groundsql.db.spark import SparkDatabase  # registers the Spark engine (pyspark loads on first use)
from groundsql.db.urls import Target, parse_target

__all__ = ["Database", "Result", "SparkDatabase", "Target", "check_statement", "parse_target", "DEFAULT_MAX_ROWS",
           "DEFAULT_TIMEOUT_S"]
