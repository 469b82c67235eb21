## Settings, roles and session changes.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SET ROLE postgres

SET SESSION AUTHORIZATION postgres

RESET ROLE

SET search_path = pg_catalog

SET default_transaction_read_only = off

SET transaction_read_only = off

SET statement_timeout = 0

SET work_mem = '10GB'

SET max_statement_time = 0

SET sql_mode = ''

SET GLOBAL read_only = 0

SET @a = 1

SET NAMES latin1

SET enable_external_access = true

SET memory_limit = '100GB'

SET threads = 64

RESET ALL

DISCARD ALL

USE mysql

USE information_schema

SET PASSWORD = 'x'

ALTER USER root IDENTIFIED BY 'x'

ALTER SYSTEM SET work_mem = '1GB'

SET lock_configuration = false

SET SESSION sql_select_limit = DEFAULT

SET autocommit = 1

SELECT set_config('default_transaction_read_only', 'off', false)

SELECT set_config('statement_timeout', '0', false) FROM orders
