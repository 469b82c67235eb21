## Comments the guard skips must never reach Spark as code: Spark ends `--` at \r and continues it after a
## backslash, nests block comments, and reads an optimizer hint's inside as code. Every form is refused (the
## guard reads the code sqlglot sees) and Spark runs the statement without its comments. Forms with \r or
## Unicode line ends cannot live in this file (lines are split on them): tests/db/test_spark.py has them.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT 1 AS x -- comment \
UNION ALL SELECT v FROM groundsql_canary_db.secret

SELECT 1 AS x /* a /* b */ UNION ALL SELECT v FROM groundsql_canary_db.secret */

SELECT 1 AS x /* /* */ */ UNION ALL SELECT v FROM global_temp.groundsql_secret

SELECT /*+ COALESCE('*/ 1 AS x UNION ALL SELECT v FROM groundsql_canary_db.secret --') */ 1

SELECT /*+ BROADCAST(customers) -- */ name FROM customers
UNION ALL SELECT v FROM groundsql_canary_db.secret

SELECT /*+ REPARTITION(java_method('java.lang.System', 'getenv', 'GROUNDSQL_CANARY_JVM_ENV')) */ name FROM customers

SELECT /*+ REPARTITION(1) /* */ name FROM customers */ UNION ALL SELECT v FROM groundsql_canary_db.secret

SELECT 1 AS x --\
; ADD JAR '/tmp/pwned.jar'
