-- Migration 15: what an outbox item is to the players waiting for it, for
-- the order a bot account's sends go out in across its games: 0 a phase's
-- results and new deadlines, 1 an answer to a player's own command
-- (a receipt, a rejection, a count asked for), 2 reminders, prods and
-- sign-up lists. Items queued before it count as answers.
ALTER TABLE outbox ADD COLUMN class SMALLINT NOT NULL DEFAULT 1;
