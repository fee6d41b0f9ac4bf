-- Migration 5: each game's forum health, for `forumgm status` and the web
-- desk, and the outage policy. One row per game, written after each read:
--   last_good_read   when the last read that succeeded began;
--   last_error       what the last failed read met, as a GM reads it (no
--                    secret: the moderator cuts session ids and passwords
--                    out); '' while reads succeed;
--   failing_since    when the first of the current run of failed reads
--                    began (NULL: not failing); failures counts that run;
--   last_failure     when the latest failed read began;
--   next_retry       when the bot means to read again after a failure;
--   outage_from/_to  an outage the game has not acted on yet (its deadline
--                    not yet extended): set by the read that ended it, in
--                    the same transaction, and cleared by the step that
--                    extends the deadline and posts why, in its own.
CREATE TABLE forum_health (
    game_id        BIGINT  NOT NULL PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    last_good_read BIGINT,
    last_error     TEXT    NOT NULL DEFAULT '',
    failing_since  BIGINT,
    failures       INTEGER NOT NULL DEFAULT 0,
    last_failure   BIGINT,
    next_retry     BIGINT,
    outage_from    BIGINT,
    outage_to      BIGINT
);
