-- Migration 16: the GM's flavor for a phase's resolution (docs/gm-words.md),
-- written ahead of its deadline and replaceable until the phase resolves:
--   phase      the phase id it opens the update of;
--   recipient  "" for the thread's update, else a player's slot: the
--              opening of that player's private results (a PM);
--   text       the GM's BBCode;
--   at         when it was last written.
CREATE TABLE flavors (
    game_id   BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    phase     TEXT   NOT NULL,
    recipient TEXT   NOT NULL DEFAULT '',
    text      TEXT   NOT NULL,
    at        BIGINT NOT NULL,
    PRIMARY KEY (game_id, phase, recipient)
);
