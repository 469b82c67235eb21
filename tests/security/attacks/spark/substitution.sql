## Spark variable substitution: ${…} is replaced in the raw text, after the guard read it and before Spark
## parses it (when spark.sql.variable.substitute is on), in strings, names and comments alike. Planted: an
## environment variable of the JVM (GROUNDSQL_CANARY_JVM_ENV), a JVM property (groundsql.canary) and a
## SparkContext setting (spark.groundsql.canary_context), besides the harness's file, other database and
## global temporary view. Every form is refused by the guard, whatever the session's setting.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT '${env:GROUNDSQL_CANARY_JVM_ENV}'

SELECT "${env:GROUNDSQL_CANARY_JVM_ENV}" AS v

SELECT '${ENV:GROUNDSQL_CANARY_JVM_ENV}'

SELECT '${env:HOME}', '${env:PATH}'

SELECT '${system:groundsql.canary}'

SELECT '${SYSTEM:groundsql.canary}'

SELECT '${system:user.home}', '${system:java.class.path}', '${system:user.dir}'

SELECT '${spark.groundsql.canary_context}'

SELECT '${hiveconf:spark.groundsql.canary_context}'

SELECT '${sparkconf:spark.groundsql.canary_context}'

SELECT '${hivevar:spark.groundsql.canary_context}'

SELECT '${spark.groundsql.canary}'

SELECT '${spark.sql.warehouse.dir}'

SELECT '${spark.app.id}', '${spark.driver.host}'

SELECT ${system:groundsql.canary}

SELECT name FROM customers WHERE name = '${system:groundsql.canary}' OR 1 = 1

SELECT concat('x', '${env:GROUNDSQL_CANARY_JVM_ENV}') AS v FROM customers LIMIT 1

SELECT 1 AS `${env:GROUNDSQL_CANARY_JVM_ENV}`

SELECT `${system:groundsql.canary}` FROM customers

SELECT * FROM `${spark.groundsql.canary_context}`

SELECT id FROM customers AS `${env:HOME}`

SELECT '$${env:GROUNDSQL_CANARY_JVM_ENV}'

SELECT '${${env:GROUNDSQL_CANARY_JVM_ENV}}'

SELECT '${system:${env:X}}'

SELECT '\${env:GROUNDSQL_CANARY_JVM_ENV}'

SELECT '${ env:GROUNDSQL_CANARY_JVM_ENV }'

SELECT '${env:GROUNDSQL_CANARY_JVM_ENV'

SELECT '$' || '{env:x}' || '${env:GROUNDSQL_CANARY_JVM_ENV}'

SELECT /*+ COALESCE(${system:groundsql.canary}) */ 1

SELECT 1 AS x -- ${system:line.separator} UNION ALL SELECT v FROM groundsql_canary_db.secret

SELECT 1 AS x --${system:line.separator}UNION ALL SELECT v FROM global_temp.groundsql_secret

SELECT 1 AS x /* ${system:line.separator} */ -- ${system:line.separator} UNION ALL SELECT v FROM groundsql_canary_db.secret

SELECT name FROM customers -- ${system:line.separator} UNION ALL SELECT value FROM text.`/etc/hostname`

SELECT name FROM customers -- ${system:line.separator} UNION ALL SELECT java_method('java.lang.System', 'getenv', 'GROUNDSQL_CANARY_JVM_ENV')

SELECT name FROM customers -- ${system:line.separator} UNION ALL SELECT reflect('java.lang.System', 'setProperty', 'groundsql.pwned', 'yes')

SELECT 1 AS x -- ${system:line.separator} UNION ALL SELECT TRANSFORM(1) USING 'sh -c "touch /tmp/pwned"' AS (y)

SELECT 1 AS x -- ${system:line.separator} ; INSERT OVERWRITE DIRECTORY '/tmp/pwned' USING csv SELECT * FROM customers

SELECT 1 AS x -- ${system:line.separator} ; ADD JAR '/tmp/pwned.jar'

SELECT 1 AS x -- ${SYSTEM:line.separator} UNION ALL SELECT v FROM groundsql_canary_db.secret

SELECT 1 AS x -- ${system:file.separator}${system:line.separator} UNION ALL SELECT v FROM groundsql_canary_db.secret

SELECT 1 AS x
-- ${system:line.separator} UNION ALL SELECT v FROM groundsql_canary_db.secret

SELECT '${system:line.separator}' AS x -- ' UNION ALL SELECT v FROM groundsql_canary_db.secret
