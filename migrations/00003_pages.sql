-- Pages area: the trash list and the proposals of a conversation need their own indexes.

-- +goose Up
CREATE INDEX pages_owner_trash_idx ON pages (owner_id, deleted_at DESC, id DESC) WHERE deleted_at IS NOT NULL;
CREATE INDEX page_revisions_page_version_idx ON page_revisions (page_id, version DESC);

-- +goose Down
DROP INDEX page_revisions_page_version_idx;
DROP INDEX pages_owner_trash_idx;
