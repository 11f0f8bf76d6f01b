-- A chat follow-up takes its message from the sender's shared rate limit (00019's rate_limits) in
-- the statement that stores it (db/turn_follow_up.go), last, so the bucket's row stays locked only
-- while that statement commits, not while it stores the turn: the concurrent messages of one person
-- would otherwise queue behind each other for the whole statement. A refused take must then undo
-- what the statement stored, which only an error does: rate_limit_refuse raises SQLSTATE PR429 with
-- the bucket's lead over now (ms) as its DETAIL when allowed is false, and otherwise returns false.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION rate_limit_refuse(allowed boolean, ahead_ms bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
    IF NOT allowed THEN
        RAISE EXCEPTION 'rate limited' USING ERRCODE = 'PR429', DETAIL = ahead_ms::text;
    END IF;
    RETURN false;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION rate_limit_refuse(boolean, bigint);
