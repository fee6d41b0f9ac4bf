-- The flood control the bot has learned of its account on the game's board
-- (JSON, for `forumgm status`).
ALTER TABLE games ADD COLUMN flood TEXT;
