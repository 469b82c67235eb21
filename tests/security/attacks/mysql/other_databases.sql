## Another database on the same server.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT v FROM groundsql_canary_db.secret

SELECT id FROM orders UNION SELECT v FROM groundsql_canary_db.secret

SELECT * FROM `groundsql_canary_db`.`secret`

SELECT (SELECT v FROM groundsql_canary_db.secret LIMIT 1)

WITH s AS (SELECT v FROM groundsql_canary_db.secret) SELECT * FROM s

SELECT * FROM orders o JOIN groundsql_canary_db.secret s ON 1 = 1

SELECT * FROM test.t

SELECT * FROM GROUNDSQL_CANARY_DB.SECRET

TABLE groundsql_canary_db.secret

SELECT * FROM groundsql_canary_db . secret
