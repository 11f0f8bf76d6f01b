-- Rate limits shared by every instance on this database (handlers/limits.go, db/rate_limits.go):
-- one row per limited key (a person's chat sends, a client IP's or an account's sign-in attempts,
-- a guest IP's sends), holding the key's GCRA state: tat, its "theoretical arrival time". A
-- request is allowed when tat (at least now) plus one emission interval stays within now plus the
-- burst's tolerance; then tat moves on by one interval. Keys are hashes, never an email or an IP.
-- UNLOGGED: the counters are worth nothing after a crash (every bucket is then full again, as on
-- a restart of a single instance) and need no WAL; rows whose tat passed carry no state and are
-- deleted now and then.

-- +goose Up
CREATE UNLOGGED TABLE rate_limits (
    key text PRIMARY KEY,
    tat timestamptz NOT NULL,
    -- tolerance is the burst: how far ahead of now tat may run (burst × emission interval).
    tolerance interval NOT NULL,
    -- allowed says whether the key's last request was let through.
    allowed boolean NOT NULL
);

-- +goose Down
DROP TABLE rate_limits;
