-- Per-message feedback gets the time it was given (the admin export lists it, newest first), and
-- API keys are looked up by hash only while live.

-- +goose Up
ALTER TABLE chat_message ADD COLUMN feedback_at timestamptz;
-- The admin feedback export: every rated message, newest rating first (keyset on feedback_at, id).
CREATE INDEX chat_message_feedback_idx ON chat_message (feedback_at DESC, id DESC) WHERE feedback IS NOT NULL;
-- Account settings list a person's keys, newest first.
DROP INDEX api_keys_user_id_idx;
CREATE INDEX api_keys_user_created_idx ON api_keys (user_id, created_at DESC, id DESC);

-- +goose Down
DROP INDEX api_keys_user_created_idx;
CREATE INDEX api_keys_user_id_idx ON api_keys (user_id);
DROP INDEX chat_message_feedback_idx;
ALTER TABLE chat_message DROP COLUMN feedback_at;
