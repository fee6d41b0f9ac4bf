-- Migration 3: what a board's time stamp allows (forum.Stamp), not one
-- instant. A message keeps the interval [stamp_earliest, stamp_latest) its
-- stamp allows, narrowed by what the bot saw (made before the read that
-- first found it; a thread's posts in post-id order), with the stamp's
-- precision and text as the page showed it, or why it could not be read
-- (stamp_error). posted_at stays the interval's start. Rows from before
-- this migration have an empty stamp_precision: their posted_at was taken
-- as exact.
ALTER TABLE messages ADD COLUMN stamp_earliest BIGINT;
ALTER TABLE messages ADD COLUMN stamp_latest BIGINT;
ALTER TABLE messages ADD COLUMN stamp_precision TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN stamp_text TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN stamp_error TEXT NOT NULL DEFAULT '';
-- When the bot last began a read of the game's thread: text a board appends
-- to an earlier post (MyBB's merges) was added after it.
ALTER TABLE games ADD COLUMN last_read BIGINT;
