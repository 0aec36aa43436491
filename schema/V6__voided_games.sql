-- A game may be voided (a director's decision that it does not count): the summaries
-- read model lists it as such.
ALTER TABLE game_summaries DROP CONSTRAINT game_summaries_status_check;
ALTER TABLE game_summaries ADD CONSTRAINT game_summaries_status_check
    CHECK (status IN ('running', 'ended', 'voided'));
