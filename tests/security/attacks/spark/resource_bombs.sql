## Time and size bombs (slow): each must stop at the time limit, the job group cancelled.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

SELECT count(*) FROM range(100000000000)

SELECT count(*) FROM range(1000000) a CROSS JOIN range(1000000) b

SELECT max(length(repeat('x', 1000000000)))

SELECT id FROM range(1000000000) ORDER BY rand() LIMIT 5
