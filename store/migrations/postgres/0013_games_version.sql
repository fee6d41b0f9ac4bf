-- One row counting the changes of any game's status, settings or players,
-- and the games' creation: a reader that keeps every running game's roster
-- decoded (the games sharing a bot's inbox) knows from this row alone that
-- none changed, without listing the games' revisions.
CREATE TABLE games_version (n BIGINT NOT NULL);
INSERT INTO games_version (n) VALUES (0);
