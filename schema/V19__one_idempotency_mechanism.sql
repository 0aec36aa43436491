-- One idempotency mechanism (issue 37): a keyed write is made idempotent by the first
-- answer recorded under its key in `request_responses` (schema/V3), in the transaction of
-- its events. The store's own record of a key and the versions it appended (schema/V1)
-- was used by nothing but the store's tests; it goes, and its grant with it.
DROP TABLE idempotency_keys;
