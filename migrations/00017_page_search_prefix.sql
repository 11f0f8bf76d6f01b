-- A page's search vector indexes its title and the first 300,000 characters of its content:
-- PostgreSQL refuses a tsvector over 1 MB, which a page near the 1 MB content limit made of many
-- distinct words exceeds, so creating or saving such a page failed. 300,000 characters of distinct
-- words stay well under the limit (about 2.5 bytes of tsvector per character at worst).

-- +goose Up
ALTER TABLE pages DROP COLUMN search;
ALTER TABLE pages ADD COLUMN search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', left(title, 1000)), 'A') ||
    setweight(to_tsvector('english', left(content, 300000)), 'B')) STORED;
CREATE INDEX pages_search_idx ON pages USING gin (search);

-- +goose Down
ALTER TABLE pages DROP COLUMN search;
ALTER TABLE pages ADD COLUMN search tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', title), 'A') ||
    setweight(to_tsvector('english', content), 'B')) STORED;
CREATE INDEX pages_search_idx ON pages USING gin (search);
