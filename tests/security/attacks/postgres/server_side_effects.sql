## COPY, extensions, DO blocks, cursors, notifications.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

COPY orders TO '/tmp/pwned'

COPY orders TO PROGRAM 'id'

COPY (SELECT 1) TO STDOUT

COPY orders FROM '/etc/passwd'

CREATE EXTENSION dblink

DROP EXTENSION plpgsql

LOAD 'auto_explain'

DO $$BEGIN PERFORM pg_sleep(1); END$$

CALL p()

LISTEN c

NOTIFY c, 'x'

UNLISTEN *

PREPARE p AS SELECT 1

EXECUTE p

DEALLOCATE ALL

DECLARE c CURSOR FOR SELECT 1

FETCH ALL FROM c

CLOSE c

CLUSTER orders

REFRESH MATERIALIZED VIEW mv

SECURITY LABEL ON TABLE orders IS 'x'

IMPORT FOREIGN SCHEMA public FROM SERVER s INTO public

CREATE SERVER s FOREIGN DATA WRAPPER postgres_fdw

ALTER DATABASE shop SET work_mem = '1GB'

ALTER ROLE postgres SET statement_timeout = 0

SELECT pg_stat_reset() FROM orders LIMIT 1

SELECT * FROM orders WHERE id = pg_backend_pid()

SELECT pg_sleep_for('10 seconds')

SELECT pg_sleep_until(now() + interval '10 seconds')

TABLE orders; DELETE FROM orders
