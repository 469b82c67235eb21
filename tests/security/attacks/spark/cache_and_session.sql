## Spark SQL cache, metadata refresh, session settings and variables.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

CACHE TABLE orders

CACHE LAZY TABLE orders

CACHE TABLE pwned AS SELECT * FROM orders

CACHE TABLE pwned OPTIONS ('storageLevel' 'DISK_ONLY') SELECT * FROM orders

UNCACHE TABLE orders

UNCACHE TABLE IF EXISTS orders

CLEAR CACHE

REFRESH TABLE orders

REFRESH orders

REFRESH '/tmp/pwned'

REFRESH FUNCTION pwned

MSCK REPAIR TABLE orders

REPAIR TABLE orders

ANALYZE TABLE orders COMPUTE STATISTICS

ANALYZE TABLES COMPUTE STATISTICS

SET spark.sql.ansi.enabled = true

SET spark.sql.shuffle.partitions = 100000

SET spark.groundsql.canary

SET spark.groundsql.canary = pwned

SET

SET -v

RESET

RESET spark.sql.shuffle.partitions

SET TIME ZONE 'America/New_York'

USE groundsql_canary_db

USE DATABASE groundsql_canary_db

USE CATALOG spark_catalog

SET CATALOG spark_catalog

DECLARE VARIABLE pwned INT DEFAULT 1

DECLARE OR REPLACE pwned STRING

SET VAR pwned = 2

EXECUTE IMMEDIATE 'DROP TABLE orders'

EXECUTE IMMEDIATE 'SELECT * FROM groundsql_canary_db.secret'
