-- The league: players, the results of finished games, and the ladders. All of it is read
-- models kept by the `league` projector from the event log; `warlog rebuild league`
-- empties and replays them to the same rows.

-- Tournament seeds live beside the game seeds (dice_seeds, keyed by stream).

CREATE TABLE players (
    handle        text        PRIMARY KEY,
    display_name  text        NOT NULL,
    registered_at timestamptz NOT NULL
);

-- One row per seat of a finished game, for the player holding it at the end; and a row
-- with replaced = true (no points) for each player a substitute replaced.
CREATE TABLE league_results (
    game_id       text        NOT NULL,
    player        text        NOT NULL,
    power         text        NOT NULL,
    ruleset       text        NOT NULL,
    season        integer     NOT NULL,
    tournament    text,
    place         integer,
    tied_with     integer,
    -- Points times 2520 (every tie of up to ten places splits into whole 2520ths).
    points_scaled bigint      NOT NULL,
    percent_gain  text,
    percent_gain_value double precision,
    replaced      boolean     NOT NULL,
    ended_at      timestamptz NOT NULL,
    -- The league's own sequence: the n-th finished game, in projection order.
    seq           bigint      NOT NULL,
    PRIMARY KEY (game_id, player, power)
);

CREATE INDEX league_results_player_idx ON league_results (player, seq DESC);

-- The ladders, kept with their history: a row holds from valid_from until valid_to (the
-- seq of the game that replaced it), so a page can be read "as of" the seq its first page
-- saw, and paging stays free of duplicates and gaps while games finish.
CREATE TABLE ladder_rows (
    ladder        text        NOT NULL CHECK (ladder IN ('points', 'skill')),
    ruleset       text        NOT NULL,
    -- The calendar year of the games' ends; 0 for lifetime.
    season        integer     NOT NULL,
    player        text        NOT NULL,
    valid_from    bigint      NOT NULL,
    valid_to      bigint,
    -- Ordered by sort_key descending, then tiebreak ascending, then player.
    sort_key      double precision NOT NULL,
    tiebreak      bigint      NOT NULL,
    points_scaled bigint      NOT NULL,
    games         integer     NOT NULL,
    wins          integer     NOT NULL,
    mu            double precision NOT NULL,
    sigma         double precision NOT NULL,
    PRIMARY KEY (ladder, ruleset, season, player, valid_from)
);

CREATE INDEX ladder_rows_current_idx
    ON ladder_rows (ladder, ruleset, season, sort_key DESC, tiebreak, player)
    WHERE valid_to IS NULL;
CREATE INDEX ladder_rows_history_idx
    ON ladder_rows (ladder, ruleset, season, sort_key DESC, tiebreak, player, valid_from);

-- The seq of the last change to each ladder scope, and the league's game counter (the row
-- with ladder = '').
CREATE TABLE ladder_heads (
    ladder   text    NOT NULL,
    ruleset  text    NOT NULL,
    season   integer NOT NULL,
    seq      bigint  NOT NULL,
    PRIMARY KEY (ladder, ruleset, season)
);

GRANT SELECT, INSERT, UPDATE, DELETE ON players, league_results, ladder_rows, ladder_heads
    TO warlog_app;
