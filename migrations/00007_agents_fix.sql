-- An agent's identifier is unique among agents that are not deleted: a deleted agent's identifier
-- may be taken again (its old conversations refer to it by id, not by identifier).

-- +goose Up
ALTER TABLE agents DROP CONSTRAINT agents_identifier_key;
CREATE UNIQUE INDEX agents_identifier_live_key ON agents (identifier) WHERE deleted_at IS NULL;

-- +goose Down
DROP INDEX agents_identifier_live_key;
ALTER TABLE agents ADD CONSTRAINT agents_identifier_key UNIQUE (identifier);
