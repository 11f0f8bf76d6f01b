-- Schema v1: accounts, sessions, agents and teams, pages with revisions, chat exchanges with one
-- row per message, and page edit proposals (SPEC.md §3). Timestamps are timestamptz in UTC.

-- +goose Up
CREATE TABLE users (
    id            bigserial PRIMARY KEY,
    email         text NOT NULL,
    display_name  text NOT NULL DEFAULT '',
    password_hash text NOT NULL,
    is_admin      boolean NOT NULL DEFAULT false,
    preferences   jsonb NOT NULL DEFAULT '{}'::jsonb,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

-- Random session tokens live only in the client's cookie; the server keeps their SHA-256.
CREATE TABLE user_sessions (
    id           bigserial PRIMARY KEY,
    token_hash   bytea NOT NULL UNIQUE,
    user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    user_agent   text NOT NULL DEFAULT '',
    ip           text NOT NULL DEFAULT '',
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);
CREATE INDEX user_sessions_user_id_idx ON user_sessions (user_id);
CREATE INDEX user_sessions_expires_at_idx ON user_sessions (expires_at);

CREATE TABLE guest_sessions (
    id             bigserial PRIMARY KEY,
    token_hash     bytea NOT NULL UNIQUE,
    data           jsonb NOT NULL DEFAULT '{}'::jsonb,
    adopted_by     bigint REFERENCES users (id) ON DELETE SET NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    last_seen_at   timestamptz NOT NULL DEFAULT now(),
    expires_at     timestamptz NOT NULL
);
CREATE INDEX guest_sessions_expires_at_idx ON guest_sessions (expires_at);

CREATE TABLE api_keys (
    id           bigserial PRIMARY KEY,
    user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text NOT NULL,
    prefix       text NOT NULL,
    key_hash     bytea NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);
CREATE INDEX api_keys_user_id_idx ON api_keys (user_id);

-- Secrets the server generates for itself when configuration gives none (e.g. the cookie keys),
-- so restarts and several instances agree on them.
CREATE TABLE server_secrets (
    name       text PRIMARY KEY,
    value      bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE agents (
    id               bigserial PRIMARY KEY,
    identifier       text NOT NULL UNIQUE CHECK (identifier ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
    owner_id         bigint REFERENCES users (id) ON DELETE CASCADE,
    name             text NOT NULL,
    description      text NOT NULL DEFAULT '',
    avatar           text NOT NULL DEFAULT '',
    agent_type       text NOT NULL,
    provider         text NOT NULL DEFAULT '',
    model            text NOT NULL DEFAULT '',
    system_prompt    text NOT NULL DEFAULT '',
    welcome_message  text NOT NULL DEFAULT '',
    visibility       text NOT NULL DEFAULT 'private' CHECK (visibility IN ('public', 'private')),
    password_hash    text,
    capabilities     jsonb NOT NULL DEFAULT '{}'::jsonb,
    theme            jsonb NOT NULL DEFAULT '{}'::jsonb,
    is_builtin       boolean NOT NULL DEFAULT false,
    disabled_at      timestamptz,
    deleted_at       timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX agents_owner_id_idx ON agents (owner_id);

CREATE TABLE teams (
    id              bigserial PRIMARY KEY,
    owner_id        bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name            text NOT NULL,
    description     text NOT NULL DEFAULT '',
    router_agent_id bigint REFERENCES agents (id) ON DELETE SET NULL,
    visibility      text NOT NULL DEFAULT 'private' CHECK (visibility IN ('public', 'private')),
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX teams_owner_id_idx ON teams (owner_id);

CREATE TABLE team_members (
    team_id  bigint NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    agent_id bigint NOT NULL REFERENCES agents (id) ON DELETE CASCADE,
    position integer NOT NULL,
    PRIMARY KEY (team_id, agent_id),
    UNIQUE (team_id, position)
);
CREATE INDEX team_members_agent_id_idx ON team_members (agent_id);

CREATE TABLE pages (
    id                  bigserial PRIMARY KEY,
    owner_id            bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title               text NOT NULL DEFAULT '',
    content             text NOT NULL DEFAULT '',
    version             integer NOT NULL DEFAULT 1,
    current_revision_id bigint,
    search              tsvector GENERATED ALWAYS AS (
                            setweight(to_tsvector('english', title), 'A') ||
                            setweight(to_tsvector('english', content), 'B')) STORED,
    created_at          timestamptz NOT NULL DEFAULT now(),
    updated_at          timestamptz NOT NULL DEFAULT now(),
    deleted_at          timestamptz
);
CREATE INDEX pages_owner_updated_idx ON pages (owner_id, updated_at DESC, id DESC) WHERE deleted_at IS NULL;
CREATE INDEX pages_search_idx ON pages USING gin (search);

CREATE TABLE page_revisions (
    id          bigserial PRIMARY KEY,
    page_id     bigint NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
    version     integer NOT NULL,
    content     text NOT NULL,
    edit_source text NOT NULL CHECK (edit_source IN ('user', 'agent', 'restore')),
    author_id   bigint REFERENCES users (id) ON DELETE SET NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    UNIQUE (page_id, version)
);
ALTER TABLE pages ADD CONSTRAINT pages_current_revision_fk
    FOREIGN KEY (current_revision_id) REFERENCES page_revisions (id) ON DELETE SET NULL;

-- An exchange belongs to a user or to a guest session, never both.
CREATE TABLE chat_exchange (
    id               bigserial PRIMARY KEY,
    user_id          bigint REFERENCES users (id) ON DELETE CASCADE,
    guest_session_id bigint REFERENCES guest_sessions (id) ON DELETE CASCADE,
    agent_id         bigint REFERENCES agents (id) ON DELETE SET NULL,
    team_id          bigint REFERENCES teams (id) ON DELETE SET NULL,
    page_id          bigint REFERENCES pages (id) ON DELETE CASCADE,
    title            text NOT NULL DEFAULT '',
    model            text NOT NULL DEFAULT '',
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    deleted_at       timestamptz,
    CHECK ((user_id IS NULL) <> (guest_session_id IS NULL))
);
-- History sidebar: one owner's general (page_id IS NULL) or page conversations, newest activity first.
CREATE INDEX chat_exchange_user_history_idx ON chat_exchange (user_id, updated_at DESC, id DESC)
    WHERE deleted_at IS NULL AND page_id IS NULL;
CREATE INDEX chat_exchange_page_history_idx ON chat_exchange (page_id, user_id, updated_at DESC, id DESC)
    WHERE deleted_at IS NULL AND page_id IS NOT NULL;
CREATE INDEX chat_exchange_guest_idx ON chat_exchange (guest_session_id) WHERE guest_session_id IS NOT NULL;

CREATE TABLE chat_message (
    id                bigserial PRIMARY KEY,
    exchange_id       bigint NOT NULL REFERENCES chat_exchange (id) ON DELETE CASCADE,
    parent_id         bigint REFERENCES chat_message (id) ON DELETE CASCADE,
    position          integer NOT NULL,
    role              text NOT NULL CHECK (role IN ('user', 'assistant', 'function_call', 'function_call_output', 'reasoning')),
    content           text NOT NULL DEFAULT '',
    status            text NOT NULL DEFAULT 'complete'
                          CHECK (status IN ('pending', 'streaming', 'complete', 'failed', 'cancelled', 'interrupted')),
    agent_id          bigint REFERENCES agents (id) ON DELETE SET NULL,
    agent_type        text NOT NULL DEFAULT '',
    tool_name         text NOT NULL DEFAULT '',
    tool_call_id      text NOT NULL DEFAULT '',
    tool_arguments    text NOT NULL DEFAULT '',
    tool_result       text NOT NULL DEFAULT '',
    duration_ms       integer,
    metadata          jsonb NOT NULL DEFAULT '{}'::jsonb,
    feedback          text CHECK (feedback IN ('up', 'down')),
    feedback_reason   text NOT NULL DEFAULT '',
    idempotency_key   text,
    -- Set when a message is final (IndexMessage), not on every streamed write: indexing a long
    -- answer on each progress write would slow the stream down.
    search            tsvector,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chat_message_exchange_position_idx ON chat_message (exchange_id, position, id);
CREATE INDEX chat_message_parent_idx ON chat_message (parent_id) WHERE parent_id IS NOT NULL;
CREATE UNIQUE INDEX chat_message_idempotency_key ON chat_message (exchange_id, idempotency_key)
    WHERE idempotency_key IS NOT NULL;
CREATE INDEX chat_message_unfinished_idx ON chat_message (status) WHERE status IN ('pending', 'streaming');
CREATE INDEX chat_message_search_idx ON chat_message USING gin (search);

CREATE TABLE page_edit_proposal (
    id                    bigserial PRIMARY KEY,
    page_id               bigint NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
    message_id            bigint NOT NULL REFERENCES chat_message (id) ON DELETE CASCADE,
    kind                  text NOT NULL CHECK (kind IN ('full_replacement', 'section_patch')),
    status                text NOT NULL DEFAULT 'pending'
                              CHECK (status IN ('pending', 'accepted', 'rejected', 'superseded')),
    base_revision_id      bigint REFERENCES page_revisions (id) ON DELETE SET NULL,
    original_content_hash text NOT NULL,
    proposal              jsonb NOT NULL,
    applied_revision_id   bigint REFERENCES page_revisions (id) ON DELETE SET NULL,
    decided_by            bigint REFERENCES users (id) ON DELETE SET NULL,
    decided_at            timestamptz,
    created_at            timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX page_edit_proposal_page_idx ON page_edit_proposal (page_id, created_at DESC);
CREATE UNIQUE INDEX page_edit_proposal_message_key ON page_edit_proposal (message_id);

-- +goose Down
DROP TABLE page_edit_proposal;
DROP TABLE chat_message;
DROP TABLE chat_exchange;
ALTER TABLE pages DROP CONSTRAINT pages_current_revision_fk;
DROP TABLE page_revisions;
DROP TABLE pages;
DROP TABLE team_members;
DROP TABLE teams;
DROP TABLE agents;
DROP TABLE server_secrets;
DROP TABLE api_keys;
DROP TABLE guest_sessions;
DROP TABLE user_sessions;
DROP TABLE users;
