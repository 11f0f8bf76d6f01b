package db

import (
	"context"
	"database/sql"
	"encoding/json"

	"github.com/lib/pq"
)

// AnswerWrite is one write of an answer and the items that changed with it since the last one:
// the answer's whole text and status (Metadata, when not nil, merged into its stored metadata's
// top-level keys; Index also sets its full-text search vector, for the final write), Update the
// stored items (by ID: content, status, tool_result, duration_ms) and Insert the new items of the
// turn (reasoning, function_call, function_call_output), stored in this order just before the
// answer, which moves down (with any later turn) by len(Insert).
type AnswerWrite struct {
	ID       int64
	Content  string
	Status   string
	Metadata json.RawMessage
	Index    bool
	Update   []Message
	Insert   []Message
}

// WriteAnswer stores w in one statement (one commit) and returns the ids of the inserted items, in
// w.Insert's order. Under a lease (WithLease in ctx) it writes only an answer the lease holds, or
// (unless the lease is Claimed) a pending one nobody has claimed, which it claims; it renews the
// lease, and is ErrLeaseLost, writing nothing at all, otherwise. The search vector covers the
// first 300,000 characters of the text (as writeAnswer's). Text and metadata are stored as
// storable and storableJSON make them (no NUL, valid UTF-8).
func (s *Store) WriteAnswer(ctx context.Context, w AnswerWrite) ([]int64, error) {
	l, leased := leaseOf(ctx)
	n := len(w.Update)
	upID, upContent, upStatus, upResult, upMS := make([]int64, n), make([]string, n), make([]string, n), make([]string, n), make([]sql.NullInt64, n)
	for i, m := range w.Update {
		upID[i], upContent[i], upStatus[i], upResult[i], upMS[i] = m.ID, m.Content, m.Status, m.ToolResult, nullInt(m.DurationMS)
	}
	n = len(w.Insert)
	role, content, status, agentID, agentType := make([]string, n), make([]string, n), make([]string, n), make([]sql.NullInt64, n), make([]string, n)
	toolName, callID, args, result, ms := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]sql.NullInt64, n)
	for i, m := range w.Insert {
		role[i], content[i], status[i], agentType[i] = m.Role, m.Content, m.Status, m.AgentType
		if m.AgentID != nil {
			agentID[i] = sql.NullInt64{Int64: *m.AgentID, Valid: true}
		}
		toolName[i], callID[i], args[i], result[i], ms[i] = m.ToolName, m.ToolCallID, m.ToolArguments, m.ToolResult, nullInt(m.DurationMS)
	}
	storableAll(upContent, upResult, content, toolName, callID, args, result)
	var out struct {
		Written bool          `db:"written"`
		IDs     pq.Int64Array `db:"ids"`
	}
	err := s.hotGet(ctx, &out, `WITH
		ans AS (SELECT id, position, exchange_id FROM chat_message
			WHERE id = $1 AND ($5 = '' OR generator_id = $5 OR NOT $7 AND generator_id IS NULL AND status = 'pending')),
		items AS (UPDATE chat_message i SET content = u.content, status = u.status, tool_result = u.tool_result,
				duration_ms = u.duration_ms, updated_at = now()
			FROM ans, unnest($9::bigint[], $10::text[], $11::text[], $12::text[], $13::int[]) AS u(id, content, status, tool_result, duration_ms)
			WHERE i.id = u.id AND i.exchange_id = ans.exchange_id),
		moved AS (UPDATE chat_message m SET position = m.position + $14, content = $2, status = $3,
				metadata = coalesce(m.metadata || $4::jsonb, m.metadata),
				search = CASE WHEN $8 THEN to_tsvector('english', left($2, 300000)) ELSE m.search END,
				generator_id = CASE WHEN $5 <> '' THEN $5 ELSE m.generator_id END,
				lease_expires_at = CASE WHEN $5 <> '' THEN now() + make_interval(secs => $6) ELSE m.lease_expires_at END,
				updated_at = now()
			FROM ans WHERE m.id = ans.id
			RETURNING m.id),
		-- a later turn moves down with the answer; apart from the answer's own update, so a generic
		-- plan (the statement is prepared) reads the exchange's later rows only when $14 > 0
		later AS (UPDATE chat_message m SET position = m.position + $14
			FROM ans WHERE $14 > 0 AND m.exchange_id = ans.exchange_id AND m.position > ans.position),
		added AS (INSERT INTO chat_message (exchange_id, parent_id, position, role, content, status, agent_id, agent_type,
				tool_name, tool_call_id, tool_arguments, tool_result, duration_ms, metadata)
			SELECT ans.exchange_id, ans.id, ans.position + n.ord - 1, n.role, n.content, n.status, n.agent_id, n.agent_type,
				n.tool_name, n.tool_call_id, n.tool_arguments, n.tool_result, n.duration_ms, '{}'
			FROM ans, unnest($15::text[], $16::text[], $17::text[], $18::bigint[], $19::text[], $20::text[], $21::text[], $22::text[], $23::text[], $24::int[])
				WITH ORDINALITY AS n(role, content, status, agent_id, agent_type, tool_name, tool_call_id, tool_arguments, tool_result, duration_ms, ord)
			RETURNING id, position)
		SELECT EXISTS (SELECT 1 FROM moved WHERE id = $1) AS written,
			coalesce((SELECT array_agg(id ORDER BY position) FROM added), '{}') AS ids`,
		w.ID, storable(w.Content), w.Status, nullJSON(storableJSON(w.Metadata)), l.Holder, l.TTL.Seconds(), l.Claimed, w.Index,
		pq.Array(upID), pq.Array(upContent), pq.Array(upStatus), pq.Array(upResult), pq.Array(upMS), len(w.Insert),
		pq.Array(role), pq.Array(content), pq.Array(status), pq.Array(agentID), pq.Array(agentType),
		pq.Array(toolName), pq.Array(callID), pq.Array(args), pq.Array(result), pq.Array(ms))
	if err != nil {
		return nil, notFound(err, "write answer")
	}
	if leased && !out.Written {
		return nil, ErrLeaseLost
	}
	return out.IDs, nil
}

func nullInt(p *int) sql.NullInt64 {
	if p == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: int64(*p), Valid: true}
}
