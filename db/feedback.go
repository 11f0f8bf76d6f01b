package db

import (
	"context"
	"time"

	"parley/fault"
)

// Feedback ratings stored in chat_message.feedback.
const (
	RatingUp   = "up"
	RatingDown = "down"
)

// ErrAnswerUnfinished is returned by SetFeedback for an answer still being written.
var ErrAnswerUnfinished = &fault.Error{Code: fault.Conflict, Message: "This answer is still being written; rate it when it is finished."}

// SetFeedback rates an assistant message of the owner's (a user's or a guest's) exchange: rating is RatingUp, RatingDown or
// "" to withdraw the rating (which also clears the reason). A nil reason keeps the stored reason
// while the rating stays the same and clears it when the rating changes; a non-nil one replaces
// it. It returns the updated message. A message that is not an assistant answer of the owner's live
// exchange is ErrNotFound; a pending or streaming answer is ErrAnswerUnfinished.
func (s *Store) SetFeedback(ctx context.Context, o Owner, exchangeID, messageID int64, rating string, reason *string) (Message, error) {
	var m Message
	var r any
	if rating != "" {
		r = rating
	}
	err := s.DB.GetContext(ctx, &m, `
		UPDATE chat_message m SET
			feedback = $4,
			feedback_reason = CASE WHEN $4::text IS NULL THEN ''
				WHEN $5::text IS NOT NULL THEN $5
				WHEN m.feedback IS DISTINCT FROM $4 THEN ''
				ELSE m.feedback_reason END,
			feedback_at = CASE WHEN $4::text IS NULL THEN NULL ELSE now() END
		FROM chat_exchange e
		WHERE m.id = $3 AND m.exchange_id = $2 AND e.id = m.exchange_id AND `+ownedBy("$1", "$6")+`
		  AND e.deleted_at IS NULL AND m.role = 'assistant' AND m.status NOT IN ('pending', 'streaming')
		RETURNING `+prefixed("m.", messageColumns), o.UserID, exchangeID, messageID, r, reason, o.GuestID)
	if err == nil {
		return m, nil
	}
	if err = notFound(err, "set feedback"); err != ErrNotFound {
		return m, err
	}
	// Nothing matched: tell an unfinished answer of the user's own exchange from a missing one.
	var unfinished bool
	_ = s.DB.GetContext(ctx, &unfinished, `SELECT EXISTS (SELECT 1 FROM chat_message m JOIN chat_exchange e ON e.id = m.exchange_id
		WHERE m.id = $3 AND m.exchange_id = $2 AND `+ownedBy("$1", "$4")+` AND e.deleted_at IS NULL
		  AND m.role = 'assistant' AND m.status IN ('pending', 'streaming'))`, o.UserID, exchangeID, messageID, o.GuestID)
	if unfinished {
		return m, ErrAnswerUnfinished
	}
	return m, ErrNotFound
}

// LatestAnswer returns the last assistant message (by position) of the user's live exchange, or
// ErrNotFound when the exchange is missing, someone else's or has no answer yet.
func (s *Store) LatestAnswer(ctx context.Context, userID, exchangeID int64) (Message, error) {
	var m Message
	err := s.DB.GetContext(ctx, &m, `SELECT `+prefixed("m.", messageColumns)+` FROM chat_message m
		JOIN chat_exchange e ON e.id = m.exchange_id
		WHERE m.exchange_id = $2 AND e.user_id = $1 AND e.deleted_at IS NULL AND m.role = 'assistant'
		ORDER BY m.position DESC, m.id DESC LIMIT 1`, userID, exchangeID)
	return m, notFound(err, "latest answer")
}

// FeedbackRow is one rated answer in the admin export.
type FeedbackRow struct {
	MessageID  int64     `db:"message_id" json:"message_id"`
	ExchangeID int64     `db:"exchange_id" json:"exchange_id"`
	UserID     *int64    `db:"user_id" json:"user_id"`
	Agent      string    `db:"agent" json:"agent"`
	AgentType  string    `db:"agent_type" json:"agent_type"`
	Rating     string    `db:"rating" json:"rating"`
	Reason     string    `db:"reason" json:"reason"`
	At         time.Time `db:"at" json:"time"`
	Message    string    `db:"message" json:"message"`
	Query      string    `db:"query" json:"query"`
}

// FeedbackCursor is a keyset position in the feedback export: the last row's (time, message id).
type FeedbackCursor struct {
	At        time.Time
	MessageID int64
}

// AllFeedback lists every rated answer of every account, newest rating first, limit rows after the
// cursor (nil: from the start), with the answering agent's name and the question it answered. Only
// administrators may see it; the caller checks. It walks chat_message_feedback_idx (keyset).
func (s *Store) AllFeedback(ctx context.Context, after *FeedbackCursor, limit int) ([]FeedbackRow, error) {
	var rows []FeedbackRow
	// Two statements rather than "$1 IS NULL OR …", which would make the keyset a filter instead
	// of an index condition, so each later batch would rescan the earlier ones.
	where, args := `m.feedback IS NOT NULL`, []any{limit}
	if after != nil {
		where += ` AND (m.feedback_at, m.id) < ($2, $3)`
		args = append(args, after.At, after.MessageID)
	}
	err := s.DB.SelectContext(ctx, &rows, `
		SELECT m.id AS message_id, m.exchange_id, e.user_id, coalesce(a.name, '') AS agent, m.agent_type,
		       m.feedback AS rating, m.feedback_reason AS reason, m.feedback_at AS at, m.content AS message,
		       coalesce(q.content, '') AS query
		FROM chat_message m
		JOIN chat_exchange e ON e.id = m.exchange_id
		LEFT JOIN agents a ON a.id = m.agent_id
		LEFT JOIN chat_message q ON q.id = m.parent_id AND q.role = 'user'
		WHERE `+where+`
		ORDER BY m.feedback_at DESC, m.id DESC
		LIMIT $1`, args...)
	return rows, notFound(err, "all feedback")
}
