## Time and size bombs (slow): each must stop at the time limit, the job group cancelled.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT count(*) FROM range(100000000000)

SELECT count(*) FROM range(1000000) a CROSS JOIN range(1000000) b

SELECT max(length(repeat('x', 1000000000)))

SELECT id FROM range(1000000000) ORDER BY rand() LIMIT 5

SELECT length(lpad('a', CAST('1000000000' AS INT), 'b'))

SELECT length(repeat('a', id)) FROM range(1000000000, 1000000001)

SELECT size(collect_list(repeat('x', 1000000))) FROM range(5000)

SELECT size(array_repeat('x', CAST(rand() * 1000000000 AS INT)))

SELECT size(sequence(1, 1000000000))

SELECT size(sequence(1, id)) FROM range(1000000000, 1000000001)

WITH t0 AS (SELECT 'x' AS s), t1 AS (SELECT concat(s, s) AS s FROM t0), t2 AS (SELECT concat(s, s) AS s FROM t1), t3 AS (SELECT concat(s, s) AS s FROM t2), t4 AS (SELECT concat(s, s) AS s FROM t3), t5 AS (SELECT concat(s, s) AS s FROM t4), t6 AS (SELECT concat(s, s) AS s FROM t5), t7 AS (SELECT concat(s, s) AS s FROM t6), t8 AS (SELECT concat(s, s) AS s FROM t7), t9 AS (SELECT concat(s, s) AS s FROM t8), t10 AS (SELECT concat(s, s) AS s FROM t9), t11 AS (SELECT concat(s, s) AS s FROM t10), t12 AS (SELECT concat(s, s) AS s FROM t11), t13 AS (SELECT concat(s, s) AS s FROM t12), t14 AS (SELECT concat(s, s) AS s FROM t13), t15 AS (SELECT concat(s, s) AS s FROM t14), t16 AS (SELECT concat(s, s) AS s FROM t15), t17 AS (SELECT concat(s, s) AS s FROM t16), t18 AS (SELECT concat(s, s) AS s FROM t17), t19 AS (SELECT concat(s, s) AS s FROM t18), t20 AS (SELECT concat(s, s) AS s FROM t19) SELECT length(s) FROM t20

WITH RECURSIVE r(s, n) AS (SELECT repeat('x', 1000), 0 UNION ALL SELECT s || s, n + 1 FROM r WHERE n < 60) SELECT max(length(s)) FROM r
