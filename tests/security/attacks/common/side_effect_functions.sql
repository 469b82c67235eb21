## Functions with side effects called inside a SELECT.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT pg_sleep(10)

SELECT sleep(10)

SELECT benchmark(100000000, md5('a'))

SELECT get_lock('x', 1)

SELECT release_lock('x')

SELECT pg_advisory_lock(1)

SELECT pg_try_advisory_lock(1)

SELECT nextval('orders_id_seq')

SELECT setval('orders_id_seq', 1)

SELECT pg_stat_reset()

SELECT id, pg_stat_reset() FROM orders

SELECT pg_promote()

SELECT pg_reload_conf()

SELECT pg_rotate_logfile()

SELECT pg_terminate_backend(1)

SELECT pg_cancel_backend(1)

SELECT pg_switch_wal()

SELECT pg_notify('c', 'x')

SELECT txid_current()

SELECT load_extension('/tmp/evil.so')

SELECT changes()

SELECT last_insert_id()

SELECT found_rows()

SELECT pg_stat_reset_shared('bgwriter')

SELECT pg_create_restore_point('x')

SELECT dblink_exec('dbname=x', 'DROP TABLE t')

SELECT * FROM dblink('dbname=postgres', 'SELECT 1') AS t(a int)

SELECT query_to_xml('DELETE FROM orders RETURNING 1', true, true, '')

SELECT * FROM orders WHERE pg_sleep(1) IS NULL

SELECT count(*) FROM orders GROUP BY pg_stat_reset()

SELECT CASE WHEN 1 = 1 THEN pg_stat_reset() END

SELECT (SELECT pg_stat_reset())

WITH x AS (SELECT pg_stat_reset()) SELECT * FROM x

SELECT * FROM orders ORDER BY sleep(1)

SELECT pg_catalog.pg_stat_reset()

SELECT PG_STAT_RESET()

SELECT "pg_stat_reset"()

SELECT lo_create(0)

SELECT lo_unlink(1)

SELECT pg_advisory_xact_lock(1)

SELECT currval('orders_id_seq')

SELECT lastval()

SELECT pg_log_backend_memory_contexts(1)

SELECT pg_stat_reset_single_table_counters(1)

SELECT install_extension('httpfs')

SELECT * FROM query('DELETE FROM orders')

SELECT * FROM query_table('orders')

SELECT is_free_lock('x')

SELECT master_pos_wait('x', 1)

SELECT uuid_short()

SELECT pg_xact_commit_timestamp('1')
