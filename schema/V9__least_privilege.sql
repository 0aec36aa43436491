-- Least privilege in the database itself (issue 21).
--
-- 1. The service logs in as warlog_service, a login role with no rights of its own but
--    warlog_app's: it cannot RESET ROLE to anything more. Roles are cluster-wide, hence the
--    race handler; a managed database may not grant CREATEROLE to the migrating user, in
--    which case the role is not made here and the operator creates it (docs/operations.md).
DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'warlog_service') THEN
        CREATE ROLE warlog_service LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION
            IN ROLE warlog_app;
    END IF;
EXCEPTION
    WHEN duplicate_object OR unique_violation THEN NULL;
    WHEN insufficient_privilege THEN
        RAISE NOTICE 'warlog_service not created (no CREATEROLE): create it as docs/operations.md says';
END
$$;

-- 2. A seed is written once; the service may only note that it was revealed.
REVOKE UPDATE ON dice_seeds FROM warlog_app;
GRANT UPDATE (revealed_at) ON dice_seeds TO warlog_app;

-- 3. Tokens are made and revoked by an administrator (`warlog token`, on the owner's
--    connection), never by the service: it only reads them.
REVOKE INSERT ON api_tokens FROM warlog_app;

-- 4. An event must continue its stream's chain: the next version, and the hash of the
--    event before it (or the stream's genesis) as its prev_hash. The service computes both;
--    the database refuses an event that does not link, whoever inserts it. (An event's own
--    hash covers its canonical bytes, which only the service and the auditor compute.)
CREATE FUNCTION warlog_check_link() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    v_version bigint;
    v_prev    bytea;
BEGIN
    SELECT stream_version, hash INTO v_version, v_prev
      FROM events WHERE stream_id = NEW.stream_id
     ORDER BY stream_version DESC LIMIT 1;
    IF NOT FOUND THEN
        v_version := 0;
        v_prev := sha256(convert_to('warlog/stream/v1', 'UTF8') || '\x00'::bytea
                         || convert_to(NEW.stream_id, 'UTF8'));
    END IF;
    -- Another writer got there first (its commit is visible to this check): the same race
    -- the unique (stream_id, stream_version) key reports, reported the same way.
    IF NEW.stream_version <= v_version THEN
        RAISE EXCEPTION 'version % of stream % is taken', NEW.stream_version, NEW.stream_id
            USING ERRCODE = 'unique_violation', CONSTRAINT = 'events_stream_version_key';
    END IF;
    IF NEW.stream_version <> v_version + 1 OR NEW.prev_hash <> v_prev THEN
        RAISE EXCEPTION 'event % of stream % does not continue its chain (expected version % after %)',
            NEW.stream_version, NEW.stream_id, v_version + 1, encode(v_prev, 'hex')
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END
$$;

CREATE TRIGGER events_continue_chain BEFORE INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION warlog_check_link();
