## Memory and time bombs (slow).
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT a.id FROM orders a, orders b, orders c, orders d, orders e, orders f

SELECT repeat('x', 1000000000)

SELECT length(repeat('x', 100000000))

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c

SELECT group_concat(repeat('x', 1000)) FROM orders a, orders b, orders c

SELECT count(*) FROM orders a, orders b, orders c, orders d, orders e ORDER BY rand()

SELECT md5(repeat('x', 100000000))
