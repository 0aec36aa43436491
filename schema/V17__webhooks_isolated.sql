-- Webhooks isolated from each other (issue 32): one delivery in flight per subscription,
-- a subscription paused after consecutive failures, deliveries dead-lettered after a
-- maximum age or attempt count, secrets sealed at rest.

-- A subscription's sender lease and backoff: no delivery of it is claimed before this
-- (one in flight at a time; after a failure, the receiver is left alone for a while).
ALTER TABLE webhook_subscriptions ADD COLUMN not_before timestamptz;
-- Attempts that failed since the last one that was accepted.
ALTER TABLE webhook_subscriptions ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0;
-- Set after too many consecutive failures: nothing is sent until its owner resumes it.
ALTER TABLE webhook_subscriptions ADD COLUMN paused_at timestamptz;

-- A delivery given up on (too old, or tried too often): kept as history, never sent again.
ALTER TABLE webhook_deliveries ADD COLUMN dead_at timestamptz;

-- The secret column now holds `sealed:v1:<key id>:<base64>` (ChaCha20-Poly1305, keyed from
-- the service's environment). Rows from before stay in clear until `warlog serve` seals
-- them at its next start (SQL has no key); the sender reads both forms meanwhile.
COMMENT ON COLUMN webhook_subscriptions.secret IS
    'sealed:v1:<key id>:<base64 nonce and ciphertext>, or (rows from before V17 not yet resealed) the secret in clear';

-- Errors were the receiver's or the connector's own words, which told a registrant what an
-- internal port answered; they become the coarse categories the sender now records.
UPDATE webhook_deliveries
   SET last_error = CASE WHEN last_status IS NOT NULL THEN 'status ' || last_status
                         ELSE 'not delivered' END
 WHERE last_error IS NOT NULL;

-- A deleted subscription's undelivered rows were left pending for ever.
DELETE FROM webhook_deliveries d
 USING webhook_subscriptions s
 WHERE d.subscription_id = s.subscription_id
   AND s.deleted_at IS NOT NULL
   AND d.delivered_at IS NULL;

-- The subscriptions an owner has (the per-owner cap counts them).
CREATE INDEX webhook_subscriptions_owner_idx
    ON webhook_subscriptions (owner) WHERE deleted_at IS NULL;

-- The sender's queue without the dead.
DROP INDEX webhook_deliveries_due_idx;
CREATE INDEX webhook_deliveries_due_idx
    ON webhook_deliveries (subscription_id, next_attempt_at)
    WHERE delivered_at IS NULL AND dead_at IS NULL;
