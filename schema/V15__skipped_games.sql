-- One seat per player per game (issue 40). A finished game the league cannot project (the
-- event decodes, the game is unsound: a player placed twice) changes no ladder: the league
-- projector records it here, with the reason, and goes on with the next games. A rebuild
-- empties the table and records the same games again. /readyz lists them.
CREATE TABLE league_skipped_games (
    game_id         text PRIMARY KEY,
    stream_version  bigint NOT NULL,
    code            text NOT NULL,
    reason          text NOT NULL,
    skipped_at      timestamptz NOT NULL DEFAULT now()
);
GRANT SELECT, INSERT, DELETE ON league_skipped_games TO warlog_app;
