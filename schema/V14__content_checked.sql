-- The database checks what it stores (issue 31).
--
-- Since V9 an event must continue its stream's chain (the next version, the previous hash
-- as its prev_hash), but its own hash was taken on trust: an INSERT with the right prev_hash
-- and any 32 bytes as hash was stored, and only `warlog verify` found it later. From here on
-- the database computes the hash itself, sha256(prev_hash || canonical bytes), from the row
-- it is given, and refuses the row unless its hash is that one, whoever inserts it.

-- 1. The canonical encoding (libs/rules/src/canonical.rs), byte for byte: no white space,
--    object keys sorted by their UTF-8 bytes, strings escaped as serde_json escapes them,
--    numbers as serde_json reads them back from jsonb's text and the Rust encoder writes
--    them. tests/tests/it/store.rs feeds both encoders the same values and compares bytes.
--
-- A number that is not a plain integer of at most 18 characters. serde_json reads an
-- integer between i64's least and u64's greatest value as that integer, and anything else
-- as the nearest double (correctly rounded: the workspace builds serde_json with
-- `float_roundtrip`, as `numeric::float8` rounds); the Rust encoder then writes an integral
-- double as its exact integer and any other as the shortest decimal that reads back to it,
-- in Rust's (ryu's) layout. PostgreSQL's float8 output is the same shortest decimal (both
-- are Ryu), laid out as printf's %g: fixed from 1e-4 up to 1e15, scientific ("1e-07",
-- "1.5e+15") outside. A fraction's exponent is below 16 (above 2^53 every double is whole),
-- so only 1e-5 to 1e-4 and 1e15 to 2^53 (fixed in Rust) and below 1e-5 (Rust: "1e-7") need
-- laying out again. A number beyond a double's range is refused here, as serde_json cannot
-- read it either; one so small that it reads as zero is refused here too (the service,
-- whose numbers are doubles, never writes one). The float output is fixed for this
-- function, whatever the session sets.
--
-- What is encoded is the value as stored, as a reader reads it back. The only values whose
-- canonical bytes change on the way into jsonb are whole doubles of 2^53 or more whose
-- shortest form has fewer digits than their exact value (-1.4263960149964575e18 is written
-- "-1426396014996457472" by the service before it is stored, but reads back as the integer
-- -1426396014996457500): an event holding one never verified, and is now refused. The
-- events of a played game hold none (tests/tests/it/store.rs).
CREATE FUNCTION warlog_canonical_number(p_number numeric) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT
SET extra_float_digits = 1
AS $$
DECLARE
    v_double float8;
    v_bits   bigint;
    v_text   text;
    v_parts  text[];
    v_exp    integer;
    v_digits text;
BEGIN
    IF scale(p_number) = 0
       AND p_number BETWEEN -9223372036854775808 AND 18446744073709551615 THEN
        RETURN p_number::text;
    END IF;
    v_double := p_number::float8;
    IF v_double = trunc(v_double) THEN
        IF abs(v_double) < 9223372036854775807::float8 THEN
            RETURN v_double::int8::text;
        END IF;
        -- A whole double of 2^63 or more: its exact value, mantissa times a power of two.
        v_bits := ('x' || encode(float8send(abs(v_double)), 'hex'))::bit(64)::bigint;
        RETURN CASE WHEN v_double < 0 THEN '-' ELSE '' END
            || trunc(((v_bits & 4503599627370495) + 4503599627370496)::numeric
                     * 2::numeric ^ ((v_bits >> 52) - 1075))::text;
    END IF;
    v_text := v_double::text;
    v_parts := regexp_match(v_text, '^(-?)([0-9])(?:\.([0-9]+))?e([-+][0-9]+)$');
    IF v_parts IS NULL THEN
        RETURN v_text;
    END IF;
    v_exp := v_parts[4]::integer;
    v_digits := v_parts[2] || coalesce(v_parts[3], '');
    IF v_exp < -5 THEN
        RETURN v_parts[1] || v_parts[2] || coalesce('.' || v_parts[3], '') || 'e' || v_exp;
    ELSIF v_exp < 0 THEN
        RETURN v_parts[1] || '0.' || repeat('0', -v_exp - 1) || v_digits;
    END IF;
    RETURN v_parts[1] || left(v_digits, v_exp + 1) || '.' || substr(v_digits, v_exp + 2);
END
$$;

-- Any JSON value, without a query per node (a query costs more than the rest of a call).
-- jsonb's text of a string, true, false and null is already serde_json's (the same
-- escape_json), so scalars are written as jsonb writes them; what is left is the order of
-- an object's keys (jsonb keeps them by length first, the canonical order is by bytes) and
-- the white space. Keys are sorted through a tsvector, whose lexemes are kept in exactly
-- the canonical order (memcmp, then length), when none is empty, none needs escaping and
-- none is longer than a lexeme may be (2,047 bytes); otherwise by a query, COLLATE "C".
-- A flat object (no array or object inside) with no escape anywhere in its text, no number
-- but short integers and a text shorter than a lexeme may be goes without a loop over its
-- keys: there every quote delimits a string, so in `{"k1": v1, "k2": v2}` `": ` ends a key
-- and `, "` starts the next member; each member becomes one lexeme `k1<U+0001>v1` (U+0001
-- sorts below anything such a key holds), and the sorted lexemes are the members in order.
-- Most events' metadata and many payloads are such objects. An array of scalars and short
-- integers is jsonb's text made compact by json_strip_nulls, which keeps an array's nulls.
CREATE FUNCTION warlog_canonical(p_value jsonb) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT AS $$
DECLARE
    v_text  text;
    v_keys  text[];
    v_plain boolean;
    v_key   text;
    v_item  jsonb;
    v_out   text := '';
BEGIN
    CASE jsonb_typeof(p_value)
    WHEN 'object' THEN
        v_text := p_value::text;
        IF v_text = '{}' THEN
            RETURN v_text;
        END IF;
        IF strpos(v_text, '[') = 0 AND strpos(substr(v_text, 2), '{') = 0
           AND strpos(v_text, '\') = 0 AND octet_length(v_text) < 2048
           AND v_text !~ '": -?[0-9]*(\.|[0-9]{18})' THEN
            RETURN '{"' || replace(array_to_string(tsvector_to_array(array_to_tsvector(
                       string_to_array(replace(substr(v_text, 3, length(v_text) - 3),
                                               '": ', chr(1)), ', "'))), ',"'),
                                   chr(1), '":') || '}';
        END IF;
        v_text := jsonb_path_query_array(p_value, '$.keyvalue().key')::text;
        v_plain := strpos(v_text, '\') = 0 AND strpos(v_text, '""') = 0
                   AND octet_length(v_text) < 2048;
        IF v_plain THEN
            v_keys := tsvector_to_array(array_to_tsvector(
                ('{' || substr(v_text, 2, length(v_text) - 2) || '}')::text[]));
        ELSE
            v_keys := ARRAY(SELECT key FROM jsonb_object_keys(p_value) AS keys(key)
                             ORDER BY key COLLATE "C");
        END IF;
        FOREACH v_key IN ARRAY v_keys LOOP
            v_item := p_value -> v_key;
            v_out := v_out || ','
                || CASE WHEN v_plain THEN '"' || v_key || '"' ELSE to_json(v_key)::text END
                || ':'
                || CASE jsonb_typeof(v_item)
                   WHEN 'object' THEN warlog_canonical(v_item)
                   WHEN 'array' THEN warlog_canonical(v_item)
                   WHEN 'number' THEN
                       CASE WHEN length(v_item::text) <= 18 AND strpos(v_item::text, '.') = 0
                            THEN v_item::text
                            ELSE warlog_canonical_number(v_item::numeric) END
                   ELSE v_item::text
                   END;
        END LOOP;
        RETURN '{' || substr(v_out, 2) || '}';
    WHEN 'array' THEN
        v_text := p_value::text;
        IF strpos(v_text, '{') = 0 AND strpos(substr(v_text, 2), '[') = 0
           AND strpos(v_text, '.') = 0 AND v_text !~ '[0-9]{18}' THEN
            RETURN json_strip_nulls(v_text::json)::text;
        END IF;
        FOR v_place IN 0 .. jsonb_array_length(p_value) - 1 LOOP
            v_item := p_value -> v_place;
            v_out := v_out || ','
                || CASE jsonb_typeof(v_item)
                   WHEN 'object' THEN warlog_canonical(v_item)
                   WHEN 'array' THEN warlog_canonical(v_item)
                   WHEN 'number' THEN
                       CASE WHEN length(v_item::text) <= 18 AND strpos(v_item::text, '.') = 0
                            THEN v_item::text
                            ELSE warlog_canonical_number(v_item::numeric) END
                   ELSE v_item::text
                   END;
        END LOOP;
        RETURN '[' || substr(v_out, 2) || ']';
    WHEN 'number' THEN
        RETURN warlog_canonical_number(p_value::numeric);
    ELSE
        RETURN p_value::text;
    END CASE;
END
$$;

-- An event's canonical bytes: the object of libs/events/src/envelope.rs
-- (`canonical_event_bytes`), its keys already in order. STABLE as what it calls is, so the
-- trigger's call is inlined (an SQL function called as such costs an executor per row).
CREATE FUNCTION warlog_canonical_event(p_event_id uuid, p_event_type text,
                                       p_event_version integer, p_metadata jsonb,
                                       p_payload jsonb) RETURNS bytea
LANGUAGE sql STABLE STRICT AS $$
    SELECT convert_to('{"event_id":"' || p_event_id::text
                      || '","event_type":' || to_json(p_event_type)::text
                      || ',"event_version":' || p_event_version::text
                      || ',"metadata":' || warlog_canonical(p_metadata)
                      || ',"payload":' || warlog_canonical(p_payload) || '}', 'UTF8')
$$;

-- 2. One check per inserted row: the link (as V9's warlog_check_link did), then the hash.
CREATE FUNCTION warlog_check_event() RETURNS trigger
LANGUAGE plpgsql AS $$
DECLARE
    v_version bigint;
    v_prev    bytea;
    v_hash    bytea;
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
    v_hash := sha256(NEW.prev_hash || warlog_canonical_event(NEW.event_id, NEW.event_type,
                                                            NEW.event_version, NEW.metadata,
                                                            NEW.payload));
    IF NEW.hash <> v_hash THEN
        RAISE EXCEPTION 'event % of stream % is not hashed from its content (its hash is %, its content and prev_hash give %)',
            NEW.stream_version, NEW.stream_id, encode(NEW.hash, 'hex'), encode(v_hash, 'hex')
            USING ERRCODE = 'integrity_constraint_violation';
    END IF;
    RETURN NEW;
END
$$;

DROP TRIGGER events_continue_chain ON events;
DROP FUNCTION warlog_check_link();
CREATE TRIGGER events_check_link_and_hash BEFORE INSERT ON events
    FOR EACH ROW EXECUTE FUNCTION warlog_check_event();

-- The service may compute canonical bytes itself (tests and tools compare encoders).
GRANT EXECUTE ON FUNCTION warlog_canonical_number(numeric) TO warlog_app;
GRANT EXECUTE ON FUNCTION warlog_canonical(jsonb) TO warlog_app;
GRANT EXECUTE ON FUNCTION warlog_canonical_event(uuid, text, integer, jsonb, jsonb) TO warlog_app;

-- 3. A projector that meets an event it cannot decode stops there (libs/store/src/
--    projector.rs) and says where, so readiness can name it: the event and why.
ALTER TABLE projector_checkpoints
    ADD COLUMN stopped_at      timestamptz,
    ADD COLUMN stopped_stream  text,
    ADD COLUMN stopped_version bigint,
    ADD COLUMN stopped_reason  text;
