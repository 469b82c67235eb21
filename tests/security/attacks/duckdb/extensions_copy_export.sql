## Extensions, COPY/EXPORT, ATTACH, secrets and file readers.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

INSTALL httpfs

LOAD httpfs

INSTALL postgres_scanner

LOAD 'evil.duckdb_extension'

FORCE INSTALL httpfs

COPY orders TO '/tmp/pwned.csv'

COPY (SELECT * FROM orders) TO '/tmp/pwned.parquet' (FORMAT parquet)

COPY orders FROM '/tmp/x.csv'

EXPORT DATABASE '/tmp/pwned'

IMPORT DATABASE '/tmp/pwned'

ATTACH '/tmp/pwned.duckdb' AS p

ATTACH ':memory:' AS m

DETACH memory

USE memory

CREATE SECRET s (TYPE s3, KEY_ID 'x', SECRET 'y')

DROP SECRET s

PRAGMA enable_profiling

PRAGMA database_size

CALL pragma_version()

CALL duckdb_settings()

SET enable_external_access = true

RESET enable_external_access

SELECT * FROM postgres_scan('dbname=postgres', 'public', 't')

SELECT * FROM mysql_scan('x', 'y')

SELECT * FROM iceberg_scan('/tmp/x')

SELECT * FROM delta_scan('/tmp/x')

SELECT * FROM read_ndjson('/etc/passwd')

SELECT * FROM parquet_scan('/tmp/x.parquet')

SELECT * FROM read_json_objects('/etc/passwd')

SELECT * FROM 'orders.csv'

SELECT * FROM "/etc/passwd"

FROM read_text('/etc/passwd')

SELECT * FROM orders, read_text('/etc/hostname')

CREATE MACRO pwn() AS TABLE SELECT 1

CHECKPOINT

FORCE CHECKPOINT

SET threads = 1000

SET max_memory = '1TB'

SELECT * FROM glob('*')
