-- The GM service: bearer tokens, the answers to idempotent writes, and the games read model.

-- Bearer tokens. Only SHA-256 of a token is kept: a leaked table grants nothing.
CREATE TABLE api_tokens (
    token_hash  bytea       PRIMARY KEY CHECK (length(token_hash) = 32),
    -- For a player token, the player's handle (as seated in games); else who holds it.
    name        text        NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
    role        text        NOT NULL CHECK (role IN ('admin', 'director', 'gm', 'player', 'auditor')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

-- The first answer to a write made with an Idempotency-Key, written in the same
-- transaction as its events: a retry gets this answer and appends nothing.
CREATE TABLE request_responses (
    key          text        PRIMARY KEY,
    -- SHA-256 of who asked, the method, the path and the body: the same key with other
    -- content is refused.
    fingerprint  bytea       NOT NULL CHECK (length(fingerprint) = 32),
    status       integer     NOT NULL,
    body         jsonb       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);

-- Read model: one row per game, for listing and filtering. Written only by the
-- `game_summaries` projector; `warlog rebuild game_summaries` empties and replays it.
CREATE TABLE game_summaries (
    game_id      text        PRIMARY KEY,
    ruleset      text        NOT NULL,
    status       text        NOT NULL CHECK (status IN ('running', 'ended')),
    players      text[]      NOT NULL,
    game_master  text        NOT NULL,
    tournament   text,
    version      bigint      NOT NULL,
    created_at   timestamptz NOT NULL,
    updated_at   timestamptz NOT NULL
);

CREATE INDEX game_summaries_players_idx ON game_summaries USING gin (players);

GRANT SELECT, INSERT ON api_tokens TO warlog_app;
GRANT SELECT, INSERT ON request_responses TO warlog_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON game_summaries TO warlog_app;
