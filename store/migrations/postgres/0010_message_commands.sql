-- The commands the bot read from a message's body when it read the page
-- (a post's bold segments, a PM's lines: parser.BodyReader), as a JSON
-- array of strings, so applying a message does not parse its stored body
-- again. NULL: not recorded (rows from before, text appended to a merged
-- post): the body is read when the message is applied. An edit replaces
-- them with the new body's (or NULL).
ALTER TABLE messages ADD COLUMN commands TEXT;
