-- warlog event store. Migrations are append-only: never edit a released file, add the next
-- number instead (refinery checks the checksums of applied files).

-- The role the service works as (SET ROLE after connecting). It may read and append
-- events, never change them. Roles are cluster-wide: several databases (one per test) may
-- race to create it, hence the exception handler.
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'warlog_app') THEN
        CREATE ROLE warlog_app NOLOGIN;
    END IF;
EXCEPTION WHEN duplicate_object OR unique_violation THEN
    NULL;
END
$$;

CREATE TABLE events (
    position        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    stream_id       text        NOT NULL,
    stream_version  bigint      NOT NULL CHECK (stream_version >= 1),
    event_id        uuid        NOT NULL UNIQUE,
    event_type      text        NOT NULL,
    event_version   integer     NOT NULL CHECK (event_version >= 1),
    payload         jsonb       NOT NULL,
    metadata        jsonb       NOT NULL,
    recorded_at     timestamptz NOT NULL,
    -- The writing transaction: readers of the global feed only pass a transaction once it
    -- is below every running one (pg_snapshot_xmin), so a late commit is never skipped.
    tx_id           xid8        NOT NULL DEFAULT pg_current_xact_id(),
    prev_hash       bytea       NOT NULL CHECK (length(prev_hash) = 32),
    hash            bytea       NOT NULL CHECK (length(hash) = 32),
    CONSTRAINT events_stream_version_key UNIQUE (stream_id, stream_version)
);

CREATE INDEX events_feed_idx ON events (tx_id, position);

CREATE FUNCTION warlog_refuse_event_change() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'events are immutable: % on events is not allowed', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$$;

CREATE TRIGGER events_no_update BEFORE UPDATE ON events
    FOR EACH ROW EXECUTE FUNCTION warlog_refuse_event_change();
CREATE TRIGGER events_no_delete BEFORE DELETE ON events
    FOR EACH ROW EXECUTE FUNCTION warlog_refuse_event_change();
CREATE TRIGGER events_no_truncate BEFORE TRUNCATE ON events
    FOR EACH STATEMENT EXECUTE FUNCTION warlog_refuse_event_change();

-- Every stream's head: its version and the hash of its last event. A view, not a table: the
-- events themselves are the truth, and an append has no second row to update.
CREATE VIEW stream_heads AS
    SELECT DISTINCT ON (stream_id)
           stream_id, stream_version AS version, hash AS head_hash, recorded_at
      FROM events
     ORDER BY stream_id, stream_version DESC;

-- A write made with an Idempotency-Key: the request's fingerprint and what it appended.
CREATE TABLE idempotency_keys (
    key             text        PRIMARY KEY,
    fingerprint     bytea       NOT NULL,
    stream_id       text        NOT NULL,
    first_version   bigint      NOT NULL,
    last_version    bigint      NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now()
);

-- Where each projector has read up to in the global feed, written in the same transaction
-- as its read-model rows.
CREATE TABLE projector_checkpoints (
    projector   text        PRIMARY KEY,
    tx_id       xid8        NOT NULL DEFAULT '0',
    position    bigint      NOT NULL DEFAULT 0,
    updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Dice seeds live outside the event log until they are revealed (docs/design.md, "The dice").
CREATE TABLE dice_seeds (
    stream_id    text        PRIMARY KEY,
    seed         bytea       NOT NULL CHECK (length(seed) = 32),
    created_at   timestamptz NOT NULL DEFAULT now(),
    revealed_at  timestamptz
);

-- The chain links of an append: element i is sha256(element i-1 || canonical[i]), element 0
-- being p_head (the stream's last hash, or its genesis). The append statement itself lives
-- in warlog-store (events.rs): it reads the last event, checks the expected version, and
-- inserts; UNIQUE (stream_id, stream_version) turns a lost race into an error.
CREATE FUNCTION warlog_chain(p_head bytea, p_canonical bytea[]) RETURNS bytea[]
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    v_hash   bytea := p_head;
    v_hashes bytea[] := '{}';
    v_bytes  bytea;
BEGIN
    FOREACH v_bytes IN ARRAY p_canonical LOOP
        v_hash := sha256(v_hash || v_bytes);
        v_hashes := v_hashes || v_hash;
    END LOOP;
    RETURN v_hashes;
END
$$;

-- The service's privileges: events may be read and appended, nothing else.
GRANT SELECT, INSERT ON events TO warlog_app;
GRANT SELECT ON stream_heads TO warlog_app;
GRANT SELECT, INSERT ON idempotency_keys TO warlog_app;
GRANT SELECT, INSERT, UPDATE ON projector_checkpoints TO warlog_app;
GRANT SELECT, INSERT, UPDATE ON dice_seeds TO warlog_app;
GRANT EXECUTE ON FUNCTION warlog_chain(bytea, bytea[]) TO warlog_app;
-- Readiness checks read the migration history (refinery creates it before applying V1).
GRANT SELECT ON refinery_schema_history TO warlog_app;
