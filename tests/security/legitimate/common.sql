## Realistic read-only analytics over the shop schema, portable across engines.
## One statement per block; blocks are separated by a blank line.

SELECT c.region, count(*) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.region ORDER BY value DESC

SELECT c.region, sum(o.total) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.region ORDER BY value DESC

SELECT c.region, avg(o.total) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.region ORDER BY value DESC

SELECT c.region, min(o.total) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.region ORDER BY value DESC

SELECT c.region, max(o.total) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.region ORDER BY value DESC

SELECT c.region, count(DISTINCT o.customer_id) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.region ORDER BY value DESC

SELECT c.segment, count(*) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.segment ORDER BY value DESC

SELECT c.segment, sum(o.total) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.segment ORDER BY value DESC

SELECT c.segment, avg(o.total) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.segment ORDER BY value DESC

SELECT c.segment, min(o.total) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.segment ORDER BY value DESC

SELECT c.segment, max(o.total) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.segment ORDER BY value DESC

SELECT c.segment, count(DISTINCT o.customer_id) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.segment ORDER BY value DESC

SELECT o.status, count(*) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY o.status ORDER BY value DESC

SELECT o.status, sum(o.total) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY o.status ORDER BY value DESC

SELECT o.status, avg(o.total) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY o.status ORDER BY value DESC

SELECT o.status, min(o.total) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY o.status ORDER BY value DESC

SELECT o.status, max(o.total) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY o.status ORDER BY value DESC

SELECT o.status, count(DISTINCT o.customer_id) AS value FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY o.status ORDER BY value DESC

SELECT p.category, sum(oi.quantity) AS value FROM order_items oi JOIN products p ON p.id = oi.product_id GROUP BY p.category ORDER BY value DESC LIMIT 10

SELECT p.category, sum(oi.quantity * oi.unit_price) AS value FROM order_items oi JOIN products p ON p.id = oi.product_id GROUP BY p.category ORDER BY value DESC LIMIT 10

SELECT p.category, count(DISTINCT oi.order_id) AS value FROM order_items oi JOIN products p ON p.id = oi.product_id GROUP BY p.category ORDER BY value DESC LIMIT 10

SELECT p.category, avg(oi.unit_price) AS value FROM order_items oi JOIN products p ON p.id = oi.product_id GROUP BY p.category ORDER BY value DESC LIMIT 10

SELECT p.name, sum(oi.quantity) AS value FROM order_items oi JOIN products p ON p.id = oi.product_id GROUP BY p.name ORDER BY value DESC LIMIT 10

SELECT p.name, sum(oi.quantity * oi.unit_price) AS value FROM order_items oi JOIN products p ON p.id = oi.product_id GROUP BY p.name ORDER BY value DESC LIMIT 10

SELECT p.name, count(DISTINCT oi.order_id) AS value FROM order_items oi JOIN products p ON p.id = oi.product_id GROUP BY p.name ORDER BY value DESC LIMIT 10

SELECT p.name, avg(oi.unit_price) AS value FROM order_items oi JOIN products p ON p.id = oi.product_id GROUP BY p.name ORDER BY value DESC LIMIT 10

SELECT count(*) AS n, sum(o.total) AS revenue FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'shipped' AND c.region = 'North'

SELECT count(*) AS n, sum(o.total) AS revenue FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'shipped' AND c.region = 'South'

SELECT count(*) AS n, sum(o.total) AS revenue FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'shipped' AND c.region = 'East'

SELECT count(*) AS n, sum(o.total) AS revenue FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'shipped' AND c.region = 'West'

SELECT count(*) AS n, sum(o.total) AS revenue FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'cancelled' AND c.region = 'North'

SELECT count(*) AS n, sum(o.total) AS revenue FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'cancelled' AND c.region = 'South'

SELECT count(*) AS n, sum(o.total) AS revenue FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'cancelled' AND c.region = 'East'

SELECT count(*) AS n, sum(o.total) AS revenue FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'cancelled' AND c.region = 'West'

SELECT count(*) AS n, sum(o.total) AS revenue FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'pending' AND c.region = 'North'

SELECT count(*) AS n, sum(o.total) AS revenue FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'pending' AND c.region = 'South'

SELECT count(*) AS n, sum(o.total) AS revenue FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'pending' AND c.region = 'East'

SELECT count(*) AS n, sum(o.total) AS revenue FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.status = 'pending' AND c.region = 'West'

SELECT c.name, sum(o.total) AS spend FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.id, c.name ORDER BY spend DESC LIMIT 3

SELECT p.name, p.price FROM products p ORDER BY p.price DESC LIMIT 3

SELECT o.id, o.total FROM orders o WHERE o.total > (SELECT avg(total) FROM orders) ORDER BY o.total DESC LIMIT 3

SELECT c.name, sum(o.total) AS spend FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.id, c.name ORDER BY spend DESC LIMIT 5

SELECT p.name, p.price FROM products p ORDER BY p.price DESC LIMIT 5

SELECT o.id, o.total FROM orders o WHERE o.total > (SELECT avg(total) FROM orders) ORDER BY o.total DESC LIMIT 5

SELECT c.name, sum(o.total) AS spend FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.id, c.name ORDER BY spend DESC LIMIT 10

SELECT p.name, p.price FROM products p ORDER BY p.price DESC LIMIT 10

SELECT o.id, o.total FROM orders o WHERE o.total > (SELECT avg(total) FROM orders) ORDER BY o.total DESC LIMIT 10

SELECT count(*) FROM orders WHERE total >= 50

SELECT c.region, count(*) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.total BETWEEN 50 AND 100 GROUP BY c.region ORDER BY c.region

SELECT customer_id FROM orders GROUP BY customer_id HAVING sum(total) > 50 ORDER BY customer_id

SELECT count(*) FROM orders WHERE total >= 100

SELECT c.region, count(*) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.total BETWEEN 100 AND 200 GROUP BY c.region ORDER BY c.region

SELECT customer_id FROM orders GROUP BY customer_id HAVING sum(total) > 100 ORDER BY customer_id

SELECT count(*) FROM orders WHERE total >= 200

SELECT c.region, count(*) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.total BETWEEN 200 AND 400 GROUP BY c.region ORDER BY c.region

SELECT customer_id FROM orders GROUP BY customer_id HAVING sum(total) > 200 ORDER BY customer_id

SELECT count(*) FROM orders WHERE total >= 500

SELECT c.region, count(*) FROM orders o JOIN customers c ON c.id = o.customer_id WHERE o.total BETWEEN 500 AND 1000 GROUP BY c.region ORDER BY c.region

SELECT customer_id FROM orders GROUP BY customer_id HAVING sum(total) > 500 ORDER BY customer_id

SELECT id, customer_id, total, row_number() OVER (PARTITION BY customer_id ORDER BY total DESC, id) AS w FROM orders ORDER BY id LIMIT 50

SELECT id, customer_id, total, rank() OVER (ORDER BY total DESC) AS w FROM orders ORDER BY id LIMIT 50

SELECT id, customer_id, total, dense_rank() OVER (PARTITION BY status ORDER BY total) AS w FROM orders ORDER BY id LIMIT 50

SELECT id, customer_id, total, sum(total) OVER (PARTITION BY customer_id ORDER BY id) AS w FROM orders ORDER BY id LIMIT 50

SELECT id, customer_id, total, avg(total) OVER (PARTITION BY status) AS w FROM orders ORDER BY id LIMIT 50

SELECT id, customer_id, total, lag(total) OVER (PARTITION BY customer_id ORDER BY id) AS w FROM orders ORDER BY id LIMIT 50

SELECT id, customer_id, total, lead(total, 1) OVER (ORDER BY id) AS w FROM orders ORDER BY id LIMIT 50

SELECT id, customer_id, total, ntile(4) OVER (ORDER BY total) AS w FROM orders ORDER BY id LIMIT 50

SELECT id, customer_id, total, percent_rank() OVER (ORDER BY total) AS w FROM orders ORDER BY id LIMIT 50

SELECT id, customer_id, total, cume_dist() OVER (ORDER BY total) AS w FROM orders ORDER BY id LIMIT 50

SELECT id, customer_id, total, first_value(total) OVER (PARTITION BY customer_id ORDER BY id) AS w FROM orders ORDER BY id LIMIT 50

SELECT id, customer_id, total, count(*) OVER (PARTITION BY customer_id) AS w FROM orders ORDER BY id LIMIT 50

SELECT id, customer_id, total, sum(total) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS w FROM orders ORDER BY id LIMIT 50

SELECT id, customer_id, total, max(total) OVER (PARTITION BY status ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS w FROM orders ORDER BY id LIMIT 50

WITH spend AS (SELECT customer_id, sum(total) AS s FROM orders GROUP BY customer_id) SELECT c.name, spend.s FROM spend JOIN customers c ON c.id = spend.customer_id ORDER BY spend.s DESC LIMIT 5

WITH per_region AS (SELECT c.region, count(*) AS n FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.region) SELECT region, n, n * 100.0 / (SELECT sum(n) FROM per_region) AS pct FROM per_region ORDER BY region

WITH ranked AS (SELECT id, customer_id, total, row_number() OVER (PARTITION BY customer_id ORDER BY total DESC, id) AS rn FROM orders) SELECT * FROM ranked WHERE rn = 1 ORDER BY customer_id

WITH a AS (SELECT customer_id, count(*) AS n FROM orders GROUP BY customer_id), b AS (SELECT avg(n) AS avg_n FROM a) SELECT a.customer_id, a.n FROM a, b WHERE a.n > b.avg_n ORDER BY a.customer_id

WITH RECURSIVE nums(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM nums WHERE n < 12) SELECT n FROM nums

WITH RECURSIVE nums(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM nums WHERE n < 10) SELECT nums.n, count(o.id) FROM nums LEFT JOIN orders o ON o.customer_id = nums.n GROUP BY nums.n ORDER BY nums.n

WITH item_totals AS (SELECT order_id, sum(quantity * unit_price) AS items FROM order_items GROUP BY order_id) SELECT o.id, o.total, it.items FROM orders o JOIN item_totals it ON it.order_id = o.id ORDER BY o.id LIMIT 20

WITH cat AS (SELECT p.category, sum(oi.quantity) AS units FROM order_items oi JOIN products p ON p.id = oi.product_id GROUP BY p.category) SELECT category FROM cat WHERE units = (SELECT max(units) FROM cat)

WITH shipped AS (SELECT * FROM orders WHERE status = 'shipped') SELECT count(*) FROM shipped

WITH customers_north AS (SELECT id FROM customers WHERE region = 'North') SELECT count(*) FROM orders WHERE customer_id IN (SELECT id FROM customers_north)

SELECT c.name FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer_id = c.id) ORDER BY c.name

SELECT p.name FROM products p WHERE p.id NOT IN (SELECT product_id FROM order_items) ORDER BY p.name

SELECT c.region, c.segment, count(*) FROM customers c GROUP BY c.region, c.segment ORDER BY c.region, c.segment

SELECT status, CASE WHEN total >= 200 THEN 'large' WHEN total >= 50 THEN 'medium' ELSE 'small' END AS size, count(*) FROM orders GROUP BY status, CASE WHEN total >= 200 THEN 'large' WHEN total >= 50 THEN 'medium' ELSE 'small' END ORDER BY status, size

SELECT sum(CASE WHEN status = 'shipped' THEN 1 ELSE 0 END) * 1.0 / count(*) AS shipped_share FROM orders

SELECT upper(region) AS r, lower(segment) AS s FROM customers ORDER BY id LIMIT 10

SELECT name, length(name) AS len FROM customers ORDER BY len DESC, name LIMIT 5

SELECT substr(name, 1, 3) AS prefix, count(*) FROM customers GROUP BY substr(name, 1, 3) ORDER BY prefix LIMIT 10

SELECT trim(name) FROM customers WHERE name LIKE '%a%' ORDER BY 1 LIMIT 10

SELECT coalesce(email, 'unknown') AS email FROM customers ORDER BY id LIMIT 10

SELECT replace(email, '@', ' at ') FROM customers WHERE email IS NOT NULL ORDER BY id LIMIT 5

SELECT count(*) FROM customers WHERE email IS NULL

SELECT nullif(status, 'pending') AS s, count(*) FROM orders GROUP BY nullif(status, 'pending') ORDER BY 2 DESC

SELECT round(avg(total), 2) AS avg_total, round(avg(total) * 1.1, 2) AS with_tax FROM orders

SELECT abs(total - 100) AS diff FROM orders ORDER BY diff LIMIT 5

SELECT customer_id, count(*) AS n FROM orders GROUP BY customer_id HAVING count(*) >= 3 ORDER BY n DESC, customer_id

SELECT DISTINCT region FROM customers ORDER BY region

SELECT count(DISTINCT region) FROM customers

SELECT region FROM customers UNION SELECT segment FROM customers ORDER BY 1

SELECT customer_id FROM orders WHERE status = 'shipped' INTERSECT SELECT customer_id FROM orders WHERE status = 'cancelled' ORDER BY 1

SELECT id FROM customers EXCEPT SELECT customer_id FROM orders ORDER BY 1

SELECT id FROM customers UNION ALL SELECT customer_id FROM orders ORDER BY 1 LIMIT 20

SELECT o.id, c.name, p.name, oi.quantity FROM orders o JOIN customers c ON c.id = o.customer_id JOIN order_items oi ON oi.order_id = o.id JOIN products p ON p.id = oi.product_id ORDER BY o.id, p.name LIMIT 25

SELECT c.name, o.id FROM customers c LEFT JOIN orders o ON o.customer_id = c.id ORDER BY c.name, o.id LIMIT 30

SELECT p.category, min(p.price), max(p.price), avg(p.price) FROM products p GROUP BY p.category ORDER BY p.category

SELECT a.id, b.id FROM customers a JOIN customers b ON a.region = b.region AND a.id < b.id ORDER BY a.id, b.id LIMIT 20

SELECT * FROM customers WHERE region IN ('North', 'East') ORDER BY id LIMIT 10

SELECT * FROM products WHERE price BETWEEN 10 AND 50 ORDER BY price

SELECT * FROM orders ORDER BY total DESC, id LIMIT 5 OFFSET 5

SELECT (SELECT count(*) FROM orders) AS orders, (SELECT count(*) FROM customers) AS customers, (SELECT count(*) FROM products) AS products

SELECT c.id, (SELECT max(o.total) FROM orders o WHERE o.customer_id = c.id) AS best FROM customers c ORDER BY c.id LIMIT 10

SELECT status, count(*) FROM orders GROUP BY status ORDER BY count(*) DESC

SELECT cast(total AS INTEGER) AS whole FROM orders ORDER BY id LIMIT 5

SELECT count(CASE WHEN status = 'shipped' THEN 1 END) AS shipped FROM orders

SELECT name FROM customers WHERE name LIKE 'A%' OR name LIKE 'B%' ORDER BY name

SELECT kind, count(*) FROM events GROUP BY kind ORDER BY kind

SELECT e.kind, c.region, count(*) FROM events e JOIN customers c ON c.id = e.customer_id GROUP BY e.kind, c.region ORDER BY 1, 2

SELECT name FROM customers WHERE name LIKE '%ignore%'

SELECT id, name FROM customers WHERE id = 1

SELECT max(total) - min(total) AS spread FROM orders

SELECT 1 AS one

SELECT count(*) FROM orders o WHERE EXISTS (SELECT 1 FROM order_items oi WHERE oi.order_id = o.id AND oi.quantity > 2)

SELECT o.status, avg(oi.quantity) FROM orders o JOIN order_items oi ON oi.order_id = o.id GROUP BY o.status ORDER BY o.status

EXPLAIN SELECT * FROM orders WHERE total > 100

-- revenue by region
SELECT c.region, sum(o.total) FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.region ORDER BY c.region

/* top customers */ SELECT customer_id, sum(total) FROM orders GROUP BY customer_id ORDER BY 2 DESC LIMIT 3

SELECT id FROM orders WHERE total > 100; 

select c.region as "Region", count(*) as "Orders" from orders o join customers c on c.id = o.customer_id group by c.region order by 1

SELECT o.id, o.total - (SELECT avg(total) FROM orders) AS above_avg FROM orders o ORDER BY above_avg DESC LIMIT 5

SELECT count(*) FROM (SELECT customer_id FROM orders GROUP BY customer_id) AS s

SELECT x.region, x.n FROM (SELECT c.region, count(*) AS n FROM customers c GROUP BY c.region) x WHERE x.n > 1 ORDER BY x.n DESC

SELECT count(*) FROM products WHERE category = 'books'

SELECT p.name, sum(oi.quantity) AS units FROM order_items oi JOIN products p ON p.id = oi.product_id WHERE p.category = 'books' GROUP BY p.name ORDER BY units DESC, p.name LIMIT 3

SELECT c.region, sum(oi.quantity * oi.unit_price) AS revenue FROM order_items oi JOIN products p ON p.id = oi.product_id JOIN orders o ON o.id = oi.order_id JOIN customers c ON c.id = o.customer_id WHERE p.category = 'books' GROUP BY c.region ORDER BY c.region

SELECT avg(p.price) FROM products p WHERE p.category = 'books' AND p.price > 0

SELECT o.status, count(DISTINCT o.id) FROM orders o JOIN order_items oi ON oi.order_id = o.id JOIN products p ON p.id = oi.product_id WHERE p.category = 'books' GROUP BY o.status ORDER BY o.status

SELECT count(*) FROM products WHERE category = 'games'

SELECT p.name, sum(oi.quantity) AS units FROM order_items oi JOIN products p ON p.id = oi.product_id WHERE p.category = 'games' GROUP BY p.name ORDER BY units DESC, p.name LIMIT 3

SELECT c.region, sum(oi.quantity * oi.unit_price) AS revenue FROM order_items oi JOIN products p ON p.id = oi.product_id JOIN orders o ON o.id = oi.order_id JOIN customers c ON c.id = o.customer_id WHERE p.category = 'games' GROUP BY c.region ORDER BY c.region

SELECT avg(p.price) FROM products p WHERE p.category = 'games' AND p.price > 0

SELECT o.status, count(DISTINCT o.id) FROM orders o JOIN order_items oi ON oi.order_id = o.id JOIN products p ON p.id = oi.product_id WHERE p.category = 'games' GROUP BY o.status ORDER BY o.status

SELECT count(*) FROM products WHERE category = 'garden'

SELECT p.name, sum(oi.quantity) AS units FROM order_items oi JOIN products p ON p.id = oi.product_id WHERE p.category = 'garden' GROUP BY p.name ORDER BY units DESC, p.name LIMIT 3

SELECT c.region, sum(oi.quantity * oi.unit_price) AS revenue FROM order_items oi JOIN products p ON p.id = oi.product_id JOIN orders o ON o.id = oi.order_id JOIN customers c ON c.id = o.customer_id WHERE p.category = 'garden' GROUP BY c.region ORDER BY c.region

SELECT avg(p.price) FROM products p WHERE p.category = 'garden' AND p.price > 0

SELECT o.status, count(DISTINCT o.id) FROM orders o JOIN order_items oi ON oi.order_id = o.id JOIN products p ON p.id = oi.product_id WHERE p.category = 'garden' GROUP BY o.status ORDER BY o.status

SELECT count(*) FROM products WHERE category = 'kitchen'

SELECT p.name, sum(oi.quantity) AS units FROM order_items oi JOIN products p ON p.id = oi.product_id WHERE p.category = 'kitchen' GROUP BY p.name ORDER BY units DESC, p.name LIMIT 3

SELECT c.region, sum(oi.quantity * oi.unit_price) AS revenue FROM order_items oi JOIN products p ON p.id = oi.product_id JOIN orders o ON o.id = oi.order_id JOIN customers c ON c.id = o.customer_id WHERE p.category = 'kitchen' GROUP BY c.region ORDER BY c.region

SELECT avg(p.price) FROM products p WHERE p.category = 'kitchen' AND p.price > 0

SELECT o.status, count(DISTINCT o.id) FROM orders o JOIN order_items oi ON oi.order_id = o.id JOIN products p ON p.id = oi.product_id WHERE p.category = 'kitchen' GROUP BY o.status ORDER BY o.status

SELECT count(*) FROM products WHERE category = 'toys'

SELECT p.name, sum(oi.quantity) AS units FROM order_items oi JOIN products p ON p.id = oi.product_id WHERE p.category = 'toys' GROUP BY p.name ORDER BY units DESC, p.name LIMIT 3

SELECT c.region, sum(oi.quantity * oi.unit_price) AS revenue FROM order_items oi JOIN products p ON p.id = oi.product_id JOIN orders o ON o.id = oi.order_id JOIN customers c ON c.id = o.customer_id WHERE p.category = 'toys' GROUP BY c.region ORDER BY c.region

SELECT avg(p.price) FROM products p WHERE p.category = 'toys' AND p.price > 0

SELECT o.status, count(DISTINCT o.id) FROM orders o JOIN order_items oi ON oi.order_id = o.id JOIN products p ON p.id = oi.product_id WHERE p.category = 'toys' GROUP BY o.status ORDER BY o.status

SELECT count(*) FROM customers WHERE segment = 'consumer'

SELECT c.region, avg(o.total) FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.segment = 'consumer' GROUP BY c.region ORDER BY c.region

SELECT c.name, count(o.id) AS n FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE c.segment = 'consumer' GROUP BY c.id, c.name ORDER BY n DESC, c.name LIMIT 5

SELECT count(*) FROM customers WHERE segment = 'corporate'

SELECT c.region, avg(o.total) FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.segment = 'corporate' GROUP BY c.region ORDER BY c.region

SELECT c.name, count(o.id) AS n FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE c.segment = 'corporate' GROUP BY c.id, c.name ORDER BY n DESC, c.name LIMIT 5

SELECT count(*) FROM customers WHERE segment = 'small business'

SELECT c.region, avg(o.total) FROM customers c JOIN orders o ON o.customer_id = c.id WHERE c.segment = 'small business' GROUP BY c.region ORDER BY c.region

SELECT c.name, count(o.id) AS n FROM customers c LEFT JOIN orders o ON o.customer_id = c.id WHERE c.segment = 'small business' GROUP BY c.id, c.name ORDER BY n DESC, c.name LIMIT 5

SELECT o.id, o.order_date, o.total FROM orders o WHERE o.customer_id = 1 ORDER BY o.order_date, o.id

SELECT o.id, o.order_date, o.total FROM orders o WHERE o.customer_id = 2 ORDER BY o.order_date, o.id

SELECT o.id, o.order_date, o.total FROM orders o WHERE o.customer_id = 3 ORDER BY o.order_date, o.id

SELECT o.id, o.order_date, o.total FROM orders o WHERE o.customer_id = 4 ORDER BY o.order_date, o.id

SELECT o.id, o.order_date, o.total FROM orders o WHERE o.customer_id = 5 ORDER BY o.order_date, o.id

SELECT o.id, o.order_date, o.total FROM orders o WHERE o.customer_id = 6 ORDER BY o.order_date, o.id

SELECT o.id, o.order_date, o.total FROM orders o WHERE o.customer_id = 7 ORDER BY o.order_date, o.id

SELECT o.id, o.order_date, o.total FROM orders o WHERE o.customer_id = 8 ORDER BY o.order_date, o.id
