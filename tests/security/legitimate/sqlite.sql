## sqlite-specific dates, JSON and syntax over the shop schema.
## One statement per block; blocks are separated by a blank line.

SELECT strftime('%Y-%m', order_date) AS month, count(*), sum(total) FROM orders GROUP BY month ORDER BY month

SELECT strftime('%Y', order_date) AS y, count(*) FROM orders GROUP BY y ORDER BY y

SELECT date(order_date, '+30 days') FROM orders ORDER BY id LIMIT 5

SELECT julianday(max(order_date)) - julianday(min(order_date)) AS span_days FROM orders

SELECT count(*) FROM orders WHERE order_date >= '2024-06-01'

SELECT customer_id, min(order_date), max(order_date) FROM orders GROUP BY customer_id ORDER BY customer_id LIMIT 10

SELECT strftime('%w', order_date) AS weekday, count(*) FROM orders GROUP BY weekday ORDER BY weekday

SELECT date('now') >= '2000-01-01'

SELECT json_extract(payload, '$.page') AS page, count(*) FROM events GROUP BY page ORDER BY page

SELECT count(*) FROM events WHERE json_extract(payload, '$.ms') > 500

SELECT e.id, j.key, j.value FROM events e, json_each(e.payload) j ORDER BY e.id, j.key LIMIT 20

SELECT json_object('id', id, 'total', total) FROM orders ORDER BY id LIMIT 3

SELECT json_group_array(name) FROM products

SELECT iif(total > 100, 'big', 'small'), count(*) FROM orders GROUP BY 1

SELECT printf('%.2f', total) FROM orders ORDER BY id LIMIT 3

SELECT group_concat(name, ', ') FROM products WHERE category = 'books'

SELECT instr(email, '@') FROM customers WHERE email IS NOT NULL LIMIT 3

SELECT ifnull(email, '-') FROM customers ORDER BY id LIMIT 3

SELECT total(total) FROM orders

SELECT typeof(total) FROM orders LIMIT 1

EXPLAIN QUERY PLAN SELECT * FROM orders WHERE customer_id = 3

SELECT unixepoch(order_date) FROM orders ORDER BY id LIMIT 2

SELECT strftime('%Y-%m', order_date) AS m, count(*) - lag(count(*)) OVER (ORDER BY strftime('%Y-%m', order_date)) FROM orders GROUP BY m ORDER BY m

SELECT hex(name) FROM products LIMIT 2

SELECT round(random() * 0) FROM orders LIMIT 1

SELECT json_array_length(json_array(1, 2, 3))

SELECT main.orders.id FROM main.orders ORDER BY 1 LIMIT 3

SELECT count(*) FROM main.customers

SELECT quote(name) FROM products LIMIT 2

SELECT datetime(order_date) FROM orders LIMIT 2
