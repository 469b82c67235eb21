## Several statements in one, comment tricks, EXPLAIN ANALYZE.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT 1; DROP TABLE orders

SELECT * FROM orders; DROP TABLE orders;

SELECT 1;
DROP TABLE orders

SELECT 1 /* ; */; DROP TABLE orders

SELECT ';'; DROP TABLE orders

SELECT 1 -- ;
; DROP TABLE orders

DROP TABLE orders; SELECT 1

SELECT 1;;DROP TABLE orders

SELECT '\''; DROP TABLE orders; SELECT '

SELECT 1; /* comment */ DROP TABLE orders

SELECT 1; DELETE FROM orders

SELECT * FROM orders; DELETE FROM orders;

SELECT 1;
DELETE FROM orders

SELECT 1 /* ; */; DELETE FROM orders

SELECT ';'; DELETE FROM orders

SELECT 1 -- ;
; DELETE FROM orders

DELETE FROM orders; SELECT 1

SELECT 1;;DELETE FROM orders

SELECT '\''; DELETE FROM orders; SELECT '

SELECT 1; /* comment */ DELETE FROM orders

SELECT 1; UPDATE orders SET total = 0

SELECT * FROM orders; UPDATE orders SET total = 0;

SELECT 1;
UPDATE orders SET total = 0

SELECT 1 /* ; */; UPDATE orders SET total = 0

SELECT ';'; UPDATE orders SET total = 0

SELECT 1 -- ;
; UPDATE orders SET total = 0

UPDATE orders SET total = 0; SELECT 1

SELECT 1;;UPDATE orders SET total = 0

SELECT '\''; UPDATE orders SET total = 0; SELECT '

SELECT 1; /* comment */ UPDATE orders SET total = 0

SELECT 1; INSERT INTO orders (id) VALUES (424242)

SELECT * FROM orders; INSERT INTO orders (id) VALUES (424242);

SELECT 1;
INSERT INTO orders (id) VALUES (424242)

SELECT 1 /* ; */; INSERT INTO orders (id) VALUES (424242)

SELECT ';'; INSERT INTO orders (id) VALUES (424242)

SELECT 1 -- ;
; INSERT INTO orders (id) VALUES (424242)

INSERT INTO orders (id) VALUES (424242); SELECT 1

SELECT 1;;INSERT INTO orders (id) VALUES (424242)

SELECT '\''; INSERT INTO orders (id) VALUES (424242); SELECT '

SELECT 1; /* comment */ INSERT INTO orders (id) VALUES (424242)

SELECT 1; CREATE TABLE pwned (a INT)

SELECT * FROM orders; CREATE TABLE pwned (a INT);

SELECT 1;
CREATE TABLE pwned (a INT)

SELECT 1 /* ; */; CREATE TABLE pwned (a INT)

SELECT ';'; CREATE TABLE pwned (a INT)

SELECT 1 -- ;
; CREATE TABLE pwned (a INT)

CREATE TABLE pwned (a INT); SELECT 1

SELECT 1;;CREATE TABLE pwned (a INT)

SELECT '\''; CREATE TABLE pwned (a INT); SELECT '

SELECT 1; /* comment */ CREATE TABLE pwned (a INT)

SELECT 1; SELECT 2

SELECT 1 UNION SELECT 2; SELECT 3

-- SELECT 1
DELETE FROM orders

/* SELECT 1 */ DELETE FROM orders

SELECT 1 /*

SELECT 1 */ DELETE FROM orders /*

SELECT $$;DELETE FROM orders;$$

SELECT 1 /* a /* b */ ; DELETE FROM orders; */

WITH x AS (SELECT 1) DELETE FROM orders

(DELETE FROM orders)

EXPLAIN ANALYZE DELETE FROM orders

EXPLAIN DELETE FROM orders

EXPLAIN ANALYZE SELECT * FROM orders

EXPLAIN (ANALYZE) SELECT 1

EXPLAIN (ANALYZE true, BUFFERS) SELECT * FROM orders

explain analyse select 1

SELECT 1 -- 
DELETE FROM orders

SELECT 1
--
DELETE FROM orders
