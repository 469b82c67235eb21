## Server accounts and password hashes, sessions, variables and paths.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT * FROM mysql.user

SELECT id FROM orders UNION SELECT NULL FROM mysql.user

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM mysql.user)

SELECT (SELECT count(*) FROM mysql.user) AS n

SELECT * FROM mysql.global_priv

SELECT id FROM orders UNION SELECT NULL FROM mysql.global_priv

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM mysql.global_priv)

SELECT (SELECT count(*) FROM mysql.global_priv) AS n

SELECT * FROM mysql.db

SELECT id FROM orders UNION SELECT NULL FROM mysql.db

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM mysql.db)

SELECT (SELECT count(*) FROM mysql.db) AS n

SELECT * FROM information_schema.processlist

SELECT id FROM orders UNION SELECT NULL FROM information_schema.processlist

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM information_schema.processlist)

SELECT (SELECT count(*) FROM information_schema.processlist) AS n

SELECT * FROM information_schema.user_privileges

SELECT id FROM orders UNION SELECT NULL FROM information_schema.user_privileges

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM information_schema.user_privileges)

SELECT (SELECT count(*) FROM information_schema.user_privileges) AS n

SELECT * FROM performance_schema.threads

SELECT id FROM orders UNION SELECT NULL FROM performance_schema.threads

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM performance_schema.threads)

SELECT (SELECT count(*) FROM performance_schema.threads) AS n

SELECT * FROM performance_schema.events_statements_current

SELECT id FROM orders UNION SELECT NULL FROM performance_schema.events_statements_current

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM performance_schema.events_statements_current)

SELECT (SELECT count(*) FROM performance_schema.events_statements_current) AS n

SELECT * FROM sys.processlist

SELECT id FROM orders UNION SELECT NULL FROM sys.processlist

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM sys.processlist)

SELECT (SELECT count(*) FROM sys.processlist) AS n

SELECT * FROM mysql.proc

SELECT id FROM orders UNION SELECT NULL FROM mysql.proc

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM mysql.proc)

SELECT (SELECT count(*) FROM mysql.proc) AS n

SELECT * FROM MYSQL.USER

SELECT id FROM orders UNION SELECT NULL FROM MYSQL.USER

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM MYSQL.USER)

SELECT (SELECT count(*) FROM MYSQL.USER) AS n

SELECT * FROM `mysql`.`user`

SELECT id FROM orders UNION SELECT NULL FROM `mysql`.`user`

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM `mysql`.`user`)

SELECT (SELECT count(*) FROM `mysql`.`user`) AS n

SELECT * FROM information_schema.PROCESSLIST

SELECT id FROM orders UNION SELECT NULL FROM information_schema.PROCESSLIST

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM information_schema.PROCESSLIST)

SELECT (SELECT count(*) FROM information_schema.PROCESSLIST) AS n

SELECT * FROM performance_schema.session_variables

SELECT id FROM orders UNION SELECT NULL FROM performance_schema.session_variables

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM performance_schema.session_variables)

SELECT (SELECT count(*) FROM performance_schema.session_variables) AS n

SELECT * FROM information_schema.global_variables

SELECT id FROM orders UNION SELECT NULL FROM information_schema.global_variables

SELECT * FROM orders WHERE EXISTS (SELECT 1 FROM information_schema.global_variables)

SELECT (SELECT count(*) FROM information_schema.global_variables) AS n

SELECT user, authentication_string FROM mysql.user

SELECT Priv FROM mysql.global_priv

SELECT info FROM information_schema.processlist

SELECT @@datadir

SELECT @@basedir

SELECT @@global.secure_file_priv

SELECT @@version

SELECT @@hostname

SELECT @@session.sql_mode

SELECT @a := 1

SELECT @a := (SELECT count(*) FROM orders)

SELECT id, @r := @r + 1 FROM orders

SELECT @a

SELECT id INTO @x FROM orders LIMIT 1

SELECT user()

SELECT current_user()

SELECT version()

SELECT connection_id()

SELECT database()

SELECT system_user()

SHOW DATABASES

SHOW TABLES FROM mysql

SHOW GRANTS

SHOW PROCESSLIST

SHOW VARIABLES

SHOW CREATE TABLE orders

DESCRIBE mysql.user

DESC orders

EXPLAIN mysql.user

HANDLER orders OPEN

TABLE mysql.user

SELECT * FROM mysql.user PROCEDURE ANALYSE()

SELECT * FROM orders WHERE id = (SELECT count(*) FROM mysql.user)

SELECT 1 FROM DUAL WHERE (SELECT 1 FROM mysql.user LIMIT 1) = 1
