## postgres-specific dates, JSON and syntax over the shop schema.
## One statement per block; blocks are separated by a blank line.

SELECT date_trunc('month', order_date) AS month, count(*), sum(total) FROM orders GROUP BY month ORDER BY month

SELECT extract(year FROM order_date) AS y, count(*) FROM orders GROUP BY y ORDER BY y

SELECT order_date + INTERVAL '30 days' FROM orders ORDER BY id LIMIT 5

SELECT max(order_date) - min(order_date) AS span FROM orders

SELECT count(*) FROM orders WHERE order_date >= DATE '2024-06-01'

SELECT to_char(order_date, 'YYYY-MM') AS m, count(*) FROM orders GROUP BY m ORDER BY m

SELECT age(DATE '2025-01-01', min(order_date)) FROM orders

SELECT payload::json->>'page' AS page, count(*) FROM events GROUP BY page ORDER BY page

SELECT count(*) FROM events WHERE (payload::jsonb->>'ms')::int > 500

SELECT e.id, j.key, j.value FROM events e, jsonb_each(e.payload::jsonb) j ORDER BY e.id, j.key LIMIT 20

SELECT json_build_object('id', id, 'total', total) FROM orders ORDER BY id LIMIT 3

SELECT json_agg(name ORDER BY name) FROM products

SELECT string_agg(name, ', ' ORDER BY name) FROM products

SELECT array_agg(id ORDER BY id) FROM customers WHERE region = 'North'

SELECT * FROM generate_series(1, 5) AS g(x)

SELECT generate_series(DATE '2024-01-01', DATE '2024-03-01', INTERVAL '1 month')::date

SELECT unnest(ARRAY[1, 2, 3])

SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY total) FROM orders

SELECT mode() WITHIN GROUP (ORDER BY status) FROM orders

SELECT c.name, s.total FROM customers c CROSS JOIN LATERAL (SELECT total FROM orders o WHERE o.customer_id = c.id ORDER BY total DESC LIMIT 1) s ORDER BY c.name LIMIT 10

SELECT DISTINCT ON (customer_id) customer_id, id, total FROM orders ORDER BY customer_id, total DESC

SELECT total::numeric(10, 1) FROM orders ORDER BY id LIMIT 3

SELECT status, bool_or(total > 400) FROM orders GROUP BY status ORDER BY status

EXPLAIN SELECT * FROM orders WHERE total > 100

SELECT public.orders.id FROM public.orders ORDER BY 1 LIMIT 3

SELECT count(*) FROM public.customers

SELECT regexp_replace(email, '@.*$', '') FROM customers WHERE email IS NOT NULL ORDER BY id LIMIT 3

SELECT split_part(email, '@', 2) AS domain, count(*) FROM customers WHERE email IS NOT NULL GROUP BY domain ORDER BY domain

SELECT now() > DATE '2000-01-01'

SELECT current_date >= DATE '2000-01-01'

SELECT jsonb_array_elements('[1, 2]'::jsonb)

SELECT count(*) FROM orders WHERE status = ANY (ARRAY['shipped', 'pending'])

SELECT initcap(lower(name)) FROM products ORDER BY id LIMIT 3

SELECT count(*) FILTER (WHERE status = 'shipped') AS shipped FROM orders
