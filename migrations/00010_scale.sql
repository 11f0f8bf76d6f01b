-- Data at scale (issue 11): search whose cost follows the person's data, not the instance's, and
-- branch reads in O(what is shown).
--
-- chat_message.user_id is the exchange's owner (NULL for a guest's), copied onto every message so
-- one GIN index holds (owner, words): a search reads only its owner's matches. Triggers keep it
-- true: it is set on insert from the exchange, and follows the exchange when a guest's
-- conversations move into an account.
--
-- chat_message.on_branch marks the messages on the branch on screen (branches.go): the leaf
-- answer, its ancestors and their reasoning and tool items. Every message of a never-branched
-- conversation is on it. In a branched one, a new message joins the branch when its parent is on it
-- (or it is the first) and no other version of it is; its items follow their answer. The first
-- branching walks the new leaf's line once; later moves of chat_exchange.leaf_message_id walk up
-- from the new leaf only as far as the first message already on the branch (the fork) and swap the
-- two tails. So reads filter on a column instead of walking the tree, and a new turn costs a lookup
-- or two. chat_exchange.turns keeps the branch's number of questions for the sidebar.

-- +goose Up
CREATE EXTENSION IF NOT EXISTS btree_gin;

ALTER TABLE chat_message
    ADD COLUMN user_id bigint,
    ADD COLUMN on_branch boolean NOT NULL DEFAULT true;
ALTER TABLE chat_exchange ADD COLUMN turns integer NOT NULL DEFAULT 0;

UPDATE chat_message m SET user_id = e.user_id FROM chat_exchange e WHERE e.id = m.exchange_id AND e.user_id IS NOT NULL;

WITH RECURSIVE path AS (
    SELECT m.id, m.parent_id FROM chat_message m JOIN chat_exchange e ON m.id = e.leaf_message_id
    UNION ALL
    SELECT m.id, m.parent_id FROM chat_message m JOIN path p ON m.id = p.parent_id)
UPDATE chat_message m SET on_branch = false
FROM chat_exchange e
WHERE e.id = m.exchange_id AND e.leaf_message_id IS NOT NULL
  AND m.id NOT IN (SELECT id FROM path)
  AND NOT (m.role IN ('reasoning', 'function_call', 'function_call_output') AND m.parent_id IN (SELECT id FROM path));

UPDATE chat_exchange e SET turns = c.n
FROM (SELECT exchange_id, count(*) AS n FROM chat_message WHERE role = 'user' AND on_branch GROUP BY exchange_id) c
WHERE c.exchange_id = e.id;

-- +goose StatementBegin
CREATE FUNCTION chat_message_before_insert() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    branched boolean;
BEGIN
    SELECT e.user_id, e.leaf_message_id IS NOT NULL INTO NEW.user_id, branched FROM chat_exchange e WHERE e.id = NEW.exchange_id;
    IF NOT coalesce(branched, false) THEN
        NEW.on_branch := true;
    ELSIF NEW.role IN ('reasoning', 'function_call', 'function_call_output') THEN
        NEW.on_branch := coalesce((SELECT p.on_branch FROM chat_message p WHERE p.id = NEW.parent_id), true);
    ELSIF NEW.parent_id IS NULL THEN
        NEW.on_branch := NOT EXISTS (SELECT 1 FROM chat_message s
            WHERE s.exchange_id = NEW.exchange_id AND s.parent_id IS NULL AND s.role = NEW.role AND s.on_branch);
    ELSE
        NEW.on_branch := coalesce((SELECT p.on_branch FROM chat_message p WHERE p.id = NEW.parent_id), false)
            AND NOT EXISTS (SELECT 1 FROM chat_message s
                WHERE s.parent_id = NEW.parent_id AND s.role = NEW.role AND s.on_branch);
    END IF;
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER chat_message_before_insert BEFORE INSERT ON chat_message
    FOR EACH ROW EXECUTE FUNCTION chat_message_before_insert();

-- chat_exchange.turns counts the user messages on the branch on screen (the sidebar shows it):
-- added and removed once per statement, so a COPY of many messages costs one update per exchange;
-- a move of the branch adds and takes away the questions it swaps.
-- +goose StatementBegin
CREATE FUNCTION chat_message_turns_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE chat_exchange e SET turns = e.turns + c.n
    FROM (SELECT exchange_id, count(*) AS n FROM added WHERE role = 'user' AND on_branch GROUP BY exchange_id) c
    WHERE e.id = c.exchange_id;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER chat_message_turns_added AFTER INSERT ON chat_message
    REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION chat_message_turns_added();
-- +goose StatementBegin
CREATE FUNCTION chat_message_turns_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE chat_exchange e SET turns = greatest(e.turns - c.n, 0)
    FROM (SELECT exchange_id, count(*) AS n FROM removed WHERE role = 'user' AND on_branch GROUP BY exchange_id) c
    WHERE e.id = c.exchange_id;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER chat_message_turns_removed AFTER DELETE ON chat_message
    REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION chat_message_turns_removed();

-- +goose StatementBegin
CREATE FUNCTION chat_exchange_owner_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE chat_message SET user_id = NEW.user_id WHERE exchange_id = NEW.id;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER chat_exchange_owner_moved AFTER UPDATE OF user_id ON chat_exchange
    FOR EACH ROW WHEN (OLD.user_id IS DISTINCT FROM NEW.user_id) EXECUTE FUNCTION chat_exchange_owner_moved();

-- +goose StatementBegin
CREATE FUNCTION chat_exchange_leaf_moved() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    walked bigint[];
    fork_position integer;
    gone integer := 0;
    came integer := 0;
BEGIN
    IF NEW.leaf_message_id IS NULL THEN
        WITH back AS (UPDATE chat_message SET on_branch = true WHERE exchange_id = NEW.id AND NOT on_branch RETURNING role)
        SELECT count(*) FILTER (WHERE role = 'user') INTO came FROM back;
    ELSIF OLD.leaf_message_id IS NULL THEN
        -- The first branching: every message was on the one branch; those off the new leaf's line leave it.
        WITH RECURSIVE path AS (
            SELECT m.id, m.parent_id FROM chat_message m WHERE m.id = NEW.leaf_message_id AND m.exchange_id = NEW.id
            UNION ALL
            SELECT m.id, m.parent_id FROM chat_message m JOIN path p ON m.id = p.parent_id),
        off AS (
            UPDATE chat_message m SET on_branch = false
            WHERE m.exchange_id = NEW.id AND m.on_branch AND m.id NOT IN (SELECT id FROM path)
              AND NOT (m.role IN ('reasoning', 'function_call', 'function_call_output') AND m.parent_id IN (SELECT id FROM path))
            RETURNING m.role)
        SELECT count(*) FILTER (WHERE role = 'user') INTO gone FROM off;
    ELSE
        -- Up from the new leaf through messages off the branch, to the first one on it (the fork).
        WITH RECURSIVE up AS (
            SELECT m.id, m.parent_id, m.position, m.on_branch FROM chat_message m
            WHERE m.id = NEW.leaf_message_id AND m.exchange_id = NEW.id
            UNION ALL
            SELECT m.id, m.parent_id, m.position, m.on_branch FROM chat_message m JOIN up ON m.id = up.parent_id
            WHERE NOT up.on_branch)
        SELECT array_agg(id) FILTER (WHERE NOT on_branch), max(position) FILTER (WHERE on_branch)
        INTO walked, fork_position FROM up;
        -- The old tail after the fork leaves the branch (children come after their parent); the
        -- walked line and its items join it.
        WITH off AS (
            UPDATE chat_message SET on_branch = false
            WHERE exchange_id = NEW.id AND on_branch AND position > coalesce(fork_position, 0)
            RETURNING role)
        SELECT count(*) FILTER (WHERE role = 'user') INTO gone FROM off;
        IF walked IS NOT NULL THEN
            WITH back AS (
                UPDATE chat_message SET on_branch = true
                WHERE exchange_id = NEW.id AND (id = ANY(walked)
                    OR (role IN ('reasoning', 'function_call', 'function_call_output') AND parent_id = ANY(walked)))
                RETURNING role)
            SELECT count(*) FILTER (WHERE role = 'user') INTO came FROM back;
        END IF;
    END IF;
    IF gone <> came THEN
        UPDATE chat_exchange SET turns = turns - gone + came WHERE id = NEW.id;
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER chat_exchange_leaf_moved AFTER UPDATE OF leaf_message_id ON chat_exchange
    FOR EACH ROW WHEN (OLD.leaf_message_id IS DISTINCT FROM NEW.leaf_message_id) EXECUTE FUNCTION chat_exchange_leaf_moved();

-- Search: one owner's matches, straight from the index.
CREATE INDEX chat_message_owner_search_idx ON chat_message USING gin (user_id, search) WHERE user_id IS NOT NULL;
DROP INDEX chat_message_search_idx;
CREATE INDEX chat_exchange_owner_title_search_idx ON chat_exchange USING gin (user_id, to_tsvector('english', title))
    WHERE deleted_at IS NULL AND user_id IS NOT NULL;
DROP INDEX chat_exchange_title_search_idx;

-- The branch on screen, in display order (turn counts are chat_exchange.turns now).
CREATE INDEX chat_message_branch_idx ON chat_message (exchange_id, position, id) WHERE on_branch;
DROP INDEX chat_message_user_turns_idx;

-- +goose Down
CREATE INDEX chat_message_user_turns_idx ON chat_message (exchange_id) WHERE role = 'user';
DROP INDEX chat_message_branch_idx;
CREATE INDEX chat_exchange_title_search_idx ON chat_exchange USING gin (to_tsvector('english', title)) WHERE deleted_at IS NULL;
DROP INDEX chat_exchange_owner_title_search_idx;
CREATE INDEX chat_message_search_idx ON chat_message USING gin (search);
DROP INDEX chat_message_owner_search_idx;
DROP TRIGGER chat_exchange_leaf_moved ON chat_exchange;
DROP FUNCTION chat_exchange_leaf_moved();
DROP TRIGGER chat_message_turns_removed ON chat_message;
DROP FUNCTION chat_message_turns_removed();
DROP TRIGGER chat_message_turns_added ON chat_message;
DROP FUNCTION chat_message_turns_added();
DROP TRIGGER chat_exchange_owner_moved ON chat_exchange;
DROP FUNCTION chat_exchange_owner_moved();
DROP TRIGGER chat_message_before_insert ON chat_message;
DROP FUNCTION chat_message_before_insert();
ALTER TABLE chat_exchange DROP COLUMN turns;
ALTER TABLE chat_message DROP COLUMN on_branch, DROP COLUMN user_id;
