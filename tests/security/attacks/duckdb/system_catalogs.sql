## DuckDB's catalog functions and views, settings, other catalogs.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT * FROM duckdb_settings()

SELECT id FROM orders UNION ALL SELECT NULL FROM duckdb_settings()

SELECT (SELECT count(*) FROM duckdb_settings()) AS n

SELECT * FROM duckdb_tables()

SELECT id FROM orders UNION ALL SELECT NULL FROM duckdb_tables()

SELECT (SELECT count(*) FROM duckdb_tables()) AS n

SELECT * FROM duckdb_secrets()

SELECT id FROM orders UNION ALL SELECT NULL FROM duckdb_secrets()

SELECT (SELECT count(*) FROM duckdb_secrets()) AS n

SELECT * FROM duckdb_extensions()

SELECT id FROM orders UNION ALL SELECT NULL FROM duckdb_extensions()

SELECT (SELECT count(*) FROM duckdb_extensions()) AS n

SELECT * FROM duckdb_databases()

SELECT id FROM orders UNION ALL SELECT NULL FROM duckdb_databases()

SELECT (SELECT count(*) FROM duckdb_databases()) AS n

SELECT * FROM duckdb_functions()

SELECT id FROM orders UNION ALL SELECT NULL FROM duckdb_functions()

SELECT (SELECT count(*) FROM duckdb_functions()) AS n

SELECT * FROM duckdb_memory()

SELECT id FROM orders UNION ALL SELECT NULL FROM duckdb_memory()

SELECT (SELECT count(*) FROM duckdb_memory()) AS n

SELECT * FROM duckdb_temporary_files()

SELECT id FROM orders UNION ALL SELECT NULL FROM duckdb_temporary_files()

SELECT (SELECT count(*) FROM duckdb_temporary_files()) AS n

SELECT * FROM pragma_database_size()

SELECT id FROM orders UNION ALL SELECT NULL FROM pragma_database_size()

SELECT (SELECT count(*) FROM pragma_database_size()) AS n

SELECT * FROM pragma_version()

SELECT id FROM orders UNION ALL SELECT NULL FROM pragma_version()

SELECT (SELECT count(*) FROM pragma_version()) AS n

SELECT * FROM duckdb_columns()

SELECT id FROM orders UNION ALL SELECT NULL FROM duckdb_columns()

SELECT (SELECT count(*) FROM duckdb_columns()) AS n

SELECT * FROM duckdb_views()

SELECT id FROM orders UNION ALL SELECT NULL FROM duckdb_views()

SELECT (SELECT count(*) FROM duckdb_views()) AS n

SELECT * FROM duckdb_tables

WITH x AS (SELECT * FROM duckdb_tables) SELECT * FROM x

SELECT * FROM duckdb_settings

WITH x AS (SELECT * FROM duckdb_settings) SELECT * FROM x

SELECT * FROM pg_catalog.pg_class

WITH x AS (SELECT * FROM pg_catalog.pg_class) SELECT * FROM x

SELECT * FROM pg_class

WITH x AS (SELECT * FROM pg_class) SELECT * FROM x

SELECT * FROM pg_settings

WITH x AS (SELECT * FROM pg_settings) SELECT * FROM x

SELECT * FROM sqlite_master

WITH x AS (SELECT * FROM sqlite_master) SELECT * FROM x

SELECT * FROM system.main.duckdb_tables

WITH x AS (SELECT * FROM system.main.duckdb_tables) SELECT * FROM x

SELECT * FROM information_schema.schemata

WITH x AS (SELECT * FROM information_schema.schemata) SELECT * FROM x

SELECT * FROM main.duckdb_settings

WITH x AS (SELECT * FROM main.duckdb_settings) SELECT * FROM x

SELECT * FROM pg_catalog.pg_namespace

WITH x AS (SELECT * FROM pg_catalog.pg_namespace) SELECT * FROM x

SELECT current_setting('memory_limit')

SELECT current_setting('temp_directory')

SELECT version()

SELECT which_secret('s3://x', 's3')

SELECT * FROM system.main.duckdb_settings()

SELECT * FROM temp.information_schema.tables

DESCRIBE orders

SHOW TABLES

SHOW ALL TABLES

SUMMARIZE orders

SELECT * FROM other.main.secret

SELECT * FROM memory.main.orders
