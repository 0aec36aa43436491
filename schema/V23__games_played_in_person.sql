-- A rated game needs its players (issue 56): a game that ended with a seated power whose
-- player never gave an order in person (by their own token, by mail, or through a proxy
-- they named) was played by its game master alone and is not rated
-- (libs/events/src/game.rs, GameLog::status). The summaries list it as 'master-only'.
ALTER TABLE game_summaries DROP CONSTRAINT game_summaries_status_check;
ALTER TABLE game_summaries ADD CONSTRAINT game_summaries_status_check
    CHECK (status IN ('running', 'ended', 'voided', 'aborted', 'master-only'));

-- Games recorded before the rule follow it where their record says who gave each order
-- (docs/rulesets.md, "A rated game needs its players"): the summaries and the league are
-- read models, so they are emptied here and their projectors replay the log from its start
-- (as `warlog rebuild game_summaries` and `warlog rebuild league` do).
DELETE FROM game_summaries;
DELETE FROM players;
DELETE FROM league_results;
DELETE FROM ladder_rows;
DELETE FROM ladder_heads;
DELETE FROM league_skipped_games;
UPDATE projector_checkpoints SET tx_id = '0', position = 0, updated_at = now()
 WHERE projector IN ('game_summaries', 'league');
