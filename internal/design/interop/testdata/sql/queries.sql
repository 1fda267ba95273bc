-- The five most frequent SELECTs of the application's log (seed 002's
-- "audit your queries"), and what the log also holds.
SELECT * FROM users WHERE user_id = $1;
SELECT o.order_id, o.total_amount, o.status FROM orders o WHERE o.user_id = $1 ORDER BY o.order_date DESC LIMIT 20;
SELECT * FROM orders WHERE order_id = ?;
SELECT * FROM order_items WHERE order_id = ? ORDER BY line_no;
SELECT user_id FROM users WHERE email = :email;
SELECT * FROM orders WHERE status = 'shipped' AND order_date BETWEEN ? AND ?;
SELECT * FROM follows WHERE followed_id = ?;
SELECT u.name, o.total_amount FROM users u JOIN orders o ON o.user_id = u.user_id WHERE u.user_id = ?;
SELECT count(*) FROM orders WHERE user_id = ? GROUP BY status;
SELECT * FROM products WHERE price > 10 OR title LIKE '%sale%';
UPDATE orders SET status = 'paid' WHERE order_id = ?;
