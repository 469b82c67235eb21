## Another database or schema the connection should not read.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT * FROM groundsql_canary_db.public.secret

SELECT * FROM postgres.public.secret

SELECT * FROM template1.pg_catalog.pg_authid

SELECT * FROM dblink('dbname=groundsql_canary_db', 'SELECT v FROM secret') AS t(v text)

SELECT * FROM other_schema.secret

SELECT * FROM secret_schema.secret

SELECT v FROM secret

SELECT * FROM pg_temp.x

SELECT * FROM public.orders o JOIN canary.public.secret s ON true

SELECT * FROM "groundsql_canary_db"."public"."secret"
