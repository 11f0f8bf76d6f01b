-- Search for words common in a person's messages (issue 11): one owner's messages, newest first.
-- When the words are in more than a few thousand of a person's messages, SearchConversations walks
-- back from their newest message through this index and stops after a page of conversations,
-- instead of fetching and ranking every match (about 10,000 for a 1% word in a million messages).
-- created_at is the message's time, id breaks ties, so the walk can resume after any message.

-- +goose Up
CREATE INDEX chat_message_owner_recent_idx ON chat_message (user_id, created_at, id) WHERE user_id IS NOT NULL;

-- +goose Down
DROP INDEX chat_message_owner_recent_idx;
