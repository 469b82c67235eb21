## Memory and time bombs (slow).
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT a.x, b.x FROM generate_series(1, 100000) a(x), generate_series(1, 100000) b(x)

SELECT count(*) FROM generate_series(1, 10000000000)

SELECT repeat('x', 1000000000)

SELECT string_agg(x::text, ',') FROM generate_series(1, 300000000) x

SELECT x FROM generate_series(1, 100000000) x ORDER BY random()

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c

SELECT array_agg(x) FROM generate_series(1, 500000000) x

SELECT md5(repeat('x', 500000000))
