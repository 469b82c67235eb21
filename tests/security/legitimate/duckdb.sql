## duckdb-specific dates, JSON and syntax over the shop schema.
## One statement per block; blocks are separated by a blank line.

SELECT date_trunc('month', order_date) AS month, count(*), sum(total) FROM orders GROUP BY month ORDER BY month

SELECT year(order_date) AS y, count(*) FROM orders GROUP BY y ORDER BY y

SELECT order_date + INTERVAL 30 DAY FROM orders ORDER BY id LIMIT 5

SELECT date_diff('day', min(order_date), max(order_date)) FROM orders

SELECT count(*) FROM orders WHERE order_date >= DATE '2024-06-01'

SELECT strftime(order_date, '%Y-%m') AS m, count(*) FROM orders GROUP BY m ORDER BY m

SELECT dayname(order_date), count(*) FROM orders GROUP BY 1 ORDER BY 1

SELECT extract(month FROM order_date) AS m, avg(total) FROM orders GROUP BY m ORDER BY m

SELECT json_extract_string(payload, '$.page') AS page, count(*) FROM events GROUP BY page ORDER BY page

SELECT count(*) FROM events WHERE CAST(json_extract(payload, '$.ms') AS INTEGER) > 500

SELECT payload->>'$.page' FROM events ORDER BY id LIMIT 5

SELECT list(name ORDER BY name) FROM products

SELECT arg_max(customer_id, total) FROM orders

SELECT median(total), quantile_cont(total, 0.9) FROM orders

SELECT * FROM range(5)

SELECT x, x * x FROM generate_series(1, 5) t(x)

SELECT unnest([1, 2, 3]) AS v

SELECT string_agg(name, ', ' ORDER BY name) FROM products

SELECT region, count(*) FROM customers GROUP BY ALL ORDER BY ALL

FROM orders SELECT id, total ORDER BY id LIMIT 3

SELECT * EXCLUDE (email) FROM customers ORDER BY id LIMIT 3

SELECT count_if(status = 'shipped') FROM orders

SELECT struct_pack(a := 1, b := 'x')

SELECT {'id': 1, 'n': 'x'} AS s

SELECT [1, 2, 3][2]

SELECT regexp_extract(email, '@(.*)$', 1) AS domain, count(*) FROM customers WHERE email IS NOT NULL GROUP BY domain ORDER BY domain

SELECT * FROM orders USING SAMPLE 10 ROWS

EXPLAIN SELECT count(*) FROM orders

SELECT main.orders.id FROM main.orders ORDER BY 1 LIMIT 3

SELECT today() >= DATE '2000-01-01'

SELECT epoch(order_date::TIMESTAMP) FROM orders LIMIT 2

SELECT 'abc'.upper()

SELECT count(*) FILTER (WHERE status = 'shipped') AS shipped FROM orders
