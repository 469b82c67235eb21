## mysql-specific dates, JSON and syntax over the shop schema.
## One statement per block; blocks are separated by a blank line.

SELECT DATE_FORMAT(order_date, '%Y-%m') AS month, count(*), sum(total) FROM orders GROUP BY month ORDER BY month

SELECT YEAR(order_date) AS y, count(*) FROM orders GROUP BY y ORDER BY y

SELECT DATE_ADD(order_date, INTERVAL 30 DAY) FROM orders ORDER BY id LIMIT 5

SELECT DATEDIFF(max(order_date), min(order_date)) FROM orders

SELECT count(*) FROM orders WHERE order_date >= '2024-06-01'

SELECT MONTHNAME(order_date), count(*) FROM orders GROUP BY MONTHNAME(order_date) ORDER BY 1

SELECT DAYOFWEEK(order_date), count(*) FROM orders GROUP BY 1 ORDER BY 1

SELECT JSON_UNQUOTE(JSON_EXTRACT(payload, '$.page')) AS page, count(*) FROM events GROUP BY page ORDER BY page

SELECT count(*) FROM events WHERE JSON_EXTRACT(payload, '$.ms') > 500

SELECT JSON_OBJECT('id', id, 'total', total) FROM orders ORDER BY id LIMIT 3

SELECT GROUP_CONCAT(name ORDER BY name SEPARATOR ', ') FROM products

SELECT IF(total > 100, 'big', 'small') AS size, count(*) FROM orders GROUP BY size ORDER BY size

SELECT IFNULL(email, '-') FROM customers ORDER BY id LIMIT 3

SELECT CONCAT(name, ' (', region, ')') FROM customers ORDER BY id LIMIT 3

SELECT SUBSTRING_INDEX(email, '@', -1) AS domain, count(*) FROM customers WHERE email IS NOT NULL GROUP BY domain ORDER BY domain

EXPLAIN SELECT * FROM orders

EXPLAIN SELECT c.region, count(*) FROM orders o JOIN customers c ON c.id = o.customer_id GROUP BY c.region

SELECT * FROM orders LIMIT 3, 5

SELECT `status`, count(*) FROM `orders` GROUP BY `status` ORDER BY `status`

SELECT o.id FROM orders o WHERE o.total > 100 ORDER BY o.total DESC LIMIT 3

SELECT TIMESTAMPDIFF(DAY, min(order_date), max(order_date)) FROM orders

SELECT CURDATE() >= '2000-01-01'

SELECT NOW() > '2000-01-01'

SELECT LPAD(id, 5, '0') FROM orders ORDER BY id LIMIT 3

SELECT * FROM JSON_TABLE('[1, 2, 3]', '$[*]' COLUMNS (x INT PATH '$')) AS j

SELECT database() IS NOT NULL

SELECT STR_TO_DATE('2024-01-05', '%Y-%m-%d')

SELECT LAST_DAY(order_date) FROM orders ORDER BY id LIMIT 2

SELECT QUARTER(order_date), sum(total) FROM orders GROUP BY 1 ORDER BY 1

SELECT 1 -- a comment


SELECT 1 # a comment


SELECT total DIV 10 AS bucket, count(*) FROM orders GROUP BY bucket ORDER BY bucket

SELECT id FROM orders WHERE status REGEXP '^sh'

SELECT JSON_LENGTH(payload) FROM events ORDER BY id LIMIT 3

SELECT 1 + 1 FROM DUAL
