package db

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lib/pq"
)

// exchangeAs selects the exchange columns of ex (a CTE returning exchangeColumns) under the names
// of Turn's nested Exchange ("exchange.id", …).
const exchangeAs = `ex.id AS "exchange.id", ex.user_id AS "exchange.user_id", ex.guest_session_id AS "exchange.guest_session_id",
	ex.agent_id AS "exchange.agent_id", ex.team_id AS "exchange.team_id", ex.page_id AS "exchange.page_id", ex.title AS "exchange.title",
	ex.model AS "exchange.model", ex.created_at AS "exchange.created_at", ex.updated_at AS "exchange.updated_at",
	ex.leaf_message_id AS "exchange.leaf_message_id", ex.turns AS turns`

// followUp stores the usual follow-up turn in one statement (one round trip, one commit): a
// message in an existing, never-branched exchange of the owner, with a new idempotency key and no
// unfinished answer. It reports false, storing nothing, for every other case (a replayed key, an
// unfinished answer, a branched, foreign or missing exchange, or an exchange row that another
// transaction changed since the statement's snapshot), which StartTurn's transaction then settles.
//
// The checks read the statement's snapshot, which a concurrent turn may have passed: the UPDATE of
// the exchange row, which waits for that turn's lock, writes only while the row's xmin is still
// the one the checks saw, so a turn that committed meanwhile sends this one to the transaction
// (which reads again under the lock). The pending answer is stored claimed by in.Lease when set.
//
// With in.Rate set, the same statement then takes one request from that shared bucket (as
// TakeRates), whatever the case: a refusal (rate_limit_refuse, migration 00023) undoes the whole
// statement, which stored nothing and took nothing, and is *RateLimitedError; a turn let through
// has taken its request even when it goes on to the transaction.
func (s *Store) followUp(ctx context.Context, in NewTurn) (Turn, bool, error) {
	var checks []RateCheck
	if in.Rate != nil {
		checks = []RateCheck{*in.Rate}
	}
	rateKeys, rateEvery, rateTolerance := rateArgs(checks)
	var rows []struct {
		Message
		Exchange Exchange `db:"exchange"`
		Turns    int      `db:"turns"`
	}
	err := s.hotSelect(ctx, &rows, followUpSQL,
		in.ExchangeID, in.UserID, in.GuestID, in.Model, nullText(in.IdempotencyKey), in.Query, nullID(in.AgentID), in.AgentType,
		nullJSON(in.AnswerMetadata), nullText(in.Lease.Holder), in.Lease.TTL.Seconds(), rateKeys, rateEvery, rateTolerance)
	if ahead, refused := rateRefusal(err); refused {
		return Turn{}, false, &RateLimitedError{Wait: rateResult(*in.Rate, false, ahead).Wait}
	}
	if err != nil || len(rows) == 0 {
		return Turn{}, false, notFound(err, "follow-up turn")
	}
	if len(rows) != 2 {
		return Turn{}, false, fmt.Errorf("db: follow-up turn stored %d messages, want 2", len(rows))
	}
	return Turn{Exchange: rows[0].Exchange, User: rows[0].Message, Assistant: rows[1].Message, Turns: rows[0].Turns}, true, nil
}

// rateRefusal reports whether err is rate_limit_refuse's refusal, and the bucket's lead over now
// (ms) it carries.
func rateRefusal(err error) (aheadMS int64, refused bool) {
	var pqErr *pq.Error
	if !errors.As(err, &pqErr) || pqErr.Code != "PR429" {
		return 0, false
	}
	aheadMS, _ = strconv.ParseInt(pqErr.Detail, 10, 64)
	return aheadMS, true
}

// followUpSQL is followUp's statement. Parameters: $1 exchange, $2 user, $3 guest, $4 model,
// $5 idempotency key, $6 query, $7 agent, $8 agent type, $9 answer metadata, $10 lease holder,
// $11 lease TTL (s), $12–$14 the rate check's arrays (rateArgs; empty for none). The rate take
// (rl) is read only by the last branch of the final UNION ALL, so PostgreSQL runs it after the
// turn is stored and its bucket's row stays locked only while the statement commits.
var followUpSQL = `WITH
		st AS (SELECT e.xmin AS seen, e.turns,
				EXISTS (SELECT 1 FROM chat_message WHERE exchange_id = e.id AND idempotency_key = $5) AS replay,
				EXISTS (SELECT 1 FROM chat_message WHERE exchange_id = e.id AND status IN ('pending', 'streaming')) AS busy,
				(SELECT coalesce(max(position), 0) + 1 FROM chat_message WHERE exchange_id = e.id) AS next,
				(SELECT id FROM chat_message WHERE exchange_id = e.id AND role = 'assistant' ORDER BY position DESC, id DESC LIMIT 1) AS last_answer
			FROM chat_exchange e
			WHERE e.id = $1 AND ` + ownedBy("$2", "$3") + ` AND e.deleted_at IS NULL AND e.leaf_message_id IS NULL AND ` + livePage + `),
		ex AS (UPDATE chat_exchange e SET updated_at = now(), model = CASE WHEN $4 <> '' THEN $4 ELSE e.model END
			FROM st WHERE e.id = $1 AND e.xmin = st.seen AND NOT st.replay AND NOT st.busy
			RETURNING ` + exchangeColumns + `, st.turns + 1 AS turns, st.next, st.last_answer),
		u AS (INSERT INTO chat_message (exchange_id, parent_id, position, role, content, status, idempotency_key, search)
			SELECT $1, ex.last_answer, ex.next, 'user', $6, 'complete', $5, to_tsvector('english', $6) FROM ex RETURNING *),
		a AS (INSERT INTO chat_message (exchange_id, parent_id, position, role, status, agent_id, agent_type, metadata,
				generator_id, lease_expires_at)
			SELECT $1, u.id, u.position + 1, 'assistant', 'pending', $7, $8, coalesce($9::jsonb, '{}'),
				$10, CASE WHEN $10::text IS NOT NULL THEN now() + make_interval(secs => $11) END FROM u RETURNING *),
		rl AS (` + takeRatesFrom("$12", "$13", "$14") + `)
		SELECT ` + prefixed("u.", messageColumns) + `, ` + exchangeAs + ` FROM u, ex
		UNION ALL
		SELECT ` + prefixed("a.", messageColumns) + `, ` + exchangeAs + ` FROM a, ex
		UNION ALL
		SELECT ` + strings.TrimPrefix(strings.Repeat(", NULL", columnCount(messageColumns)+columnCount(exchangeAs)), ", ") + `
		FROM rl WHERE rate_limit_refuse(rl.allowed, rl.ahead_ms)
		ORDER BY position`

// columnCount is the number of columns in a comma-separated column list without functions.
func columnCount(list string) int { return strings.Count(list, ",") + 1 }
