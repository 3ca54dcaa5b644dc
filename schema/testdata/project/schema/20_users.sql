CREATE TABLE t_user (user_id BIGINT PRIMARY KEY, created_at DATETIME);
