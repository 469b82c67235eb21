## Memory and time bombs (slow).
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT string_agg(x::VARCHAR, ',') FROM range(1000000000) t(x)

SELECT repeat('x', 1000000000)

SELECT length(repeat('x', 1000000000))

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c

WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT count(*) FROM c

SELECT count(*) FROM range(100000000000)

SELECT list(x) FROM range(1000000000) t(x)

SELECT count(*) FROM range(100000) a, range(100000) b

SELECT x FROM range(1000000000) t(x) ORDER BY random()

SELECT array_agg(repeat('x', 1000)) FROM range(10000000)
