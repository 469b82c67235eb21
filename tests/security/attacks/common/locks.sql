## Row and table locks.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT * FROM orders FOR UPDATE

SELECT * FROM orders FOR SHARE

SELECT * FROM orders FOR UPDATE NOWAIT

SELECT * FROM orders FOR UPDATE SKIP LOCKED

SELECT * FROM orders FOR NO KEY UPDATE

SELECT * FROM orders FOR KEY SHARE

SELECT * FROM orders LOCK IN SHARE MODE

SELECT id FROM (SELECT * FROM orders FOR UPDATE) s

LOCK TABLE orders

LOCK TABLE orders IN ACCESS EXCLUSIVE MODE

WITH x AS (SELECT * FROM orders FOR UPDATE) SELECT * FROM x

SELECT * FROM orders o JOIN customers c ON c.id = o.customer_id FOR UPDATE OF o
