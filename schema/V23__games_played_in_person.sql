-- A rated game needs its players (issue 56): a game created from now on that ends with a
-- seat whose scored player never acted in person (by their own token, by mail, or through
-- a proxy they named) was played by its game master alone and is not rated
-- (libs/events/src/in_person.rs; GameCreated.played_in_person). The summaries list it as
-- 'master-only'. Games created before keep the status they had, so nothing is rebuilt.
ALTER TABLE game_summaries DROP CONSTRAINT game_summaries_status_check;
ALTER TABLE game_summaries ADD CONSTRAINT game_summaries_status_check
    CHECK (status IN ('running', 'ended', 'voided', 'aborted', 'master-only'));
