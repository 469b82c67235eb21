## ATTACH, PRAGMA and VACUUM INTO.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

ATTACH DATABASE '/tmp/pwned.db' AS p

ATTACH '/tmp/pwned.db' AS p

DETACH DATABASE main

ATTACH DATABASE ':memory:' AS m

ATTACH DATABASE 'file:/tmp/x.db?mode=rwc' AS p

PRAGMA writable_schema = 1

PRAGMA query_only = 0

PRAGMA journal_mode = DELETE

PRAGMA user_version = 42

PRAGMA foreign_keys = OFF

PRAGMA table_info(orders)

PRAGMA integrity_check

PRAGMA wal_checkpoint

PRAGMA optimize

PRAGMA cache_size = -2000000

PRAGMA temp_store_directory = '/tmp'

PRAGMA trusted_schema = 1

PRAGMA hard_heap_limit = 0

PRAGMA mmap_size = 1000000000

VACUUM INTO '/tmp/pwned.db'

VACUUM main INTO '/tmp/pwned.db'

SELECT * FROM orders; ATTACH '/tmp/x.db' AS x

REINDEX orders

ANALYZE main

CREATE VIRTUAL TABLE v USING fts5(a)

SELECT * FROM pragma_table_info('sqlite_master')

SELECT * FROM pragma_index_list('orders')

INSERT INTO orders DEFAULT VALUES

INSERT OR REPLACE INTO orders (id) VALUES (1)

UPSERT INTO orders (id) VALUES (1)
