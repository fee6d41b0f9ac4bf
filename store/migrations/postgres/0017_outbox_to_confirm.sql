-- Migration 17: the sent items whose markers are still to be looked for
-- (sent with no forum id yet: confirmed later), found without scanning a
-- game's sent items. Every tick of every game asks whether it has any, so
-- the question costs one index probe however long the game has run
-- (the index holds all its query reads: SQLite takes it over
-- outbox_game_state then, even with no statistics).
CREATE INDEX outbox_to_confirm ON outbox (game_id, last_error) WHERE state = 'sent' AND forum_id = '';
