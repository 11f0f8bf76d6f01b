-- Search for words common in a person's messages (issue 11): one owner's messages, newest first.
-- When the words are in more than 2,000 of a person's messages, SearchConversations reads their
-- newest 5,000 messages through this index and, when those hold a page of matching conversations,
-- ranks just those, instead of fetching and ranking every match (about 10,000 for a 1% word in a
-- million messages). id breaks ties between messages of the same time.

-- +goose Up
CREATE INDEX chat_message_owner_recent_idx ON chat_message (user_id, created_at, id) WHERE user_id IS NOT NULL;

-- +goose Down
DROP INDEX chat_message_owner_recent_idx;
