-- name: AddUser :exec
INSERT INTO g50_user (user_id, name, city) VALUES (?, ?, ?);

-- name: AddOrder :exec
INSERT INTO g50_order (order_id, user_id, status, amount) VALUES (?, ?, ?, ?);

-- name: AddCity :exec
INSERT INTO g50_city (city, country) VALUES (?, ?);

-- name: OrdersOfCity :many
-- The users of one city, then their orders: the subquery's user ids are
-- bound as the statement's IN list.
SELECT order_id, amount FROM g50_order
WHERE user_id IN (SELECT user_id FROM g50_user WHERE city = 'paris') AND amount > 2
ORDER BY order_id;

-- name: TotalOfCity :one
-- An aggregate over the bound list: still one row when the subquery has none.
SELECT COUNT(*) AS n, SUM(amount) AS total FROM g50_order
WHERE user_id IN (SELECT user_id FROM g50_user WHERE city = 'nowhere');

-- name: OrdersWithUsers :many
-- A nested-loop join of tables sharded on different columns.
SELECT o.order_id, o.status, u.name FROM g50_order o JOIN g50_user u ON o.user_id = u.user_id
WHERE o.amount >= 3
ORDER BY u.name, o.order_id;

-- name: UsersWithOrders :many
-- LEFT JOIN: users without orders keep NULLs.
SELECT u.user_id, u.name, o.order_id, o.amount FROM g50_user u LEFT JOIN g50_order o ON o.user_id = u.user_id
ORDER BY u.user_id, o.order_id;

-- name: TopOrdersWithUsers :many
SELECT o.order_id, u.name AS user_name FROM g50_order o JOIN g50_user u ON u.user_id = o.user_id
ORDER BY o.amount DESC, o.order_id LIMIT 2, 4;

-- name: UsersOfCountry :many
-- shardgen:allow-full-route
SELECT u.name, c.country FROM g50_user u JOIN g50_city c ON c.city = u.city
ORDER BY u.name;

-- name: NamesAndStatuses :many
-- UNION removes duplicates under utf8mb4_general_ci ('S1' = 's1').
SELECT name FROM g50_user UNION SELECT status FROM g50_order ORDER BY name;

-- name: AllIDs :many
SELECT user_id AS id FROM g50_user UNION ALL SELECT order_id FROM g50_order ORDER BY id DESC LIMIT 5;

-- name: OrderTotalsByName :many
-- GROUP BY over the joined rows: each joined row a partial aggregate, merged.
SELECT u.name, COUNT(*) AS orders, SUM(o.amount) AS total, MAX(o.amount) AS top
FROM g50_user u JOIN g50_order o ON o.user_id = u.user_id
GROUP BY u.name ORDER BY u.name;

-- name: BusiestUsers :many
SELECT u.user_id, COUNT(o.order_id) AS n FROM g50_user u LEFT JOIN g50_order o ON o.user_id = u.user_id
GROUP BY u.user_id ORDER BY n DESC, u.user_id LIMIT 4;

-- name: AverageInParis :one
SELECT AVG(o.amount) AS avg_amount, COUNT(*) AS n FROM g50_order o JOIN g50_user u ON u.user_id = o.user_id
WHERE u.city = 'paris';

-- name: UsersOfBigOrders :many
-- The IN list binds g50_user's sharding column: the statement runs on
-- every data node the values may reach and its rows are merged in order.
SELECT user_id, name FROM g50_user
WHERE user_id IN (SELECT user_id FROM g50_order WHERE amount > 5)
ORDER BY user_id DESC;

-- name: CountUsersOfBigOrders :one
-- An aggregate over a bound sharding column: one row, merged.
SELECT COUNT(*) AS n, MAX(name) AS top FROM g50_user
WHERE user_id IN (SELECT user_id FROM g50_order WHERE amount > 5);

-- name: AddTag :exec
INSERT INTO g50_tag (tag_id, user_id, label, note) VALUES (?, ?, ?, ?);

-- name: TagsOfSameNote :many
-- A self-join on a utf8mb4_unicode_ci column: JoinRows compares the keys
-- under that collation (every emoji equal, ss = ß).
SELECT a.tag_id, b.tag_id AS other_id, a.note FROM g50_tag a JOIN g50_tag b ON b.note = a.note
ORDER BY a.tag_id, other_id;

-- name: TagsOfSameLabel :many
-- LEFT JOIN on a latin1 column (latin1_swedish_ci: y = ü, Ä = Æ).
SELECT a.tag_id, a.label, b.tag_id AS other_id FROM g50_tag a LEFT JOIN g50_tag b ON b.label = a.label
ORDER BY a.tag_id, other_id;

-- name: Labels :many
-- UNION deduplicates latin1 values under latin1_swedish_ci; the first
-- SELECT's value of each class stays.
SELECT label FROM g50_tag WHERE tag_id IN (1, 2, 3) UNION SELECT label FROM g50_tag WHERE tag_id NOT IN (1, 2, 3) ORDER BY label;

-- name: Notes :many
SELECT note FROM g50_tag WHERE tag_id IN (1, 2, 3) UNION SELECT note FROM g50_tag WHERE tag_id NOT IN (1, 2, 3) ORDER BY note;

-- name: TagsWithNoteOf :many
-- The bound IN list compares under the column's collation (unicode_ci).
SELECT tag_id, note FROM g50_tag WHERE note IN (SELECT note FROM g50_tag WHERE tag_id IN (1, 2))
ORDER BY tag_id;

-- name: TagsWithLabelOf :many
SELECT tag_id, label FROM g50_tag WHERE label IN (SELECT label FROM g50_tag WHERE tag_id IN (1, 3))
ORDER BY tag_id;

-- name: UsersWithoutTags :many
-- An anti-join: WHERE t.x IS NULL on the inner side of a LEFT JOIN keeps
-- the users no tag joins.
SELECT u.user_id, u.name FROM g50_user u LEFT JOIN g50_tag t ON t.user_id = u.user_id
WHERE t.tag_id IS NULL ORDER BY u.user_id;

-- name: TagsOfUsersByNote :many
-- GROUP BY a unicode_ci column over joined rows.
SELECT MIN(t.tag_id) AS first_tag, COUNT(*) AS n FROM g50_tag t JOIN g50_user u ON u.user_id = t.user_id
GROUP BY t.note ORDER BY first_tag;

-- name: TagsTimesBigUsers :many
-- No key column: the inner side runs once, every outer row pairs with
-- every inner row.
SELECT t.tag_id, u.user_id FROM g50_tag t JOIN g50_user u ON u.city = 'paris'
WHERE t.tag_id IN (1, 2, 3) ORDER BY t.tag_id, u.user_id;

-- name: OrdersOfCityAbove :many
-- Parameters in the subquery and in the statement, bound into the per-node
-- SQL planned at generate time.
SELECT order_id, amount FROM g50_order
WHERE user_id IN (SELECT user_id FROM g50_user WHERE city = sqlc.narg(city)) AND amount > sqlc.arg(min_amount)
ORDER BY order_id;

-- name: OrdersOfUserByID :many
-- The subquery compares the sharding column with a parameter.
SELECT order_id, status FROM g50_order WHERE user_id IN (SELECT user_id FROM g50_user WHERE user_id = ?)
ORDER BY order_id;

-- name: OrdersWithUsersOf :many
-- A parameter on each side of the join.
SELECT o.order_id, o.amount, u.name FROM g50_order o JOIN g50_user u ON o.user_id = u.user_id
WHERE o.amount >= ? AND u.city = ?
ORDER BY o.order_id;

-- name: OrdersOfOneUser :many
-- One named parameter on both sides, the inner side's sharding column.
SELECT o.order_id, u.name FROM g50_order o LEFT JOIN g50_user u ON o.user_id = u.user_id AND u.user_id = sqlc.arg(user_id)
WHERE o.user_id = sqlc.arg(user_id)
ORDER BY o.order_id;

-- name: CountOrdersAbove :one
-- Grouping over the joined rows with a parameter.
SELECT COUNT(*) AS n, SUM(o.amount) AS total FROM g50_user u JOIN g50_order o ON o.user_id = u.user_id
WHERE o.amount > ?;

-- name: NamesOrStatuses :many
-- A parameter in each SELECT of the UNION.
SELECT name FROM g50_user WHERE city = ? UNION SELECT status FROM g50_order WHERE amount > ? ORDER BY name;

-- name: UsersWithoutOrdersAbove :many
-- NOT IN: a NULL among the subquery's values makes it never TRUE; no
-- value at all makes it TRUE.
SELECT user_id, name FROM g50_user WHERE user_id NOT IN (SELECT user_id FROM g50_order WHERE amount >= ?)
ORDER BY user_id;

-- name: OrdersOfUsersNotIn :many
-- A NULL on the left of NOT IN: TRUE only when the subquery has no row.
SELECT order_id, user_id FROM g50_order WHERE user_id NOT IN (SELECT user_id FROM g50_user WHERE city = ?)
ORDER BY order_id;

-- name: TagsNotAllNotes :many
-- <> ALL is NOT IN; the values compare under the column's collation.
SELECT tag_id FROM g50_tag WHERE note <> ALL (SELECT note FROM g50_tag WHERE tag_id IN (1, 2))
ORDER BY tag_id;

-- name: UsersIfOrderAbove :many
-- An uncorrelated EXISTS: one row at most is read, bound as 1 or 0.
SELECT user_id FROM g50_user WHERE EXISTS (SELECT 1 FROM g50_order WHERE amount > ?) AND city = 'paris'
ORDER BY user_id;

-- name: UsersUnlessStatus :many
SELECT user_id, name FROM g50_user WHERE NOT EXISTS (SELECT order_id FROM g50_order WHERE status = ?)
ORDER BY user_id;

-- name: CountWithNoteFlag :one
-- EXISTS in the select list of an aggregate.
SELECT COUNT(*) AS n, EXISTS (SELECT 1 FROM g50_tag WHERE note = ?) AS has_note FROM g50_user;

-- name: OtherTagsOfUser :many
-- Residual comparisons applied after the key match (runtime.JoinSpec
-- Residual): the user's other tags whose note sorts at or after this
-- one's under utf8mb4_unicode_ci (every emoji equal).
SELECT a.tag_id, b.tag_id AS other_id FROM g50_tag a LEFT JOIN g50_tag b
  ON b.user_id = a.user_id AND a.tag_id <> b.tag_id AND a.note <= b.note
ORDER BY a.tag_id, other_id;

-- name: LowerLabelsOfUser :many
-- A latin1_swedish_ci residual comparison (ü sorts as y).
SELECT a.tag_id, b.tag_id AS other_id FROM g50_tag a JOIN g50_tag b
  ON b.user_id = a.user_id AND a.label > b.label;

-- name: AddPay :exec
INSERT INTO g50_pay (pay_id, user_id, amount, paid_on, paid_at, note) VALUES (?, ?, ?, ?, ?, ?);

-- name: PaysAboveAverage :many
-- A scalar subquery evaluated first across data nodes (AVG merged from
-- SUM and COUNT), its value bound as DECIMAL(65,6), exactly.
SELECT pay_id, amount FROM g50_pay WHERE amount > (SELECT AVG(amount) FROM g50_pay)
ORDER BY pay_id;

-- name: PaysWithAverage :many
-- A scalar subquery in the select list.
SELECT pay_id, (SELECT AVG(amount) FROM g50_pay) AS avg_amount, amount FROM g50_pay
ORDER BY pay_id;

-- name: PaysOfLastDay :many
-- A DATETIME bound as a DATETIME.
SELECT pay_id, paid_on FROM g50_pay
WHERE paid_on = (SELECT MAX(paid_on) FROM g50_pay) OR paid_at = (SELECT MIN(paid_at) FROM g50_pay)
ORDER BY pay_id;

-- name: NoteOfPay :many
-- No row: NULL; text (CJK included) bound in its column's character set.
SELECT user_id, name, (SELECT note FROM g50_pay WHERE pay_id = ?) AS pay_note FROM g50_user
WHERE user_id IN (1, 2) ORDER BY user_id;

-- name: PaysWithNoteOfDay :many
-- More than one row: MySQL's error 1242.
SELECT pay_id FROM g50_pay WHERE note = (SELECT note FROM g50_pay WHERE paid_on = ?)
ORDER BY pay_id;

-- name: PaysOfCityAboveMin :many
-- An IN subquery and a scalar one in one statement.
SELECT pay_id, amount FROM g50_pay
WHERE user_id IN (SELECT user_id FROM g50_user WHERE city = ?) AND amount > (SELECT MIN(amount) FROM g50_pay)
ORDER BY pay_id;

-- name: OrdersOfCityAndStatus :many
-- Two IN subqueries: two lists bound in one statement.
SELECT order_id, amount FROM g50_order
WHERE user_id IN (SELECT user_id FROM g50_user WHERE city = ?)
  AND order_id IN (SELECT pay_id FROM g50_pay WHERE amount IS NOT NULL)
ORDER BY order_id;

-- name: UsersWithoutPaysIfOrder :many
-- NOT IN and EXISTS in one statement.
SELECT user_id, name FROM g50_user
WHERE user_id NOT IN (SELECT user_id FROM g50_pay) AND EXISTS (SELECT 1 FROM g50_order WHERE amount > ?)
ORDER BY user_id;

-- name: PageOfOrdersWithUsers :many
-- LIMIT ?, ? of a join across data nodes: the call's parameters.
SELECT o.order_id, u.name FROM g50_order o JOIN g50_user u ON u.user_id = o.user_id
ORDER BY o.order_id LIMIT ?, ?;

-- name: FirstIDs :many
-- LIMIT ? of a UNION.
SELECT user_id AS id FROM g50_user UNION SELECT order_id FROM g50_order ORDER BY id LIMIT ?;

-- name: TagCaseExtremes :many
-- shardgen:allow-full-route
-- MAX(UPPER(x)) / MIN(LOWER(x)) per group across data nodes: typed as
-- their argument (sql.NullString) and merged under the column's collation
-- (latin1_swedish_ci: Ü = Y, after E = É; utf8mb4_unicode_ci: CJK before
-- emoji, ss = ß).
SELECT user_id, MAX(UPPER(label)) AS top_label, MIN(LOWER(note)) AS low_note,
       MIN(UCASE(label)) AS low_label, MAX(LCASE(note)) AS top_note
FROM g50_tag GROUP BY user_id ORDER BY user_id;

-- name: OrdersUsersTags :many
-- A join of three tables, split left-deep: the join of the first two,
-- itself evaluated in steps, is the outer side of the join with the third.
SELECT o.order_id, u.name, t.tag_id FROM g50_order o JOIN g50_user u ON u.user_id = o.user_id JOIN g50_tag t ON t.user_id = u.user_id
ORDER BY o.order_id, t.tag_id;

-- name: UsersOrdersPays :many
-- LEFT JOINs of three tables with a parameter: NULLs on the inner sides.
SELECT u.user_id, o.order_id, p.pay_id, p.note FROM g50_user u LEFT JOIN g50_order o ON o.user_id = u.user_id
LEFT JOIN g50_pay p ON p.pay_id = o.order_id
WHERE u.city = ? ORDER BY u.user_id, o.order_id, p.pay_id;

-- name: NamesAndNone :many
-- A SELECT without a table in a UNION: one constant row, on any data node.
SELECT name FROM g50_user WHERE user_id = 1 UNION SELECT 'zzz';

-- name: IDsAndZero :many
-- The same across data nodes: the constant row comes once.
SELECT user_id FROM g50_user UNION SELECT 0 FROM DUAL ORDER BY user_id;

-- name: AddMeter :exec
INSERT INTO g50_meter (meter_id, reading, quota, read_on, read_at, took) VALUES (?, ?, ?, ?, ?, ?);

-- name: MetersAtTopReading :many
-- BIGINT UNSIGNED and INT UNSIGNED scalar subqueries: their values (up to
-- 2^64-1) bound as UNSIGNED and returned as the unsigned Go type.
SELECT meter_id, (SELECT MAX(reading) FROM g50_meter) AS top_reading, (SELECT MIN(quota) FROM g50_meter) AS low_quota
FROM g50_meter WHERE reading = (SELECT MAX(reading) FROM g50_meter) OR quota = (SELECT MAX(quota) FROM g50_meter)
ORDER BY meter_id;

-- name: MetersReadingAtLeast :many
-- A parameter in the unsigned scalar subquery; no row: NULL.
SELECT meter_id, reading FROM g50_meter WHERE reading >= (SELECT reading FROM g50_meter WHERE meter_id = ?)
ORDER BY meter_id;

-- name: MetersOfExtremeTimes :many
-- DATE, DATETIME(3) and TIME(3) scalar subqueries, bound as CAST(? AS
-- DATE), CAST(? AS DATETIME(3)) and CAST(? AS TIME(3)): DATE 1000-01-01,
-- milliseconds and negative times compare as the columns' values do.
SELECT meter_id FROM g50_meter
WHERE read_on = (SELECT MIN(read_on) FROM g50_meter) OR read_at = (SELECT MAX(read_at) FROM g50_meter)
   OR took = (SELECT MIN(took) FROM g50_meter)
ORDER BY meter_id;

-- name: MeterTimeExtremes :many
-- The same values in the select list, typed as the columns are.
SELECT meter_id, (SELECT MIN(read_on) FROM g50_meter) AS first_day, (SELECT MAX(read_at) FROM g50_meter) AS last_at,
       (SELECT MIN(took) FROM g50_meter) AS shortest, (SELECT MAX(took) FROM g50_meter) AS longest
FROM g50_meter WHERE meter_id IN (1, 4) ORDER BY meter_id;

-- name: MetersOfDayOf :many
SELECT meter_id, read_on FROM g50_meter WHERE read_on = (SELECT read_on FROM g50_meter WHERE meter_id = ?)
ORDER BY meter_id;

-- name: MetersReadAtOf :many
-- DATETIME(3): .123 equals .123 only, not .124.
SELECT meter_id, read_at FROM g50_meter WHERE read_at = (SELECT read_at FROM g50_meter WHERE meter_id = ?)
ORDER BY meter_id;

-- name: MetersTookAtLeast :many
-- TIME(3) from -838:59:59.000 to 838:59:59.000, 00:00:00 and -00:00:00.500.
SELECT meter_id, took FROM g50_meter WHERE took >= (SELECT took FROM g50_meter WHERE meter_id = ?)
ORDER BY meter_id;

-- name: CloseCheapOrders :execrows
-- shardgen:allow-full-route
-- UPDATE … ORDER BY … LIMIT over several data nodes: the keys of the rows
-- one MySQL would change, selected in order across data nodes (merged),
-- then exactly those rows written. Amounts repeat (0, 7, 5, 9): order_id
-- breaks the ties, so the ORDER BY is total.
UPDATE g50_order SET status = ? WHERE amount >= ? ORDER BY amount, order_id LIMIT 3;

-- name: BumpFirstOrder :exec
-- shardgen:allow-full-route
-- NULL user_id sorts first, as in MySQL.
UPDATE g50_order SET amount = amount + 10 ORDER BY user_id, order_id LIMIT 1;

-- name: DeleteLastOrders :execrows
-- shardgen:allow-full-route
-- DESC: NULL user_id sorts last; the rows of user 7 tie on user_id.
DELETE FROM g50_order WHERE status <> ? ORDER BY user_id DESC, order_id DESC LIMIT 2;

-- name: DeleteNoOrders :execrows
-- shardgen:allow-full-route
-- LIMIT 0 writes nothing.
DELETE FROM g50_order WHERE amount > ? ORDER BY order_id LIMIT 0;

-- name: MarkBigOrders :execrows
-- shardgen:allow-full-route
-- A LIMIT above the rows that match: every matching row.
UPDATE g50_order SET status = 'big' WHERE amount > ? ORDER BY amount DESC, order_id LIMIT 100;

-- name: RenoteTagsByLabel :execrows
-- shardgen:allow-full-route
-- ORDER BY a latin1 column merged under its collation (y = ü, e = É tie;
-- NULL first), tag_id breaking the ties; the key list is bound as integers.
UPDATE g50_tag SET note = ? ORDER BY label, tag_id LIMIT 4;

-- name: PaysWithUsersByAmount :many
-- The inner side's IN list is on its sharding column (user_id): each data
-- node gets only the values that live there, converted as MySQL compares
-- a DECIMAL with a BIGINT (7.00 is user 7; 10.50 equals no user and goes
-- to none).
SELECT p.pay_id, p.amount, u.name FROM g50_pay p JOIN g50_user u ON u.user_id = p.amount
ORDER BY p.pay_id;
