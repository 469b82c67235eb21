## SQLite's schema table, pragma functions and build information.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT * FROM sqlite_master

SELECT id FROM orders UNION SELECT NULL FROM sqlite_master

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM sqlite_master)

SELECT (SELECT count(*) FROM sqlite_master) AS n

WITH s AS (SELECT * FROM sqlite_master) SELECT * FROM s

SELECT o.id FROM orders o JOIN sqlite_master x ON 1 = 1

SELECT * FROM (SELECT * FROM sqlite_master) AS sub

SELECT * FROM sqlite_schema

SELECT id FROM orders UNION SELECT NULL FROM sqlite_schema

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM sqlite_schema)

SELECT (SELECT count(*) FROM sqlite_schema) AS n

WITH s AS (SELECT * FROM sqlite_schema) SELECT * FROM s

SELECT o.id FROM orders o JOIN sqlite_schema x ON 1 = 1

SELECT * FROM (SELECT * FROM sqlite_schema) AS sub

SELECT * FROM sqlite_temp_master

SELECT id FROM orders UNION SELECT NULL FROM sqlite_temp_master

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM sqlite_temp_master)

SELECT (SELECT count(*) FROM sqlite_temp_master) AS n

WITH s AS (SELECT * FROM sqlite_temp_master) SELECT * FROM s

SELECT o.id FROM orders o JOIN sqlite_temp_master x ON 1 = 1

SELECT * FROM (SELECT * FROM sqlite_temp_master) AS sub

SELECT * FROM main.sqlite_master

SELECT id FROM orders UNION SELECT NULL FROM main.sqlite_master

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM main.sqlite_master)

SELECT (SELECT count(*) FROM main.sqlite_master) AS n

WITH s AS (SELECT * FROM main.sqlite_master) SELECT * FROM s

SELECT o.id FROM orders o JOIN main.sqlite_master x ON 1 = 1

SELECT * FROM (SELECT * FROM main.sqlite_master) AS sub

SELECT * FROM temp.sqlite_master

SELECT id FROM orders UNION SELECT NULL FROM temp.sqlite_master

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM temp.sqlite_master)

SELECT (SELECT count(*) FROM temp.sqlite_master) AS n

WITH s AS (SELECT * FROM temp.sqlite_master) SELECT * FROM s

SELECT o.id FROM orders o JOIN temp.sqlite_master x ON 1 = 1

SELECT * FROM (SELECT * FROM temp.sqlite_master) AS sub

SELECT * FROM sqlite_sequence

SELECT id FROM orders UNION SELECT NULL FROM sqlite_sequence

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM sqlite_sequence)

SELECT (SELECT count(*) FROM sqlite_sequence) AS n

WITH s AS (SELECT * FROM sqlite_sequence) SELECT * FROM s

SELECT o.id FROM orders o JOIN sqlite_sequence x ON 1 = 1

SELECT * FROM (SELECT * FROM sqlite_sequence) AS sub

SELECT * FROM sqlite_stat1

SELECT id FROM orders UNION SELECT NULL FROM sqlite_stat1

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM sqlite_stat1)

SELECT (SELECT count(*) FROM sqlite_stat1) AS n

WITH s AS (SELECT * FROM sqlite_stat1) SELECT * FROM s

SELECT o.id FROM orders o JOIN sqlite_stat1 x ON 1 = 1

SELECT * FROM (SELECT * FROM sqlite_stat1) AS sub

SELECT * FROM SQLITE_MASTER

SELECT id FROM orders UNION SELECT NULL FROM SQLITE_MASTER

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM SQLITE_MASTER)

SELECT (SELECT count(*) FROM SQLITE_MASTER) AS n

WITH s AS (SELECT * FROM SQLITE_MASTER) SELECT * FROM s

SELECT o.id FROM orders o JOIN SQLITE_MASTER x ON 1 = 1

SELECT * FROM (SELECT * FROM SQLITE_MASTER) AS sub

SELECT * FROM pragma_table_info('orders')

SELECT * FROM pragma_database_list

SELECT * FROM pragma_compile_options

SELECT sqlite_version()

SELECT sqlite_source_id()

SELECT * FROM pragma_function_list

SELECT sql FROM sqlite_master WHERE name = 'orders'

SELECT sqlite_compileoption_get(0)

SELECT * FROM dbstat

SELECT * FROM sqlite_dbpage
