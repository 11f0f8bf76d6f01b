-- What each revision changed against the revision before it, for the revisions panel's rows:
-- lines added and removed and the titles of the sections it touched (a JSON array of strings).
-- NULL until the panel first lists the revision, which computes and stores it (so older rows are
-- filled in as they are shown); a save that coalesces into a revision resets it.

-- +goose Up
ALTER TABLE page_revisions ADD COLUMN adds integer, ADD COLUMN dels integer, ADD COLUMN sections jsonb;

-- +goose Down
ALTER TABLE page_revisions DROP COLUMN adds, DROP COLUMN dels, DROP COLUMN sections;
