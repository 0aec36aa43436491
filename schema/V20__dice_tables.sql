-- Dice tables for TripleA players (issue 38): a dice server whose every roll anyone can
-- check. A table's events are a stream of their own (`dice-<id>`); what must stay secret
-- lives here.
--
-- A table lives in epochs, each under its own seed, secret until revealed (its SHA-256 is
-- the epoch's `SeedCommitted` event). The game seeds' table (`dice_seeds`) keeps one seed
-- a stream; a dice table needs one an epoch.
CREATE TABLE dice_table_seeds (
    stream_id   text        NOT NULL,
    epoch       integer     NOT NULL CHECK (epoch >= 1),
    seed        bytea       NOT NULL CHECK (length(seed) = 32),
    created_at  timestamptz NOT NULL DEFAULT now(),
    revealed_at timestamptz,
    PRIMARY KEY (stream_id, epoch)
);

GRANT SELECT, INSERT ON dice_table_seeds TO warlog_app;

-- A table's epochs, found without reading its rolls (a table may hold many thousands): the
-- latest `SeedCommitted` of a stream is where a fold resumes. (Games' `SeedRevealed`
-- events are few and ride along.)
CREATE INDEX events_seed_events_idx ON events (stream_id, event_type, stream_version)
    WHERE event_type IN ('SeedCommitted', 'SeedRevealed');
GRANT UPDATE (revealed_at) ON dice_table_seeds TO warlog_app;

-- The service's own secrets, drawn at its first start and kept here so that every replica
-- and every restart uses the same: `dice-table-key` (table ids are the keyed hash of a
-- pair of addresses under it) and `dice-signing-seed` (the Ed25519 key rolls are signed
-- with). Never changed once drawn: a new table key would give every pair a new table, and
-- a new signing key would leave the published key unable to check past rolls.
CREATE TABLE service_secrets (
    name       text        PRIMARY KEY,
    secret     bytea       NOT NULL CHECK (length(secret) = 32),
    created_at timestamptz NOT NULL DEFAULT now()
);

GRANT SELECT, INSERT ON service_secrets TO warlog_app;

-- A roll's mail goes to an address that is no player's: the outbox keeps the address on
-- the row (`email`) instead of a handle, and forgets it once the mail is sent or given up.
ALTER TABLE mail_outbox ALTER COLUMN handle DROP NOT NULL;
ALTER TABLE mail_outbox ADD COLUMN email text;
