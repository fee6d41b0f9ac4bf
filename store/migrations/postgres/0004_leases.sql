-- Fenced leases: each game is worked by one `forumgm run` at a time. A
-- runner acts on a game (saves a step, claims an outbox item) only while
-- its lease is current, checked in the statement or transaction that does
-- the work; epoch goes up on every takeover, so a runner that lost a game
-- can never write or send for it again. Times are microseconds (UTC), taken
-- from the database's clock, so runners on hosts whose clocks disagree
-- still agree on when a lease ends.
CREATE TABLE leases (
    game_id    BIGINT NOT NULL PRIMARY KEY REFERENCES games (id) ON DELETE CASCADE,
    owner      TEXT   NOT NULL,
    epoch      BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    taken_at   BIGINT NOT NULL
);

-- Runners alive (a heartbeat each lease period), so each takes only its
-- fair share of the games.
CREATE TABLE runners (
    id         TEXT   NOT NULL PRIMARY KEY,
    started_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);

-- The lease epoch under which an item was last claimed for sending (0:
-- never, or claimed outside a lease).
ALTER TABLE outbox ADD COLUMN lease_epoch BIGINT NOT NULL DEFAULT 0;
