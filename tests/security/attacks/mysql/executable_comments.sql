## /*! … */ executable comments, hints, '--' without a space, string tricks.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT /*!(SELECT COUNT(*) FROM mysql.user) */

SELECT /*!50000 (SELECT COUNT(*) FROM mysql.user) */

SELECT 1 /*!, (SELECT COUNT(*) FROM mysql.user) */

SELECT /*M!(SELECT COUNT(*) FROM mysql.user) */

SELECT /*M!100000 (SELECT COUNT(*) FROM mysql.user) */

SELECT id FROM orders /*!UNION SELECT (SELECT COUNT(*) FROM mysql.user) */

SELECT /*!(SELECT v FROM groundsql_canary_db.secret LIMIT 1) */

SELECT /*!50000 (SELECT v FROM groundsql_canary_db.secret LIMIT 1) */

SELECT 1 /*!, (SELECT v FROM groundsql_canary_db.secret LIMIT 1) */

SELECT /*M!(SELECT v FROM groundsql_canary_db.secret LIMIT 1) */

SELECT /*M!100000 (SELECT v FROM groundsql_canary_db.secret LIMIT 1) */

SELECT id FROM orders /*!UNION SELECT (SELECT v FROM groundsql_canary_db.secret LIMIT 1) */

SELECT /*!1; DROP TABLE orders */

SELECT /*!50000 1; DROP TABLE orders */

SELECT 1 /*!, 1; DROP TABLE orders */

SELECT /*M!1; DROP TABLE orders */

SELECT /*M!100000 1; DROP TABLE orders */

SELECT id FROM orders /*!UNION SELECT 1; DROP TABLE orders */

SELECT /*!, sleep(5) */

SELECT /*!50000 , sleep(5) */

SELECT 1 /*!, , sleep(5) */

SELECT /*M!, sleep(5) */

SELECT /*M!100000 , sleep(5) */

SELECT id FROM orders /*!UNION SELECT , sleep(5) */

SELECT /*!FROM mysql.user */

SELECT /*!50000 FROM mysql.user */

SELECT 1 /*!, FROM mysql.user */

SELECT /*M!FROM mysql.user */

SELECT /*M!100000 FROM mysql.user */

SELECT id FROM orders /*!UNION SELECT FROM mysql.user */

SELECT /*!(SELECT authentication_string FROM mysql.user LIMIT 1) */

SELECT /*!50000 (SELECT authentication_string FROM mysql.user LIMIT 1) */

SELECT 1 /*!, (SELECT authentication_string FROM mysql.user LIMIT 1) */

SELECT /*M!(SELECT authentication_string FROM mysql.user LIMIT 1) */

SELECT /*M!100000 (SELECT authentication_string FROM mysql.user LIMIT 1) */

SELECT id FROM orders /*!UNION SELECT (SELECT authentication_string FROM mysql.user LIMIT 1) */

SELECT /*+ MAX_EXECUTION_TIME(100000000) */ 1

SELECT /*+ SET_VAR(sql_select_limit = 100000) */ * FROM orders

SELECT /*+ SET_VAR(max_statement_time = 0) */ 1

SELECT 1 --1
, (SELECT count(*) FROM mysql.user)

SELECT 1 --x
, sleep(5)

SELECT 1 #
, (SELECT v FROM groundsql_canary_db.secret)

SELECT '\'', (SELECT count(*) FROM mysql.user), '\''

SELECT "a" FROM orders WHERE "x" = "\"" OR (SELECT count(*) FROM mysql.user)

SELECT 1/*!*/

SELECT /*!*/ 1 FROM mysql.user

SELECT id FROM orders WHERE 1=1 /*! AND 0 UNION SELECT user FROM mysql.user */

/*!SELECT*/ 1

SELECT 1 /*!99999 , 2 */

SELECT 1 -- 


SELECT 1 --	, sleep(3)
