## Password hashes, settings, server paths, other sessions' queries.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT * FROM pg_authid

SELECT id FROM orders UNION SELECT NULL FROM pg_authid

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_authid)

SELECT (SELECT count(*) FROM pg_authid) AS n

SELECT * FROM pg_shadow

SELECT id FROM orders UNION SELECT NULL FROM pg_shadow

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_shadow)

SELECT (SELECT count(*) FROM pg_shadow) AS n

SELECT * FROM pg_user

SELECT id FROM orders UNION SELECT NULL FROM pg_user

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_user)

SELECT (SELECT count(*) FROM pg_user) AS n

SELECT * FROM pg_roles

SELECT id FROM orders UNION SELECT NULL FROM pg_roles

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_roles)

SELECT (SELECT count(*) FROM pg_roles) AS n

SELECT * FROM pg_settings

SELECT id FROM orders UNION SELECT NULL FROM pg_settings

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_settings)

SELECT (SELECT count(*) FROM pg_settings) AS n

SELECT * FROM pg_hba_file_rules

SELECT id FROM orders UNION SELECT NULL FROM pg_hba_file_rules

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_hba_file_rules)

SELECT (SELECT count(*) FROM pg_hba_file_rules) AS n

SELECT * FROM pg_file_settings

SELECT id FROM orders UNION SELECT NULL FROM pg_file_settings

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_file_settings)

SELECT (SELECT count(*) FROM pg_file_settings) AS n

SELECT * FROM pg_stat_activity

SELECT id FROM orders UNION SELECT NULL FROM pg_stat_activity

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_stat_activity)

SELECT (SELECT count(*) FROM pg_stat_activity) AS n

SELECT * FROM pg_catalog.pg_authid

SELECT id FROM orders UNION SELECT NULL FROM pg_catalog.pg_authid

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_authid)

SELECT (SELECT count(*) FROM pg_catalog.pg_authid) AS n

SELECT * FROM pg_catalog.pg_stat_activity

SELECT id FROM orders UNION SELECT NULL FROM pg_catalog.pg_stat_activity

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_stat_activity)

SELECT (SELECT count(*) FROM pg_catalog.pg_stat_activity) AS n

SELECT * FROM pg_stat_statements

SELECT id FROM orders UNION SELECT NULL FROM pg_stat_statements

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_stat_statements)

SELECT (SELECT count(*) FROM pg_stat_statements) AS n

SELECT * FROM pg_database

SELECT id FROM orders UNION SELECT NULL FROM pg_database

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_database)

SELECT (SELECT count(*) FROM pg_database) AS n

SELECT * FROM pg_class

SELECT id FROM orders UNION SELECT NULL FROM pg_class

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_class)

SELECT (SELECT count(*) FROM pg_class) AS n

SELECT * FROM pg_proc

SELECT id FROM orders UNION SELECT NULL FROM pg_proc

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_proc)

SELECT (SELECT count(*) FROM pg_proc) AS n

SELECT * FROM pg_catalog.pg_settings

SELECT id FROM orders UNION SELECT NULL FROM pg_catalog.pg_settings

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_catalog.pg_settings)

SELECT (SELECT count(*) FROM pg_catalog.pg_settings) AS n

SELECT * FROM pg_ident_file_mappings

SELECT id FROM orders UNION SELECT NULL FROM pg_ident_file_mappings

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_ident_file_mappings)

SELECT (SELECT count(*) FROM pg_ident_file_mappings) AS n

SELECT * FROM pg_stat_ssl

SELECT id FROM orders UNION SELECT NULL FROM pg_stat_ssl

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_stat_ssl)

SELECT (SELECT count(*) FROM pg_stat_ssl) AS n

SELECT * FROM pg_user_mappings

SELECT id FROM orders UNION SELECT NULL FROM pg_user_mappings

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_user_mappings)

SELECT (SELECT count(*) FROM pg_user_mappings) AS n

SELECT * FROM pg_largeobject

SELECT id FROM orders UNION SELECT NULL FROM pg_largeobject

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_largeobject)

SELECT (SELECT count(*) FROM pg_largeobject) AS n

SELECT * FROM PG_AUTHID

SELECT id FROM orders UNION SELECT NULL FROM PG_AUTHID

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM PG_AUTHID)

SELECT (SELECT count(*) FROM PG_AUTHID) AS n

SELECT * FROM "pg_authid"

SELECT id FROM orders UNION SELECT NULL FROM "pg_authid"

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM "pg_authid")

SELECT (SELECT count(*) FROM "pg_authid") AS n

SELECT * FROM pg_catalog."pg_authid"

SELECT id FROM orders UNION SELECT NULL FROM pg_catalog."pg_authid"

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM pg_catalog."pg_authid")

SELECT (SELECT count(*) FROM pg_catalog."pg_authid") AS n

SELECT rolname, rolpassword FROM pg_authid

SELECT usename, passwd FROM pg_shadow

SELECT query FROM pg_stat_activity

SELECT current_setting('data_directory')

SELECT current_setting('hba_file')

SELECT setting FROM pg_settings WHERE name = 'data_directory'

SELECT * FROM pg_ls_waldir()

SELECT * FROM pg_ls_logdir()

SELECT * FROM pg_ls_tmpdir()

SELECT * FROM pg_ls_archive_statusdir()

SELECT version()

SELECT inet_server_addr()

SELECT current_query()

SELECT pg_postmaster_start_time()

SELECT pg_current_logfile()

SELECT * FROM pg_stat_get_activity(NULL)

SELECT pg_get_userbyid(10)

SELECT * FROM pg_config

SELECT * FROM pg_config()

SELECT 'pg_authid'::regclass::oid

SELECT * FROM public.pg_authid

WITH pg_authid AS (SELECT * FROM pg_authid) SELECT * FROM pg_authid

SELECT * FROM pg_toast.pg_toast_1255

SELECT table_to_xml('pg_authid', true, true, '')

SELECT cursor_to_xml('c', 1, true, true, '')

SELECT has_table_privilege('pg_authid', 'select')

SELECT pg_catalog.current_setting('data_directory')

SELECT * FROM information_schema.enabled_roles

SELECT * FROM information_schema.role_table_grants

SELECT current_user

SELECT session_user

SELECT txid_current_snapshot()
