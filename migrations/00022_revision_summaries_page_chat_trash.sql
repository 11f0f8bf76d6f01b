-- What each revision changed against the revision before it, for the revisions panel's rows:
-- lines added and removed and the titles of the sections it touched (a JSON array of strings).
-- NULL until the panel first lists the revision, which computes and stores it (so older rows are
-- filled in as they are shown); a save that coalesces into a revision resets it.

--
-- The Trash lists deleted page chats beside general conversations: one owner's trashed
-- conversations of either kind, most recently deleted first.

-- +goose Up
ALTER TABLE page_revisions ADD COLUMN adds integer, ADD COLUMN dels integer, ADD COLUMN sections jsonb;
CREATE INDEX chat_exchange_user_any_trash_idx ON chat_exchange (user_id, deleted_at DESC, id DESC)
    WHERE deleted_at IS NOT NULL;

-- +goose Down
DROP INDEX chat_exchange_user_any_trash_idx;
ALTER TABLE page_revisions DROP COLUMN adds, DROP COLUMN dels, DROP COLUMN sections;
