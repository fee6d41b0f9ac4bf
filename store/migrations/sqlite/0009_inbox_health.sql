-- Migration 9: the PM inbox's health apart from the thread's (issue 22
-- item 7). A read whose thread pages read but whose inbox did not is a good
-- read of the thread (forum_health above, no outage) and this:
--   inbox_error          what the inbox read met, as a GM reads it, naming
--                        the page; '' while the inbox reads;
--   inbox_failing_since  when the first of the current run of failed inbox
--                        reads began (NULL: not failing);
--   inbox_failures       how many in that run.
ALTER TABLE forum_health ADD COLUMN inbox_error TEXT NOT NULL DEFAULT '';
ALTER TABLE forum_health ADD COLUMN inbox_failing_since BIGINT;
ALTER TABLE forum_health ADD COLUMN inbox_failures INTEGER NOT NULL DEFAULT 0;
