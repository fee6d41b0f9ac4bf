-- Migration 1 (SQLite): the first schema, as forumgm 0.1.0 created it
-- from schema.sql. Its twin in ../postgres/ differs only in the id columns.
-- The store runs each file's statements in one transaction, split on ";"
-- after "--" comments are stripped (keep both out of literals), and records
-- the file's number in schema_version.
--
-- Portable conventions:
--   * times are BIGINT microseconds since the Unix epoch, UTC; NULL means "no
--     time" (a zero time.Time). Integers sort and compare the same on both
--     engines and carry no time-zone ambiguity;
--   * JSON documents are TEXT (valid JSON written by the program);
--   * flags are BOOLEAN (SQLite stores 0/1);
--   * string lists (aliases, command args) are JSON arrays in TEXT.

CREATE TABLE schema_version (
    version    INTEGER NOT NULL,
    applied_at BIGINT  NOT NULL
);

-- One row per game the bot runs. forum holds the forum settings as JSON and
-- only a reference to the bot's credentials (an env var name or a file
-- path), never a password.
CREATE TABLE games (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    name          TEXT    NOT NULL UNIQUE,
    kind          TEXT    NOT NULL,
    status        TEXT    NOT NULL,
    config        TEXT,
    forum         TEXT,
    state         TEXT,
    phase         TEXT    NOT NULL DEFAULT '',
    deadline      BIGINT,
    thread_cursor TEXT,
    pm_cursor     TEXT,
    paused_at     BIGINT,
    created_at    BIGINT  NOT NULL,
    updated_at    BIGINT  NOT NULL
);
CREATE INDEX games_status ON games (status, id);

-- The roster: slot id (the sign-up name) to forum identity, in sign-up order.
CREATE TABLE players (
    game_id       BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    slot          TEXT    NOT NULL,
    position      INTEGER NOT NULL,
    forum_name    TEXT    NOT NULL,
    forum_user_id TEXT    NOT NULL DEFAULT '',
    aliases       TEXT    NOT NULL DEFAULT '[]',
    PRIMARY KEY (game_id, slot)
);

-- Every post and PM as first seen, with its current body. sort_key is the
-- numeric value of forum_id (the digits at its end) so forum order does not
-- depend on string comparison ("10" after "9").
CREATE TABLE messages (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id        BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind           TEXT    NOT NULL,
    forum_id       TEXT    NOT NULL,
    sort_key       BIGINT  NOT NULL,
    author_name    TEXT    NOT NULL DEFAULT '',
    author_id      TEXT    NOT NULL DEFAULT '',
    posted_at      BIGINT,
    body_html      TEXT    NOT NULL,
    hash           TEXT    NOT NULL,
    first_seen     BIGINT  NOT NULL,
    status         TEXT    NOT NULL,
    deleted        BOOLEAN NOT NULL DEFAULT FALSE,
    deleted_seen   BIGINT,
    edits          INTEGER NOT NULL DEFAULT 0,
    last_edit_seen BIGINT,
    UNIQUE (game_id, kind, forum_id)
);
CREATE INDEX messages_status ON messages (game_id, status, posted_at, sort_key, id);
CREATE INDEX messages_sort ON messages (game_id, kind, sort_key);

-- Superseded bodies of edited messages: one row per earlier version, with
-- the time that version was first seen.
CREATE TABLE message_versions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    message_id BIGINT NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
    body_html  TEXT   NOT NULL,
    hash       TEXT   NOT NULL,
    seen       BIGINT NOT NULL
);
CREATE INDEX message_versions_message ON message_versions (message_id, id);

-- The audit log of every segment read: accepted, rejected, ignored, ...
-- message_id is NULL for commands the GM entered.
CREATE TABLE commands (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id    BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    message_id BIGINT  REFERENCES messages (id),
    seq        INTEGER NOT NULL DEFAULT 0,
    phase      TEXT    NOT NULL DEFAULT '',
    player     TEXT    NOT NULL DEFAULT '',
    channel    TEXT    NOT NULL DEFAULT '',
    text       TEXT    NOT NULL DEFAULT '',
    kind       TEXT    NOT NULL DEFAULT '',
    args       TEXT    NOT NULL DEFAULT '[]',
    status     TEXT    NOT NULL,
    reason     TEXT    NOT NULL DEFAULT '',
    cmd_time   BIGINT,
    created_at BIGINT  NOT NULL
);
CREATE INDEX commands_game ON commands (game_id, id);
CREATE INDEX commands_message ON commands (message_id);

-- The journal a game is rebuilt from: per-game increasing seq.
CREATE TABLE journal (
    game_id    BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    seq        BIGINT  NOT NULL,
    kind       TEXT    NOT NULL,
    payload    TEXT,
    command_id BIGINT  REFERENCES commands (id),
    at         BIGINT  NOT NULL,
    voided     BOOLEAN NOT NULL DEFAULT FALSE,
    PRIMARY KEY (game_id, seq)
);
CREATE INDEX journal_command ON journal (command_id);

-- Events the engines produced (public ones have recipient '').
CREATE TABLE events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id    BIGINT NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    phase      TEXT   NOT NULL DEFAULT '',
    recipient  TEXT   NOT NULL DEFAULT '',
    kind       TEXT   NOT NULL DEFAULT '',
    text       TEXT   NOT NULL,
    not_before BIGINT,
    at         BIGINT NOT NULL
);
CREATE INDEX events_game ON events (game_id, id);

-- Posts and PMs waiting to go out, and what became of them. marker is a
-- unique token put in every post so a retry can first look for it.
CREATE TABLE outbox (
    id             INTEGER PRIMARY KEY AUTOINCREMENT,
    game_id        BIGINT  NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    kind           TEXT    NOT NULL,
    recipient      TEXT    NOT NULL DEFAULT '',
    recipient_name TEXT    NOT NULL DEFAULT '',
    recipient_id   TEXT    NOT NULL DEFAULT '',
    subject        TEXT    NOT NULL DEFAULT '',
    body           TEXT    NOT NULL,
    marker         TEXT    NOT NULL UNIQUE,
    not_before     BIGINT,
    state          TEXT    NOT NULL,
    attempts       INTEGER NOT NULL DEFAULT 0,
    forum_id       TEXT    NOT NULL DEFAULT '',
    last_error     TEXT    NOT NULL DEFAULT '',
    created_at     BIGINT  NOT NULL,
    sent_at        BIGINT
);
CREATE INDEX outbox_game_state ON outbox (game_id, state, id);
