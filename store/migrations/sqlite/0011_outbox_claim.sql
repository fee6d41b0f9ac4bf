-- Migration 9: how long the board may still be taking an item's latest
-- submission (microseconds, UTC, the database's clock): the claim's time
-- plus its fence's send budget (0: claimed outside a lease, or never).
-- A cancelled request is not one the board never got: until then the
-- item's marker missing from the board proves nothing, and whoever holds
-- the game (another runner after a handover included) waits before any
-- resend.
ALTER TABLE outbox ADD COLUMN claimed_until BIGINT NOT NULL DEFAULT 0;
