-- Migration 1: sessions, their configuration snapshots, state, lists and
-- events. Run in one transaction, in the store's schema (the connection's
-- search_path), by src/migrate.rs.

-- One row per session. `key` is this creation's number: rows of a session
-- point at it, so a session deleted and created again under the same id
-- shares nothing with the old one. Times are kept to the microsecond in
-- timestamptz and to the nanosecond with `*_ns` (0-999), as SessionMeta
-- holds them; `next_seq` is the sequence number the next event gets.
CREATE TABLE sessions (
    key                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    session_id          text COLLATE "C" NOT NULL UNIQUE
                        CHECK (session_id ~ '^[A-Za-z0-9_-]{1,128}$'),
    agent_config        text NOT NULL,
    create_time         timestamptz NOT NULL,
    create_time_ns      smallint NOT NULL DEFAULT 0 CHECK (create_time_ns BETWEEN 0 AND 999),
    last_active_time    timestamptz NOT NULL,
    last_active_time_ns smallint NOT NULL DEFAULT 0
                        CHECK (last_active_time_ns BETWEEN 0 AND 999),
    next_seq            bigint NOT NULL DEFAULT 0 CHECK (next_seq >= 0),
    -- Meta fields besides these, as the caller wrote them.
    extra               json NOT NULL DEFAULT '{}'
);

-- List order (newest activity first, then id) and its keyset pages, with
-- and without a filter by agent configuration.
CREATE INDEX sessions_by_activity
    ON sessions (last_active_time DESC, last_active_time_ns DESC, session_id DESC);
CREATE INDEX sessions_by_agent_activity
    ON sessions (agent_config, last_active_time DESC, last_active_time_ns DESC, session_id DESC);

CREATE TABLE config_snapshots (
    session_key bigint PRIMARY KEY REFERENCES sessions (key) ON DELETE CASCADE,
    config      json NOT NULL
);

-- Versioned values by name (a StateKey): a version only grows. `json`, not `jsonb`: the
-- text is kept as written, a NUL character included.
CREATE TABLE states (
    session_key bigint NOT NULL REFERENCES sessions (key) ON DELETE CASCADE,
    name        text COLLATE "C" NOT NULL,
    version     bigint NOT NULL CHECK (version > 0),
    value       json NOT NULL,
    PRIMARY KEY (session_key, name)
);

-- Append-only lists: `len` hands out positions, as next_seq does events.
CREATE TABLE lists (
    session_key bigint NOT NULL REFERENCES sessions (key) ON DELETE CASCADE,
    name        text COLLATE "C" NOT NULL,
    len         bigint NOT NULL CHECK (len >= 0),
    PRIMARY KEY (session_key, name)
);

CREATE TABLE list_items (
    session_key bigint NOT NULL,
    name        text COLLATE "C" NOT NULL,
    pos         bigint NOT NULL,
    value       json NOT NULL,
    PRIMARY KEY (session_key, name, pos),
    FOREIGN KEY (session_key, name) REFERENCES lists ON DELETE CASCADE
);

-- Events: `line` is the line as written (without its newline), so an
-- export is byte-identical; `body` the same as jsonb for queries (null
-- for a line jsonb cannot hold: a NUL character). (`writer`, `writer_seq`)
-- names each event by the sink that appended it and its count there: a
-- batch retried after a lost connection finds its rows and is not
-- written twice.
CREATE TABLE events (
    session_key bigint NOT NULL REFERENCES sessions (key) ON DELETE CASCADE,
    seq         bigint NOT NULL CHECK (seq >= 0),
    event_type  text NOT NULL,
    "timestamp" timestamptz NOT NULL,
    body        jsonb,
    line        bytea NOT NULL,
    writer      uuid NOT NULL,
    writer_seq  bigint NOT NULL,
    PRIMARY KEY (session_key, seq),
    UNIQUE (writer, writer_seq)
);
