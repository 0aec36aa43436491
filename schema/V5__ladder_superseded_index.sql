-- A ladder page as of a recent league state reads the current rows (by the partial index
-- ladder_rows_current_idx) plus the few rows superseded after that state (by this one),
-- instead of scanning every version of every row.
CREATE INDEX ladder_rows_superseded_idx
    ON ladder_rows (ladder, ruleset, season, valid_to)
    WHERE valid_to IS NOT NULL;
