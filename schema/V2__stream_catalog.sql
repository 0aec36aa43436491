-- Read model: one row per stream, for auditors and the API's stream listing. Written only by
-- the `stream_catalog` projector; `warlog rebuild stream_catalog` empties and replays it.
-- The "last" columns follow the highest stream version seen, so they are right whatever
-- order the global feed delivers one stream's events in.
CREATE TABLE stream_catalog (
    stream_id          text        PRIMARY KEY,
    category           text        NOT NULL,
    event_count        bigint      NOT NULL,
    version            bigint      NOT NULL,
    last_event_type    text        NOT NULL,
    last_position      bigint      NOT NULL,
    first_recorded_at  timestamptz NOT NULL,
    last_recorded_at   timestamptz NOT NULL
);

CREATE INDEX stream_catalog_category_idx ON stream_catalog (category, stream_id);

GRANT SELECT, INSERT, UPDATE, DELETE ON stream_catalog TO warlog_app;
