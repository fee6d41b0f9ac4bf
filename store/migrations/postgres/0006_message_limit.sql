-- The longest message the game's board takes, learned from its own "too
-- long" refusal (bytes of BBCode; NULL: nothing learned, the profile's).
ALTER TABLE games ADD COLUMN message_limit INTEGER;
-- An outbox item that is a part of a longer one the board refused: the
-- first item's id, so the parts go out in that item's place.
ALTER TABLE outbox ADD COLUMN part_of BIGINT;
