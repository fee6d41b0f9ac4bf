-- The games_version count at a game's last counted change (its creation,
-- status, settings, players' names or roster): a reader keeping the running
-- games' rosters decoded as of one count lists only the games changed since,
-- not every game's revision.
ALTER TABLE games ADD COLUMN changed_at_version BIGINT NOT NULL DEFAULT 0;
CREATE INDEX games_changed ON games (changed_at_version);
