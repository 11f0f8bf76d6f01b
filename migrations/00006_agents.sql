-- Agents published to others (SPEC.md §4, §6): the models an agent lets people choose from, the
-- origins allowed to embed its widget, indexes for "the latest conversation with this agent" of a
-- user or a guest, and instance-wide settings (the floating chat widget).

-- +goose Up
ALTER TABLE agents
    ADD COLUMN models        text[] NOT NULL DEFAULT '{}',
    ADD COLUMN embed_origins text[] NOT NULL DEFAULT '{}';
CREATE INDEX agents_public_idx ON agents (id) WHERE visibility = 'public' AND disabled_at IS NULL AND deleted_at IS NULL;

CREATE INDEX chat_exchange_user_agent_idx ON chat_exchange (user_id, agent_id, updated_at DESC, id DESC)
    WHERE deleted_at IS NULL AND page_id IS NULL AND team_id IS NULL;
CREATE INDEX chat_exchange_user_team_idx ON chat_exchange (user_id, team_id, updated_at DESC, id DESC)
    WHERE deleted_at IS NULL AND team_id IS NOT NULL;
CREATE INDEX chat_exchange_guest_agent_idx ON chat_exchange (guest_session_id, agent_id, updated_at DESC, id DESC)
    WHERE deleted_at IS NULL AND guest_session_id IS NOT NULL;

CREATE TABLE app_settings (
    name       text PRIMARY KEY,
    value      jsonb NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now()
);

-- +goose Down
DROP TABLE app_settings;
DROP INDEX chat_exchange_guest_agent_idx;
DROP INDEX chat_exchange_user_team_idx;
DROP INDEX chat_exchange_user_agent_idx;
DROP INDEX agents_public_idx;
ALTER TABLE agents DROP COLUMN embed_origins, DROP COLUMN models;
