-- A win is a sole first place; a first place shared by k players is 1/k of a win each, and
-- a game where everyone ties is no one's (libs/league/src/wins.rs). Wins are kept times
-- 2520, as points are. The ladders are read models: they are emptied here and the league
-- projector rebuilds them from the event log (its checkpoint goes back to the start).
ALTER TABLE ladder_rows RENAME COLUMN wins TO wins_scaled;
ALTER TABLE ladder_rows ALTER COLUMN wins_scaled TYPE bigint;
DELETE FROM players;
DELETE FROM league_results;
DELETE FROM ladder_rows;
DELETE FROM ladder_heads;
UPDATE projector_checkpoints SET tx_id = '0', position = 0, updated_at = now()
 WHERE projector = 'league';
