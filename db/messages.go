package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/jmoiron/sqlx"

	"parley/fault"
)

// Message roles, Gnosari's five kinds (SPEC.md §2).
const (
	RoleUser               = "user"
	RoleAssistant          = "assistant"
	RoleFunctionCall       = "function_call"
	RoleFunctionCallOutput = "function_call_output"
	RoleReasoning          = "reasoning"
)

// Message statuses.
const (
	StatusPending     = "pending"
	StatusStreaming   = "streaming"
	StatusComplete    = "complete"
	StatusFailed      = "failed"
	StatusCancelled   = "cancelled"
	StatusInterrupted = "interrupted"
)

// Message is one item of a thread. Metadata is JSON: model, usage, duration, error, handoff, ….
type Message struct {
	ID            int64           `db:"id"`
	ExchangeID    int64           `db:"exchange_id"`
	ParentID      *int64          `db:"parent_id"`
	Position      int             `db:"position"`
	Role          string          `db:"role"`
	Content       string          `db:"content"`
	Status        string          `db:"status"`
	AgentID       *int64          `db:"agent_id"`
	AgentType     string          `db:"agent_type"`
	ToolName      string          `db:"tool_name"`
	ToolCallID    string          `db:"tool_call_id"`
	ToolArguments string          `db:"tool_arguments"`
	ToolResult    string          `db:"tool_result"`
	DurationMS    *int            `db:"duration_ms"`
	Metadata      json.RawMessage `db:"metadata"`
	// Feedback is "up", "down" or nil; FeedbackReason is the optional reason given with it.
	Feedback       *string   `db:"feedback"`
	FeedbackReason string    `db:"feedback_reason"`
	CreatedAt      time.Time `db:"created_at"`
	UpdatedAt      time.Time `db:"updated_at"`
}

const messageColumns = `id, exchange_id, parent_id, position, role, content, status, agent_id, agent_type,
	tool_name, tool_call_id, tool_arguments, tool_result, duration_ms, metadata, feedback, feedback_reason, created_at, updated_at`

// Turn is what StartTurn stored: the exchange (new or existing), the user message and the
// assistant placeholder whose answer is to be generated.
type Turn struct {
	Exchange  Exchange
	User      Message
	Assistant Message
	// Replayed is true when the idempotency key had been used: nothing new was stored.
	Replayed bool
	// Turns is the exchange's number of user messages, this one included.
	Turns int
}

// NewTurn is the input of StartTurn. The exchange's owner is UserID or, for a guest, GuestID.
// ExchangeID 0 creates an exchange titled Title (with TeamID when not 0); Model, when not "",
// becomes the exchange's model (the one picked for the conversation); AgentID 0
// stores no agent. AnswerMetadata, when set, is the placeholder's metadata (e.g. a team's
// handoff_info).
type NewTurn struct {
	UserID         int64
	GuestID        int64
	ExchangeID     int64
	AgentID        int64
	AgentType      string
	TeamID         int64
	Model          string
	Title          string
	Query          string
	IdempotencyKey string
	// PageID makes a new exchange a chat about that page (0: general chat).
	PageID         int64
	AnswerMetadata json.RawMessage
	// Lease, when its Holder is set, stores the pending answer already claimed by that generation
	// (generator_id, lease_expires_at = now + TTL), so the generation's first write claims nothing.
	Lease Lease
	// Rate, when set, is the sender's shared message limit: StartTurn takes one request from it
	// before storing anything (in the follow-up's own statement, else with TakeRates), and a
	// refused turn stores nothing and is *RateLimitedError.
	Rate *RateCheck
}

// ErrBusy is returned by StartTurn when the exchange still has an answer being generated.
var ErrBusy = &fault.Error{Code: fault.Conflict, Message: "An answer is still being written. Wait for it, or press Stop."}

// ErrKeyReused is returned by StartTurn for an idempotency key already used for another query.
var ErrKeyReused = &fault.Error{Code: fault.Conflict, Field: "idempotency_key",
	Message: "This idempotency key was used for a different message; send a new message with a new key."}

// KeyUsed reports whether the owner already sent query with this idempotency key, in exchangeID or
// (0) in any of the owner's exchanges: StartTurn would replay that turn, so it costs nothing.
func (s *Store) KeyUsed(ctx context.Context, o Owner, exchangeID int64, key, query string) (bool, error) {
	var used bool
	err := s.DB.GetContext(ctx, &used, `SELECT EXISTS (SELECT 1 FROM chat_message m JOIN chat_exchange e ON e.id = m.exchange_id
		WHERE `+ownedBy("$1", "$2")+` AND m.idempotency_key = $3 AND m.content = $4 AND ($5 = 0 OR m.exchange_id = $5))`,
		o.UserID, o.GuestID, key, query, exchangeID)
	return used, err
}

// StartTurn stores a user message and a pending assistant placeholder in one transaction, creating
// the exchange when ExchangeID is 0 and bumping its updated_at. A repeated idempotency key returns
// the turn stored the first time (Replayed) instead of a second one, when the query is the same
// (else ErrKeyReused). The exchange row stays locked
// until commit, so concurrent sends take turns; one sent while an answer is unfinished is ErrBusy.
// A foreign exchange is ErrNotFound. The usual follow-up (turn_follow_up.go) is one statement; the
// transaction settles every other case. in.Rate is taken once, before anything is stored.
func (s *Store) StartTurn(ctx context.Context, in NewTurn) (Turn, error) {
	if in.ExchangeID != 0 {
		t, ok, err := s.followUp(ctx, in)
		if isUniqueViolation(err, "chat_message_idempotency_key") {
			return s.StartTurn(ctx, in) // two identical submits raced; the other one stored the turn (and this took nothing)
		}
		if err != nil || ok {
			return t, err
		}
		in.Rate = nil // taken by the follow-up's statement, which left this turn to the transaction
	} else if in.Rate != nil {
		r, err := s.TakeRates(ctx, *in.Rate)
		if err != nil {
			return Turn{}, err
		}
		if !r[0].Allowed {
			return Turn{}, &RateLimitedError{Wait: r[0].Wait}
		}
		in.Rate = nil
	}
	var t Turn
	owner := Owner{UserID: in.UserID, GuestID: in.GuestID}
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if in.ExchangeID == 0 {
			if in.IdempotencyKey != "" {
				// Serialise concurrent first messages with one key, so a double submit makes one exchange.
				if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1, hashtext($2))`, owner.lockKey(), in.IdempotencyKey); err != nil {
					return err
				}
				// A double submit of a conversation's first message: find the exchange it made.
				var existing int64
				err := tx.GetContext(ctx, &existing, `SELECT m.exchange_id FROM chat_message m JOIN chat_exchange e ON e.id = m.exchange_id
					WHERE `+ownedBy("$1", "$2")+` AND m.idempotency_key = $3 LIMIT 1`, in.UserID, in.GuestID, in.IdempotencyKey)
				if err == nil {
					in.ExchangeID = existing
				}
			}
			if in.ExchangeID == 0 {
				if err := tx.GetContext(ctx, &t.Exchange, `INSERT INTO chat_exchange AS e (user_id, guest_session_id, agent_id, team_id, page_id, model, title)
					VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING `+exchangeColumns,
					nullID(in.UserID), nullID(in.GuestID), nullID(in.AgentID), nullID(in.TeamID), nullID(in.PageID), in.Model, in.Title); err != nil {
					return err
				}
			}
		}
		if t.Exchange.ID == 0 {
			err := tx.GetContext(ctx, &t.Exchange, `UPDATE chat_exchange e SET updated_at = now(),
					model = CASE WHEN $4 <> '' THEN $4 ELSE e.model END
				WHERE e.id = $1 AND `+ownedBy("$2", "$3")+` AND e.deleted_at IS NULL
				RETURNING `+exchangeColumns, in.ExchangeID, in.UserID, in.GuestID, in.Model)
			if err != nil {
				return notFound(err, "exchange for turn")
			}
		}
		// With the exchange locked, one read says all the turn needs: a stored turn with this key,
		// whether an answer is unfinished, the next position, the answer a new query follows (when
		// never branched: the last one) and the turns so far.
		var st struct {
			ReplayID   *int64  `db:"replay_id"`
			ReplayText *string `db:"replay_text"`
			Busy       bool    `db:"busy"`
			Next       int     `db:"next"`
			LastAnswer *int64  `db:"last_answer"`
			Turns      int     `db:"turns"`
		}
		if err := tx.GetContext(ctx, &st, `SELECT
				(SELECT id FROM chat_message WHERE exchange_id = $1 AND idempotency_key = $2) AS replay_id,
				(SELECT content FROM chat_message WHERE exchange_id = $1 AND idempotency_key = $2) AS replay_text,
				EXISTS (SELECT 1 FROM chat_message WHERE exchange_id = $1 AND status IN ('pending', 'streaming')) AS busy,
				(SELECT coalesce(max(position), 0) + 1 FROM chat_message WHERE exchange_id = $1) AS next,
				(SELECT id FROM chat_message WHERE exchange_id = $1 AND role = 'assistant' ORDER BY position DESC, id DESC LIMIT 1) AS last_answer,
				(SELECT `+turnsOf+` FROM chat_exchange e WHERE e.id = $1) AS turns`, t.Exchange.ID, in.IdempotencyKey); err != nil {
			return err
		}
		if st.ReplayID != nil {
			if *st.ReplayText != in.Query {
				return ErrKeyReused
			}
			t.Replayed, t.Turns = true, st.Turns
			if err := tx.GetContext(ctx, &t.User, `SELECT `+messageColumns+` FROM chat_message WHERE id = $1`, *st.ReplayID); err != nil {
				return err
			}
			return tx.GetContext(ctx, &t.Assistant, `SELECT `+messageColumns+` FROM chat_message
				WHERE parent_id = $1 AND role = 'assistant' ORDER BY id LIMIT 1`, t.User.ID)
		}
		if st.Busy {
			return ErrBusy
		}
		// The query follows the branch on screen: its leaf answer, or (never branched) the last answer.
		parent := t.Exchange.LeafMessageID
		if parent == nil {
			parent = st.LastAnswer
		}
		// Both messages in one statement; a branched exchange's leaf moves to the new answer.
		var stored []Message
		if err := tx.SelectContext(ctx, &stored, `WITH
			u AS (INSERT INTO chat_message (exchange_id, parent_id, position, role, content, status, idempotency_key, search)
				VALUES ($1, $2, $3, 'user', $4, 'complete', $5, to_tsvector('english', $4)) RETURNING *),
			a AS (INSERT INTO chat_message (exchange_id, parent_id, position, role, status, agent_id, agent_type, metadata,
					generator_id, lease_expires_at)
				SELECT $1, u.id, $3 + 1, 'assistant', 'pending', $6, $7, coalesce($8::jsonb, '{}'),
					$9, CASE WHEN $9::text IS NOT NULL THEN now() + make_interval(secs => $10) END FROM u RETURNING *),
			leaf AS (UPDATE chat_exchange SET leaf_message_id = (SELECT id FROM a) WHERE id = $1 AND leaf_message_id IS NOT NULL)
			SELECT `+messageColumns+` FROM u UNION ALL SELECT `+messageColumns+` FROM a ORDER BY position`,
			t.Exchange.ID, parent, st.Next, in.Query, nullText(in.IdempotencyKey), nullID(in.AgentID), in.AgentType, nullJSON(in.AnswerMetadata),
			nullText(in.Lease.Holder), in.Lease.TTL.Seconds()); err != nil {
			return err
		}
		if len(stored) != 2 {
			return fmt.Errorf("db: start turn stored %d messages, want 2", len(stored))
		}
		t.User, t.Assistant, t.Turns = stored[0], stored[1], st.Turns+1
		return nil
	})
	if isUniqueViolation(err, "chat_message_idempotency_key") {
		// Two identical submits raced; the other one stored the turn.
		return s.StartTurn(ctx, in)
	}
	return t, err
}

// ExchangeMessages returns every message on the exchange's branch on screen (branches.go) in
// display order: what the model sees and what an export holds.
func (s *Store) ExchangeMessages(ctx context.Context, exchangeID int64) ([]Message, error) {
	var out []Message
	err := s.DB.SelectContext(ctx, &out, `SELECT `+messageColumns+` FROM chat_message m
		WHERE m.exchange_id = $1 AND m.on_branch ORDER BY m.position, m.id`, exchangeID)
	return out, notFound(err, "exchange messages")
}

// exchangeWindow is the messages on the branch on screen before position $2 of exchange $1,
// newest first, at most $3 (ExchangeWindow, BranchWindow).
const exchangeWindow = `SELECT ` + messageColumns + ` FROM chat_message m
		WHERE m.exchange_id = $1 AND m.position < $2 AND m.on_branch
		ORDER BY m.position DESC, m.id DESC LIMIT $3`

// ExchangeWindow returns the last limit messages on the branch on screen before position before (0:
// up to the end), in display order, and whether older ones exist. It reads them newest first on
// chat_message_branch_idx and stops after limit+1, so a long conversation, branched or not, opens
// in a time independent of its length.
func (s *Store) ExchangeWindow(ctx context.Context, exchangeID int64, before, limit int) ([]Message, bool, error) {
	if before <= 0 {
		before = math.MaxInt32
	}
	var out []Message
	err := s.DB.SelectContext(ctx, &out, exchangeWindow, exchangeID, before, limit+1)
	if err != nil {
		return nil, false, notFound(err, "exchange window")
	}
	older := len(out) > limit
	if older {
		out = out[:limit]
	}
	slices.Reverse(out)
	return out, older, nil
}

// ExchangeRange returns the messages on the branch on screen from position from up to (not
// including) before, in display order, and whether older ones exist: the stretch between a message
// a search result opens and the newest window.
func (s *Store) ExchangeRange(ctx context.Context, exchangeID int64, from, before int) ([]Message, bool, error) {
	var out []Message
	err := s.DB.SelectContext(ctx, &out, `SELECT `+messageColumns+` FROM chat_message m
		WHERE m.exchange_id = $1 AND m.position >= $2 AND m.position < $3 AND m.on_branch
		ORDER BY m.position, m.id`, exchangeID, from, before)
	if err != nil {
		return nil, false, notFound(err, "exchange range")
	}
	var older bool
	err = s.DB.GetContext(ctx, &older, `SELECT EXISTS (SELECT 1 FROM chat_message WHERE exchange_id = $1 AND on_branch AND position < $2)`, exchangeID, from)
	return out, older, notFound(err, "older messages")
}

// ExchangeTail returns the messages of an exchange from the one before the earliest of ids to the
// end, in display order: what a stream needs to show changes to ids (their neighbours decide
// grouping and where new ones go) without reading the whole conversation.
func (s *Store) ExchangeTail(ctx context.Context, exchangeID int64, ids []int64) ([]Message, error) {
	var out []Message
	err := s.DB.SelectContext(ctx, &out, `SELECT `+messageColumns+` FROM chat_message m
		WHERE m.exchange_id = $1 AND m.on_branch AND m.position >= (
			SELECT coalesce(min(position), 1) - 1 FROM chat_message WHERE exchange_id = $1 AND id = ANY($2))
		ORDER BY m.position, m.id`, exchangeID, int64Array(ids))
	return out, notFound(err, "exchange tail")
}

// MessageByID returns one message of an exchange.
func (s *Store) MessageByID(ctx context.Context, exchangeID, id int64) (Message, error) {
	var m Message
	err := s.DB.GetContext(ctx, &m, `SELECT `+messageColumns+` FROM chat_message WHERE id = $1 AND exchange_id = $2`, id, exchangeID)
	return m, notFound(err, "message")
}

// SetAnswer writes an assistant message's text and status, and merges metadata (when not nil)
// into the stored metadata's top-level keys. Under a lease (WithLease in ctx) it writes only an
// answer the lease holds, or (unless the lease is Claimed) a pending one nobody has claimed, which
// it claims; it renews the lease, and is ErrLeaseLost otherwise. Text and metadata are stored as
// storable and storableJSON make them. A generation's own writes, with
// the items and the final search index, go through WriteAnswer.
func (s *Store) SetAnswer(ctx context.Context, id int64, content, status string, metadata json.RawMessage) error {
	l, leased := leaseOf(ctx)
	if !leased {
		_, err := s.DB.ExecContext(ctx, `UPDATE chat_message SET content = $2, status = $3,
			metadata = coalesce(metadata || $4::jsonb, metadata), updated_at = now()
		WHERE id = $1`, id, storable(content), status, nullJSON(storableJSON(metadata)))
		return notFound(err, "set answer")
	}
	res, err := s.DB.ExecContext(ctx, `UPDATE chat_message SET content = $2, status = $3,
			metadata = coalesce(metadata || $4::jsonb, metadata), updated_at = now(),
			generator_id = $5, lease_expires_at = now() + make_interval(secs => $6)
		WHERE id = $1 AND (generator_id = $5 OR NOT $7 AND generator_id IS NULL AND status = 'pending')`,
		id, storable(content), status, nullJSON(storableJSON(metadata)), l.Holder, l.TTL.Seconds(), l.Claimed)
	if err != nil {
		return notFound(err, "set answer")
	}
	if n, err := res.RowsAffected(); err == nil && n == 0 {
		return ErrLeaseLost
	}
	return nil
}

// HandOff makes agent answer the (pending) assistant message and merges metadata (the hand-off
// record) into it.
func (s *Store) HandOff(ctx context.Context, answerID, agentID int64, agentType string, metadata json.RawMessage) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE chat_message SET agent_id = $2, agent_type = $3,
		metadata = metadata || $4::jsonb, updated_at = now() WHERE id = $1`, answerID, agentID, agentType, string(metadata))
	return notFound(err, "hand off")
}

// ErrOtherVersion refuses to retry an answer that is not on the branch on screen: the question was
// edited or the answer regenerated since the page asking was shown (another tab).
var ErrOtherVersion = &fault.Error{Code: fault.Conflict, Message: "This answer is on another version of the conversation: it was edited or regenerated since this page was shown. Reload the page."}

// RestartOwnedAnswer puts a failed, cancelled or interrupted answer back to pending for a retry, keeping
// its earlier text in metadata.previous_attempts (with how many reasoning and tool items it had; those
// items are removed, so the new attempt's own show under the question). Only the exchange owner's
// messages (a user's or a guest session's) on the branch on screen match: another version's is
// ErrOtherVersion, and any answer while one is being written ErrBusy.
func (s *Store) RestartOwnedAnswer(ctx context.Context, o Owner, exchangeID, id int64) (Message, error) {
	var m Message
	err := s.DB.GetContext(ctx, &m, `
		WITH gone AS (
			DELETE FROM chat_message i USING chat_exchange e
			WHERE i.parent_id = $3 AND i.exchange_id = $2 AND e.id = i.exchange_id AND `+ownedBy("$1", "$4")+`
			  AND i.role IN ('reasoning', 'function_call', 'function_call_output')
			  AND EXISTS (SELECT 1 FROM chat_message a WHERE a.id = $3 AND a.on_branch AND a.status IN ('failed', 'cancelled', 'interrupted'))
			  AND NOT EXISTS (SELECT 1 FROM chat_message o WHERE o.exchange_id = $2 AND o.status IN ('pending', 'streaming'))
			RETURNING i.id)
		UPDATE chat_message m SET status = 'pending', content = '', search = NULL, updated_at = now(),
			generator_id = NULL, lease_expires_at = NULL, stop_requested_at = NULL,
			metadata = jsonb_set(m.metadata - 'error', '{previous_attempts}',
				coalesce(m.metadata->'previous_attempts', '[]'::jsonb) || jsonb_build_array(jsonb_build_object(
					'content', m.content, 'status', m.status, 'error', m.metadata->'error',
					'items', (SELECT count(*) FROM gone))))
		FROM chat_exchange e
		WHERE m.id = $3 AND m.exchange_id = $2 AND e.id = m.exchange_id AND `+ownedBy("$1", "$4")+` AND e.deleted_at IS NULL
		  AND m.role = 'assistant' AND m.on_branch AND m.status IN ('failed', 'cancelled', 'interrupted')
		  AND NOT EXISTS (SELECT 1 FROM chat_message o WHERE o.exchange_id = $2 AND o.status IN ('pending', 'streaming'))
		RETURNING `+prefixed("m.", messageColumns), o.UserID, exchangeID, id, o.GuestID)
	if errors.Is(err, sql.ErrNoRows) {
		// An answer of the conversation is being written (maybe by another instance), or the
		// answer is on a version no longer on screen: say so.
		var why struct {
			Busy   bool `db:"busy"`
			Hidden bool `db:"hidden"`
		}
		if e := s.DB.GetContext(ctx, &why, `SELECT
			EXISTS (SELECT 1 FROM chat_message m WHERE m.exchange_id = e.id AND m.status IN ('pending', 'streaming')) AS busy,
			EXISTS (SELECT 1 FROM chat_message m WHERE m.id = $4 AND m.exchange_id = e.id AND m.role = 'assistant' AND NOT m.on_branch) AS hidden
			FROM chat_exchange e WHERE e.id = $1 AND `+ownedBy("$2", "$3"),
			exchangeID, o.UserID, o.GuestID, id); e == nil {
			switch {
			case why.Busy:
				return m, ErrBusy
			case why.Hidden:
				return m, ErrOtherVersion
			}
		}
	}
	return m, notFound(err, "restart answer")
}

// nullID is NULL for 0, the id otherwise.
func nullID(id int64) any {
	if id == 0 {
		return nil
	}
	return id
}

// nullText is NULL for "", s otherwise.
func nullText(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullJSON(b json.RawMessage) any {
	if len(b) == 0 {
		return nil
	}
	return string(b)
}
