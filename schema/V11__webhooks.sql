-- Webhooks (issue 17): subscriptions that administrators and directors register, and an
-- outbox of deliveries that the `webhooks` projector fills from the event log (so a
-- delivery exists exactly once per event and subscription, whatever restarts) and the
-- service's sender works through, with retries and backoff.

CREATE TABLE webhook_subscriptions (
    subscription_id text        PRIMARY KEY,
    url             text        NOT NULL,
    -- game.ended, round.seated, tournament.finished, ladder.changed
    kinds           text[]      NOT NULL,
    -- The key of the HMAC-SHA256 signature; the sender needs it, so it is kept as given.
    secret          text        NOT NULL,
    -- Who registered it (a token's name); they, and administrators, may see and delete it.
    owner           text        NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    -- Deleted subscriptions keep their delivery history.
    deleted_at      timestamptz
);

CREATE TABLE webhook_deliveries (
    -- Derived from the subscription and the event: the receiver's de-duplication key.
    delivery_id     text        PRIMARY KEY,
    subscription_id text        NOT NULL REFERENCES webhook_subscriptions,
    kind            text        NOT NULL,
    event_id        uuid        NOT NULL,
    body            text        NOT NULL,
    attempts        integer     NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    delivered_at    timestamptz,
    last_status     integer,
    last_error      text,
    created_at      timestamptz NOT NULL DEFAULT now()
);

-- The sender's queue: what is due and not yet delivered.
CREATE INDEX webhook_deliveries_due_idx
    ON webhook_deliveries (next_attempt_at) WHERE delivered_at IS NULL;
CREATE INDEX webhook_deliveries_subscription_idx
    ON webhook_deliveries (subscription_id, created_at DESC, delivery_id);

GRANT SELECT, INSERT, UPDATE ON webhook_subscriptions TO warlog_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON webhook_deliveries TO warlog_app;
