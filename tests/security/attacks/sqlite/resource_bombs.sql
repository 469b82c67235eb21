## Memory and time bombs (slow).
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT randomblob(1000000000)

SELECT zeroblob(1000000000)

SELECT length(zeroblob(1000000000))

SELECT hex(randomblob(500000000))

SELECT printf('%.*c', 1000000000, 'x')

SELECT length(replace(printf('%.*c', 100000000, 'x'), 'x', 'xxxxxxxxxx'))

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c

WITH RECURSIVE c(s) AS (SELECT 'x' UNION ALL SELECT s || s FROM c) SELECT length(s) FROM c

SELECT count(*) FROM orders a, orders b, orders c, orders d, orders e, orders f

SELECT group_concat(printf('%.*c', 1000, 'x')) FROM orders a, orders b, orders c
