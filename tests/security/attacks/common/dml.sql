## Writes to user tables.
## One statement per block; blocks are separated by a blank line. Lines starting with ## are notes.

INSERT INTO orders SELECT * FROM orders

DELETE FROM orders

DELETE FROM orders WHERE 1 = 1

UPDATE orders SET id = id + 1000

INSERT INTO orders (id) VALUES (999999)

REPLACE INTO orders (id) VALUES (1)

TRUNCATE TABLE orders

TRUNCATE orders

MERGE INTO orders AS x USING orders AS y ON x.id = y.id WHEN MATCHED THEN DELETE

delete from orders returning *

UPDATE orders SET id = (SELECT max(id) FROM orders)

INSERT INTO customers SELECT * FROM customers

DELETE FROM customers

DELETE FROM customers WHERE 1 = 1

UPDATE customers SET id = id + 1000

INSERT INTO customers (id) VALUES (999999)

REPLACE INTO customers (id) VALUES (1)

TRUNCATE TABLE customers

TRUNCATE customers

MERGE INTO customers AS x USING customers AS y ON x.id = y.id WHEN MATCHED THEN DELETE

delete from customers returning *

UPDATE customers SET id = (SELECT max(id) FROM customers)

INSERT INTO products SELECT * FROM products

DELETE FROM products

DELETE FROM products WHERE 1 = 1

UPDATE products SET id = id + 1000

INSERT INTO products (id) VALUES (999999)

REPLACE INTO products (id) VALUES (1)

TRUNCATE TABLE products

TRUNCATE products

MERGE INTO products AS x USING products AS y ON x.id = y.id WHEN MATCHED THEN DELETE

delete from products returning *

UPDATE products SET id = (SELECT max(id) FROM products)

INSERT INTO order_items SELECT * FROM order_items

DELETE FROM order_items

DELETE FROM order_items WHERE 1 = 1

UPDATE order_items SET id = id + 1000

INSERT INTO order_items (id) VALUES (999999)

REPLACE INTO order_items (id) VALUES (1)

TRUNCATE TABLE order_items

TRUNCATE order_items

MERGE INTO order_items AS x USING order_items AS y ON x.id = y.id WHEN MATCHED THEN DELETE

delete from order_items returning *

UPDATE order_items SET id = (SELECT max(id) FROM order_items)
