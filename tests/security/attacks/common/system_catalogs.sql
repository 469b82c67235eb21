## The information schema (present on every engine).
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT * FROM information_schema.tables

SELECT id FROM orders UNION SELECT NULL FROM information_schema.tables

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM information_schema.tables)

SELECT (SELECT count(*) FROM information_schema.tables) AS n

WITH s AS (SELECT * FROM information_schema.tables) SELECT * FROM s

SELECT o.id FROM orders o JOIN information_schema.tables x ON 1 = 1

SELECT * FROM (SELECT * FROM information_schema.tables) AS sub

SELECT * FROM information_schema.columns

SELECT id FROM orders UNION SELECT NULL FROM information_schema.columns

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM information_schema.columns)

SELECT (SELECT count(*) FROM information_schema.columns) AS n

WITH s AS (SELECT * FROM information_schema.columns) SELECT * FROM s

SELECT o.id FROM orders o JOIN information_schema.columns x ON 1 = 1

SELECT * FROM (SELECT * FROM information_schema.columns) AS sub

SELECT * FROM INFORMATION_SCHEMA.TABLES

SELECT * FROM "information_schema"."tables"

SELECT * FROM information_schema.schemata

SELECT * FROM information_schema.routines

SELECT table_name FROM information_schema.tables WHERE table_schema NOT IN ('x')
