-- Conversation history (issue 4): the branch on screen, the trash list, title search and
-- read-only share links.

-- +goose Up
-- The answer that ends the branch on screen. NULL while a conversation never branched: then every
-- message is on it, in position order. Regenerate and edit-and-resend set it; new turns move it.
ALTER TABLE chat_exchange ADD COLUMN leaf_message_id bigint REFERENCES chat_message (id) ON DELETE SET NULL;

-- The trash: one owner's deleted general conversations, most recently deleted first.
CREATE INDEX chat_exchange_user_trash_idx ON chat_exchange (user_id, deleted_at DESC, id DESC)
    WHERE deleted_at IS NOT NULL AND page_id IS NULL;

-- Search over conversation titles (messages have chat_message_search_idx).
CREATE INDEX chat_exchange_title_search_idx ON chat_exchange USING gin (to_tsvector('english', title))
    WHERE deleted_at IS NULL;

-- Branch switching finds a message's siblings: the same parent and role.
CREATE INDEX chat_message_root_idx ON chat_message (exchange_id) WHERE parent_id IS NULL;

-- The sidebar's turn counts: an index-only count of an exchange's user messages, however long it is.
CREATE INDEX chat_message_user_turns_idx ON chat_message (exchange_id) WHERE role = 'user';

-- A read-only snapshot of a conversation, frozen when shared: anyone holding the token sees
-- snapshot (the messages of the branch on screen then), nothing else; revoked links answer 404.
CREATE TABLE chat_share (
    id          bigserial PRIMARY KEY,
    token       text NOT NULL UNIQUE,
    exchange_id bigint NOT NULL REFERENCES chat_exchange (id) ON DELETE CASCADE,
    user_id     bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    title       text NOT NULL,
    snapshot    jsonb NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);
CREATE INDEX chat_share_exchange_idx ON chat_share (exchange_id, created_at DESC);

-- +goose Down
DROP TABLE chat_share;
DROP INDEX chat_message_user_turns_idx;
DROP INDEX chat_message_root_idx;
DROP INDEX chat_exchange_title_search_idx;
DROP INDEX chat_exchange_user_trash_idx;
ALTER TABLE chat_exchange DROP COLUMN leaf_message_id;
