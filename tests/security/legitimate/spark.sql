## spark-specific dates, JSON, arrays and syntax over the shop schema.
## One statement per block; blocks are separated by a blank line.

SELECT date_trunc('month', order_date) AS month, count(*), sum(total) FROM orders GROUP BY month ORDER BY month

SELECT year(order_date) AS y, month(order_date) AS m, count(*) FROM orders GROUP BY y, m ORDER BY y, m

SELECT date_format(order_date, 'yyyy-MM') AS m, count(*) FROM orders GROUP BY m ORDER BY m

SELECT date_add(order_date, 30) FROM orders ORDER BY id LIMIT 5

SELECT order_date + INTERVAL 30 DAYS FROM orders ORDER BY id LIMIT 5

SELECT datediff(max(order_date), min(order_date)) FROM orders

SELECT months_between(max(order_date), min(order_date)) FROM orders

SELECT dayofweek(order_date) AS d, count(*) FROM orders GROUP BY d ORDER BY d

SELECT weekofyear(order_date) AS w, sum(total) FROM orders GROUP BY w ORDER BY w

SELECT last_day(order_date), count(*) FROM orders GROUP BY 1 ORDER BY 1

SELECT to_date('2024-06-01') AS d, count(*) FROM orders WHERE order_date >= to_date('2024-06-01')

SELECT get_json_object(payload, '$.page') AS page, count(*) FROM events GROUP BY page ORDER BY page

SELECT count(*) FROM events WHERE CAST(get_json_object(payload, '$.ms') AS INT) > 500

SELECT from_json(payload, 'page STRING, ms INT').page AS page FROM events ORDER BY id LIMIT 5

SELECT j.page, avg(j.ms) FROM (SELECT from_json(payload, 'page STRING, ms INT') AS j FROM events) GROUP BY j.page ORDER BY 1

SELECT collect_list(name) FROM products WHERE category = 'books'

SELECT category, sort_array(collect_set(name)) FROM products GROUP BY category ORDER BY category

SELECT category, size(collect_list(id)) FROM products GROUP BY category ORDER BY category

SELECT percentile_approx(total, 0.5), percentile_approx(total, array(0.25, 0.75)) FROM orders

SELECT approx_count_distinct(customer_id) FROM orders

SELECT max_by(customer_id, total), min_by(customer_id, total) FROM orders

SELECT status, count_if(total > 300) FROM orders GROUP BY status ORDER BY status

SELECT explode(array(1, 2, 3)) AS x

SELECT p.category, x FROM products p LATERAL VIEW explode(split(p.name, ' ')) t AS x ORDER BY p.category, x LIMIT 10

SELECT * FROM (SELECT status, region, total FROM orders o JOIN customers c ON c.id = o.customer_id) PIVOT (sum(total) FOR status IN ('shipped', 'cancelled', 'pending')) ORDER BY region

SELECT region, segment, count(*) FROM customers GROUP BY region, segment WITH ROLLUP ORDER BY region, segment

SELECT region, segment, count(*) FROM customers GROUP BY CUBE(region, segment) ORDER BY region, segment

SELECT id, total, sum(total) OVER (ORDER BY order_date, id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM orders ORDER BY id LIMIT 10

SELECT customer_id, total, rank() OVER (PARTITION BY customer_id ORDER BY total DESC) AS r FROM orders ORDER BY customer_id, r LIMIT 20

SELECT count(*) FROM orders TABLESAMPLE (50 PERCENT)

SELECT * FROM orders TABLESAMPLE (5 ROWS)

SELECT id FROM range(5)

SELECT concat_ws(' / ', region, segment) FROM customers ORDER BY id LIMIT 5

SELECT initcap(status), lpad(CAST(id AS STRING), 5, '0') FROM orders ORDER BY id LIMIT 5

SELECT regexp_extract(email, '@(.*)$', 1) AS domain, count(*) FROM customers GROUP BY domain ORDER BY domain

SELECT nvl(email, 'none'), coalesce(email, 'none') FROM customers ORDER BY id LIMIT 10

SELECT id, `status` FROM orders WHERE status RLIKE '^ship' ORDER BY id LIMIT 5

SELECT status, total FROM orders ORDER BY total DESC NULLS LAST LIMIT 5

select c.region as `Region`, count(*) as `Orders` from orders o join customers c on c.id = o.customer_id group by c.region order by 1

EXPLAIN SELECT region, count(*) FROM customers GROUP BY region
