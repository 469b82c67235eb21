## Data-modifying CTEs.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

WITH d AS (DELETE FROM orders RETURNING *) SELECT * FROM d

WITH u AS (UPDATE orders SET total = 0 RETURNING id) SELECT count(*) FROM u

WITH i AS (INSERT INTO orders (id) VALUES (777777) RETURNING id) SELECT * FROM i

WITH d AS (DELETE FROM order_items RETURNING *), e AS (SELECT 1) SELECT * FROM e

WITH RECURSIVE d AS (DELETE FROM orders RETURNING *) SELECT 1

SELECT * FROM (WITH d AS (DELETE FROM orders RETURNING id) SELECT id FROM d) s

WITH x AS (SELECT 1) INSERT INTO orders (id) SELECT 1 FROM x

WITH x AS (SELECT id FROM orders) UPDATE orders SET total = 0 WHERE id IN (SELECT id FROM x)

WITH x AS MATERIALIZED (DELETE FROM orders RETURNING 1) SELECT * FROM x

SELECT (WITH d AS (DELETE FROM orders RETURNING 1) SELECT count(*) FROM d)
