-- Indexes for the association's website (issue 17): tournaments and players can be found
-- without knowing their ids.

-- Read model: one row per tournament, for listing and filtering. Written only by the
-- `tournament_summaries` projector; `warlog rebuild tournament_summaries` empties and
-- replays it. Tournament ids are UUIDv7, so their order is the order they were created.
CREATE TABLE tournament_summaries (
    tournament_id  text        PRIMARY KEY,
    name           text        NOT NULL,
    ruleset        text        NOT NULL,
    -- The calendar year the tournament was created in.
    season         integer     NOT NULL,
    state          text        NOT NULL CHECK (state IN ('open', 'running', 'finished')),
    rounds         integer     NOT NULL,
    rounds_seated  integer     NOT NULL,
    version        bigint      NOT NULL,
    created_at     timestamptz NOT NULL,
    updated_at     timestamptz NOT NULL
);

CREATE INDEX tournament_summaries_state_idx ON tournament_summaries (state, tournament_id);
CREATE INDEX tournament_summaries_season_idx ON tournament_summaries (season, tournament_id);

GRANT SELECT, INSERT, UPDATE, DELETE ON tournament_summaries TO warlog_app;

-- Player search: by handle prefix (the primary key serves it with text_pattern_ops) or by
-- the prefix of a display name, without regard to case.
CREATE INDEX players_handle_prefix_idx ON players (lower(handle) text_pattern_ops);
CREATE INDEX players_name_prefix_idx ON players (lower(display_name) text_pattern_ops);
