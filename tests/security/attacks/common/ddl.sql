## Schema changes, users and grants.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

DROP TABLE orders

DROP TABLE IF EXISTS orders

ALTER TABLE orders ADD COLUMN pwned INT

ALTER TABLE orders RENAME TO orders_old

CREATE TABLE orders_copy AS SELECT * FROM orders

CREATE VIEW v_orders AS SELECT * FROM orders

CREATE INDEX idx_orders ON orders (id)

DROP VIEW IF EXISTS v_orders

CREATE TEMPORARY TABLE tmp_orders AS SELECT * FROM orders

ALTER TABLE orders DROP COLUMN id

COMMENT ON TABLE orders IS 'x'

SELECT * INTO orders_backup FROM orders

CREATE TABLE IF NOT EXISTS orders (a INT)

DROP TABLE customers

DROP TABLE IF EXISTS customers

ALTER TABLE customers ADD COLUMN pwned INT

ALTER TABLE customers RENAME TO customers_old

CREATE TABLE customers_copy AS SELECT * FROM customers

CREATE VIEW v_customers AS SELECT * FROM customers

CREATE INDEX idx_customers ON customers (id)

DROP VIEW IF EXISTS v_customers

CREATE TEMPORARY TABLE tmp_customers AS SELECT * FROM customers

ALTER TABLE customers DROP COLUMN id

COMMENT ON TABLE customers IS 'x'

SELECT * INTO customers_backup FROM customers

CREATE TABLE IF NOT EXISTS customers (a INT)

CREATE TABLE pwned (a INT)

CREATE SCHEMA pwned

DROP SCHEMA public CASCADE

CREATE DATABASE pwned

DROP DATABASE shop

CREATE SEQUENCE pwned_seq

CREATE FUNCTION f() RETURNS INT AS 'SELECT 1'

CREATE TRIGGER tr AFTER INSERT ON orders BEGIN SELECT 1; END

CREATE MACRO m(a) AS a

VACUUM

ANALYZE

ANALYZE orders

REINDEX

CHECKPOINT

CREATE USER pwned

DROP USER root

GRANT ALL ON orders TO public

REVOKE ALL ON orders FROM public

CREATE ROLE pwned
