-- Games that count (issue 31): a game that ended before every seated power had played a
-- turn of its own is aborted, not rated (libs/events/src/game.rs, GameLog::status). The
-- summaries list it as such, and keep how many of each power's orders its player gave and
-- how many the game master (or a director or an admin) gave for it, by power:
-- {"germany": {"by_player": 12, "by_game_master": 3}}.
ALTER TABLE game_summaries DROP CONSTRAINT game_summaries_status_check;
ALTER TABLE game_summaries ADD CONSTRAINT game_summaries_status_check
    CHECK (status IN ('running', 'ended', 'voided', 'aborted'));
ALTER TABLE game_summaries ADD COLUMN orders jsonb NOT NULL DEFAULT '{}'::jsonb;

-- Games ended before the rule follow it: the summaries and the league are read models, so
-- they are emptied here and their projectors replay the log from its start (as
-- `warlog rebuild game_summaries` and `warlog rebuild league` do).
DELETE FROM game_summaries;
DELETE FROM players;
DELETE FROM league_results;
DELETE FROM ladder_rows;
DELETE FROM ladder_heads;
UPDATE projector_checkpoints SET tx_id = '0', position = 0, updated_at = now()
 WHERE projector IN ('game_summaries', 'league');
