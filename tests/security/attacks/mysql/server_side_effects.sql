## Statements and functions that change the server or the session.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

DO sleep(5)

DO get_lock('x', 1)

FLUSH PRIVILEGES

FLUSH TABLES

KILL 1

KILL QUERY 1

RESET QUERY CACHE

INSTALL PLUGIN x SONAME 'x.so'

UNINSTALL PLUGIN x

CALL p()

PREPARE s FROM 'DELETE FROM orders'

EXECUTE s

DEALLOCATE PREPARE s

HANDLER orders READ FIRST

CACHE INDEX orders IN k

LOAD INDEX INTO CACHE orders

OPTIMIZE TABLE orders

REPAIR TABLE orders

CHECK TABLE orders

CHECKSUM TABLE orders

RENAME TABLE orders TO o2

SELECT * FROM orders LIMIT 1 INTO @a

SELECT GET_LOCK('x', 0)

SELECT MASTER_GTID_WAIT('0-1-1', 1)

SELECT NEXTVAL(s)

SELECT LASTVAL(s)

SELECT SETVAL(s, 1)

SELECT NEXT VALUE FOR s

SELECT * FROM orders INTO OUTFILE '/tmp/x'

BINLOG 'x'

PURGE BINARY LOGS TO 'x'

SHUTDOWN

SELECT RELEASE_ALL_LOCKS()

SET @@session.max_statement_time = 0
