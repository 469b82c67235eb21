## Spark catalogs, other databases, global temporary views, settings and server facts.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SHOW DATABASES

SHOW TABLES IN groundsql_canary_db

SHOW FUNCTIONS

SHOW USER FUNCTIONS

SHOW CREATE TABLE orders

SHOW TBLPROPERTIES orders

SHOW COLUMNS IN orders

SHOW PARTITIONS orders

SHOW VIEWS

SHOW CATALOGS

DESCRIBE orders

DESCRIBE EXTENDED orders

DESCRIBE DATABASE EXTENDED default

DESCRIBE FUNCTION reflect

SELECT * FROM groundsql_canary_db.secret

SELECT id FROM orders UNION ALL SELECT v FROM groundsql_canary_db.secret

SELECT (SELECT max(v) FROM groundsql_canary_db.secret) AS v

SELECT * FROM spark_catalog.groundsql_canary_db.secret

SELECT * FROM global_temp.groundsql_secret

SELECT id FROM orders WHERE EXISTS (SELECT 1 FROM global_temp.groundsql_secret)

SELECT * FROM system.builtin.reflect

SELECT * FROM information_schema.tables

SELECT * FROM system.information_schema.tables

SELECT * FROM IDENTIFIER('groundsql_canary_db.secret')

SELECT * FROM IDENTIFIER('global_temp' || '.groundsql_secret')

SELECT version()

SELECT user(), current_user(), session_user()

SELECT sql_keywords()

SELECT * FROM sql_keywords()
