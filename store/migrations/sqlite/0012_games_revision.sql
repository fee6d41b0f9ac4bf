-- Counts the changes to a game's settings and state: a reader that keeps a
-- game decoded (the games sharing a bot's inbox) knows it is current from
-- this column alone, without loading and comparing the state.
ALTER TABLE games ADD COLUMN revision BIGINT NOT NULL DEFAULT 0;
