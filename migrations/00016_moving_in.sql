-- Moving in (issue 16): conversations imported from other chat tools, the import jobs that bring
-- them in, and accounts signed in through an OpenID Connect provider.

-- +goose Up
-- Where an imported conversation came from: the export's format (chatgpt, openwebui, librechat,
-- parley) and the conversation's id in it. Importing the same conversation again finds it here and
-- adds nothing.
ALTER TABLE chat_exchange
    ADD COLUMN import_source text,
    ADD COLUMN import_key    text;
CREATE UNIQUE INDEX chat_exchange_import_key ON chat_exchange (user_id, import_source, import_key)
    WHERE import_key IS NOT NULL;

-- One upload being imported in the background, with its progress (bytes of the file read, and
-- conversations stored or skipped as already imported) and, when it failed, why.
CREATE TABLE chat_import (
    id            bigserial PRIMARY KEY,
    user_id       bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    file_name     text NOT NULL,
    format        text NOT NULL DEFAULT '',
    status        text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed')),
    phase         text NOT NULL DEFAULT 'checking' CHECK (phase IN ('checking', 'storing')),
    bytes_total   bigint NOT NULL DEFAULT 0,
    bytes_read    bigint NOT NULL DEFAULT 0,
    conversations integer NOT NULL DEFAULT 0,
    imported      integer NOT NULL DEFAULT 0,
    skipped       integer NOT NULL DEFAULT 0,
    messages      integer NOT NULL DEFAULT 0,
    error         text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now(),
    finished_at   timestamptz
);
CREATE INDEX chat_import_user_idx ON chat_import (user_id, created_at DESC, id DESC);
CREATE INDEX chat_import_running_idx ON chat_import (status) WHERE status = 'running';

-- An account's sign-ins through an OpenID Connect provider: the provider's issuer URL and the
-- person's subject there name the account for good (an email may change hands).
CREATE TABLE user_identities (
    issuer     text NOT NULL,
    subject    text NOT NULL,
    user_id    bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    email      text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (issuer, subject)
);
CREATE INDEX user_identities_user_idx ON user_identities (user_id);

-- +goose Down
DROP TABLE user_identities;
DROP TABLE chat_import;
DROP INDEX chat_exchange_import_key;
ALTER TABLE chat_exchange DROP COLUMN import_key, DROP COLUMN import_source;
