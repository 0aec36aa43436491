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

-- One row per stream: its version and the public head of its hash chain.
CREATE TABLE streams (
    stream_id   text        PRIMARY KEY,
    version     bigint      NOT NULL CHECK (version >= 0),
    head_hash   bytea       NOT NULL CHECK (length(head_hash) = 32),
    updated_at  timestamptz NOT NULL DEFAULT now()
);

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

-- Dice seeds live outside the event log until they are revealed (DESIGN.md, "The dice").
CREATE TABLE dice_seeds (
    stream_id    text        PRIMARY KEY,
    seed         bytea       NOT NULL CHECK (length(seed) = 32),
    created_at   timestamptz NOT NULL DEFAULT now(),
    revealed_at  timestamptz
);

-- Appends events to one stream in one round trip: checks the expected version under the
-- stream's row lock, chains the hashes, records the idempotency key, and wakes listeners.
--   p_expected: NULL = any version, 0 = the stream must not exist, N = exactly N.
--   p_canonical[i]: the canonical bytes of event i (computed by warlog-events), hashed as
--   sha256(prev_hash || canonical).
-- Errors: SQLSTATE WL409 (version conflict, DETAIL = current version), WL422 (idempotency
-- key reused for another request).
CREATE FUNCTION warlog_append(
    p_stream      text,
    p_expected    bigint,
    p_genesis     bytea,
    p_key         text,
    p_fingerprint bytea,
    p_event_ids   uuid[],
    p_types       text[],
    p_versions    integer[],
    p_payloads    jsonb[],
    p_metadata    jsonb[],
    p_canonical   bytea[]
) RETURNS TABLE (
    out_position       bigint,
    out_stream_version bigint,
    out_event_id       uuid,
    out_prev_hash      bytea,
    out_hash           bytea,
    out_tx_id          bigint,
    out_replayed       boolean
)
LANGUAGE plpgsql AS $$
DECLARE
    v_version  bigint;
    v_hash     bytea;
    v_prev     bytea;
    v_key      idempotency_keys%ROWTYPE;
    v_tx       bigint := pg_current_xact_id()::text::bigint;
    v_first    bigint;
BEGIN
    -- Serialise writers of this stream on its row. A new stream's row is created first so
    -- that two creators queue on it instead of racing to version 1.
    INSERT INTO streams (stream_id, version, head_hash)
        VALUES (p_stream, 0, p_genesis)
        ON CONFLICT (stream_id) DO NOTHING;
    SELECT s.version, s.head_hash INTO v_version, v_hash
        FROM streams s WHERE s.stream_id = p_stream FOR UPDATE;

    IF p_key IS NOT NULL THEN
        SELECT * INTO v_key FROM idempotency_keys k WHERE k.key = p_key;
        IF FOUND THEN
            IF v_key.fingerprint <> p_fingerprint THEN
                RAISE EXCEPTION 'idempotency key % was already used for a different request', p_key
                    USING ERRCODE = 'WL422';
            END IF;
            RETURN QUERY
                SELECT e.position, e.stream_version, e.event_id, e.prev_hash, e.hash,
                       e.tx_id::text::bigint, true
                FROM events e
                WHERE e.stream_id = v_key.stream_id
                  AND e.stream_version BETWEEN v_key.first_version AND v_key.last_version
                ORDER BY e.stream_version;
            RETURN;
        END IF;
    END IF;

    IF p_expected IS NOT NULL AND p_expected <> v_version THEN
        RAISE EXCEPTION 'stream % is at version %, not the expected %', p_stream, v_version, p_expected
            USING ERRCODE = 'WL409', DETAIL = v_version::text;
    END IF;

    v_first := v_version + 1;
    FOR i IN 1 .. cardinality(p_event_ids) LOOP
        v_version := v_version + 1;
        v_prev := v_hash;
        v_hash := sha256(v_prev || p_canonical[i]);
        INSERT INTO events (stream_id, stream_version, event_id, event_type, event_version,
                            payload, metadata, recorded_at, prev_hash, hash)
            VALUES (p_stream, v_version, p_event_ids[i], p_types[i], p_versions[i],
                    p_payloads[i], p_metadata[i], (p_metadata[i] ->> 'recorded_at')::timestamptz,
                    v_prev, v_hash)
            RETURNING position INTO out_position;
        out_stream_version := v_version;
        out_event_id := p_event_ids[i];
        out_prev_hash := v_prev;
        out_hash := v_hash;
        out_tx_id := v_tx;
        out_replayed := false;
        RETURN NEXT;
    END LOOP;

    UPDATE streams SET version = v_version, head_hash = v_hash, updated_at = now()
        WHERE stream_id = p_stream;

    IF p_key IS NOT NULL THEN
        INSERT INTO idempotency_keys (key, fingerprint, stream_id, first_version, last_version)
            VALUES (p_key, p_fingerprint, p_stream, v_first, v_version);
    END IF;

    -- A wake-up hint for projectors, delivered at commit; they poll as well.
    PERFORM pg_notify('warlog_events', p_stream);
END
$$;

-- The service's privileges: events may be read and appended, nothing else.
GRANT SELECT, INSERT ON events TO warlog_app;
GRANT SELECT, INSERT, UPDATE ON streams, idempotency_keys, projector_checkpoints TO warlog_app;
GRANT SELECT, INSERT, UPDATE ON dice_seeds TO warlog_app;
GRANT EXECUTE ON FUNCTION warlog_append(text, bigint, bytea, text, bytea, uuid[], text[], integer[], jsonb[], jsonb[], bytea[]) TO warlog_app;
-- Readiness checks read the migration history (refinery creates it before applying V1).
GRANT SELECT ON refinery_schema_history TO warlog_app;
