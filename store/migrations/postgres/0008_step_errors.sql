-- Migration 8: why a game's last moderation step failed, for the web desk
-- and `forumgm status` (one row per game while its steps fail; deleted by
-- the next step that succeeds):
--   error      the error as a GM reads it (the moderator cuts session ids
--              and passwords out);
--   since      when the first of the current run of failed steps happened;
--   last       when the latest did; failures counts the run.
CREATE TABLE step_errors (
    game_id  BIGINT  NOT NULL PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    error    TEXT    NOT NULL,
    since    BIGINT  NOT NULL,
    last     BIGINT  NOT NULL,
    failures INTEGER NOT NULL DEFAULT 1
);
