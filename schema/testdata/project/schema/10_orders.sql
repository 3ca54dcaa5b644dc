CREATE TABLE t_order (order_id BIGINT PRIMARY KEY, status VARCHAR(20));
