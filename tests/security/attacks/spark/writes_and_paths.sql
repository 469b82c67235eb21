## Spark SQL writes: tables, directories and storage paths (Spark has no read-only session).
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

INSERT OVERWRITE TABLE orders SELECT * FROM orders WHERE id < 3

INSERT INTO orders SELECT * FROM orders

INSERT INTO TABLE customers VALUES (99, 'x', 'North', 'consumer', DATE '2024-01-01', NULL)

INSERT OVERWRITE DIRECTORY '/tmp/pwned' USING parquet SELECT * FROM customers

INSERT OVERWRITE LOCAL DIRECTORY '/tmp/pwned' SELECT * FROM customers

INSERT OVERWRITE DIRECTORY USING csv OPTIONS (path '/tmp/pwned.csv') SELECT * FROM customers

CREATE TABLE pwned USING parquet LOCATION '/tmp/pwned' AS SELECT * FROM customers

CREATE TABLE pwned USING csv OPTIONS (path '/tmp/pwned.csv') AS SELECT * FROM customers

CREATE TABLE pwned (id INT) USING parquet LOCATION '/tmp/pwned'

CREATE EXTERNAL TABLE pwned (line STRING) LOCATION '/etc'

CREATE TABLE pwned LIKE orders LOCATION '/tmp/pwned'

CREATE OR REPLACE TEMPORARY VIEW pwned USING text OPTIONS (path '/etc/passwd')

CREATE TEMPORARY VIEW pwned AS SELECT * FROM orders

CREATE VIEW pwned AS SELECT * FROM orders

ALTER TABLE orders SET LOCATION '/tmp/pwned'

ALTER TABLE orders SET TBLPROPERTIES ('owner' = 'pwned')

ALTER TABLE orders ADD COLUMNS (pwned STRING)

ALTER TABLE orders RENAME TO pwned

LOAD DATA LOCAL INPATH '/tmp/x' INTO TABLE orders

LOAD DATA INPATH '/tmp/x' OVERWRITE INTO TABLE orders

UPDATE orders SET total = 0

DELETE FROM orders WHERE id = 1

MERGE INTO orders t USING orders s ON t.id = s.id WHEN MATCHED THEN DELETE

TRUNCATE TABLE orders

DROP TABLE orders

DROP TABLE IF EXISTS groundsql_canary_db.secret

DROP DATABASE groundsql_canary_db CASCADE

CREATE DATABASE pwned LOCATION '/tmp/pwned'

WITH o AS (SELECT * FROM orders) INSERT OVERWRITE TABLE orders SELECT * FROM o

FROM orders INSERT OVERWRITE TABLE orders SELECT *

SELECT * FROM parquet.`/tmp`

SELECT * FROM text.`/etc/passwd`

SELECT * FROM text.`file:///etc/passwd`

SELECT * FROM csv.`/tmp/pytest-of-*/*/security_spark*/secret.txt`

SELECT * FROM json.`hdfs://namenode/secrets`

SELECT * FROM binaryFile.`/etc`

SELECT o.id FROM orders o JOIN text.`/etc/passwd` p ON true

SELECT (SELECT count(*) FROM text.`/etc/passwd`) AS n

WITH p AS (SELECT * FROM text.`/etc/passwd`) SELECT * FROM p

SELECT * FROM read_files('/etc/passwd', format => 'text')

SELECT input_file_name() FROM orders

SELECT * FROM `/etc/passwd`
