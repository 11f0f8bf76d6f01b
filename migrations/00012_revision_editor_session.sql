-- Revisions remember the editor session (one open editor tab) whose autosaves wrote them, so an
-- autosave folds only into the revision its own session wrote: another tab's saved text always
-- stays in the history.

-- +goose Up
ALTER TABLE page_revisions ADD COLUMN editor_session text;

-- +goose Down
ALTER TABLE page_revisions DROP COLUMN editor_session;
