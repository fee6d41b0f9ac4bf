-- Migration 7: how far the bot has read a game's thread, for the log and
-- `forumgm status` while a long first read (a backfill) runs over several
-- polls. One row per game, written with each page the read records:
--   page   the last page recorded (1-based);
--   pages  the thread's page count when that page was read.
-- The read is caught up when page = pages.
CREATE TABLE thread_progress (
    game_id    BIGINT  NOT NULL PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    page       INTEGER NOT NULL DEFAULT 0,
    pages      INTEGER NOT NULL DEFAULT 0,
    updated_at BIGINT  NOT NULL
);
