-- An agent's identifier is unique among agents that are not deleted: a deleted agent's identifier
-- may be taken again (its old conversations refer to it by id, not by identifier).
-- Uploaded avatar images (data:image URLs) are served at /avatars/{sha256 of the data URL}: an
-- index finds them by that hash (decode(…, 'escape') is the data URL's bytes: it holds no "\").

-- +goose Up
ALTER TABLE agents DROP CONSTRAINT agents_identifier_key;
CREATE UNIQUE INDEX agents_identifier_live_key ON agents (identifier) WHERE deleted_at IS NULL;
CREATE INDEX agents_avatar_sha256_idx ON agents (encode(sha256(decode(avatar, 'escape')), 'hex'))
    WHERE avatar LIKE 'data:image/%';

-- +goose Down
DROP INDEX agents_avatar_sha256_idx;
DROP INDEX agents_identifier_live_key;
ALTER TABLE agents ADD CONSTRAINT agents_identifier_key UNIQUE (identifier);
