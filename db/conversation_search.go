package db

import (
	"context"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// ConversationHit is one conversation found by the history search: its title (matches marked) and
// best-matching message (0 when only the title matched) with a snippet. Marks are the control
// characters HighlightStart and HighlightStop, so the caller escapes the text and marks it safely.
// A chat about a page has PageID and PageTitle set (0 and "" for general chat).
type ConversationHit struct {
	ExchangeID int64     `db:"exchange_id"`
	MessageID  int64     `db:"message_id"`
	PageID     int64     `db:"page_id"`
	PageTitle  string    `db:"page_title"`
	Title      string    `db:"title"`
	Snippet    string    `db:"snippet"`
	Rank       float32   `db:"rank"`
	At         time.Time `db:"at"`
}

// Highlight marks around matched words in ConversationHit titles and snippets.
const (
	HighlightStart = "\x01"
	HighlightStop  = "\x02"
)

// SearchConversations searches the titles and every message of the user's live conversations,
// general chats and chats about their live pages, with websearch_to_tsquery('english', query): one
// hit per conversation, its best message, ranked by relevance (a title match counts double) then
// recency, at most limit. Its cost follows the user's own matches, never the instance's: it reads
// chat_message_owner_search_idx and chat_exchange_owner_title_search_idx, both keyed by owner. A
// query with no searchable words finds nothing; one that runs longer than s.SearchTimeout is
// stopped and answers ErrSearchTimeout.
func (s *Store) SearchConversations(ctx context.Context, userID int64, query string, limit int) ([]ConversationHit, error) {
	var hits []ConversationHit
	err := s.searching(ctx, func(ctx context.Context, q sqlx.QueryerContext) error {
		return sqlx.SelectContext(ctx, q, &hits, `
		WITH msg AS (
			SELECT DISTINCT ON (m.exchange_id) m.exchange_id, m.id, ts_rank(m.search, websearch_to_tsquery('english', $2)) AS rank, m.created_at
			FROM chat_message m
			WHERE m.user_id = $1 AND m.search @@ websearch_to_tsquery('english', $2)
			ORDER BY m.exchange_id, 3 DESC, m.id DESC),
		title AS (
			SELECT e.id AS exchange_id, 2 * ts_rank(to_tsvector('english', e.title), websearch_to_tsquery('english', $2)) AS rank, e.updated_at
			FROM chat_exchange e
			WHERE e.user_id = $1 AND e.deleted_at IS NULL AND to_tsvector('english', e.title) @@ websearch_to_tsquery('english', $2)),
		found AS (
			SELECT coalesce(msg.exchange_id, title.exchange_id) AS exchange_id, coalesce(msg.id, 0) AS message_id,
			       coalesce(msg.rank, 0) + coalesce(title.rank, 0) AS rank, coalesce(msg.created_at, title.updated_at) AS at
			FROM msg FULL JOIN title ON title.exchange_id = msg.exchange_id),
		-- Best first, each checked live by primary key until limit are found (OFFSET 0 keeps
		-- the check a per-row lookup), so the cost of the check follows the page of results.
		best AS (
			SELECT f.exchange_id, f.message_id, f.rank, f.at, x.title, x.page_id, x.page_title
			FROM (SELECT * FROM found ORDER BY rank DESC, at DESC, exchange_id DESC) f
			CROSS JOIN LATERAL (
				SELECT e.title, coalesce(e.page_id, 0) AS page_id, coalesce(p.title, '') AS page_title
				FROM chat_exchange e LEFT JOIN pages p ON p.id = e.page_id
				WHERE e.id = f.exchange_id AND e.user_id = $1 AND e.deleted_at IS NULL
				  AND (e.page_id IS NULL OR (p.deleted_at IS NULL AND p.owner_id = $1))
				OFFSET 0) x
			LIMIT $3)
		SELECT b.exchange_id, b.message_id, b.rank, b.page_id, b.page_title,
		       ts_headline('english', b.title, websearch_to_tsquery('english', $2), 'StartSel=' || chr(1) || ',StopSel=' || chr(2) || ',HighlightAll=true') AS title,
		       coalesce((SELECT ts_headline('english', m.content, websearch_to_tsquery('english', $2), 'StartSel=' || chr(1) || ',StopSel=' || chr(2) || ',MaxWords=24,MinWords=8,MaxFragments=2,FragmentDelimiter= … ')
		                 FROM chat_message m WHERE m.id = b.message_id), '') AS snippet,
		       b.at
		FROM best b
		ORDER BY b.rank DESC, b.at DESC, b.exchange_id DESC`, userID, query, limit)
	})
	if err != nil {
		return nil, notFound(err, "search conversations")
	}
	return hits, nil
}

// SplitHighlights cuts a ConversationHit title or snippet into plain and matched parts, calling
// part for each in order.
func SplitHighlights(s string, part func(text string, match bool)) {
	for s != "" {
		start := strings.Index(s, HighlightStart)
		if start < 0 {
			part(s, false)
			return
		}
		if start > 0 {
			part(s[:start], false)
		}
		s = s[start+len(HighlightStart):]
		stop := strings.Index(s, HighlightStop)
		if stop < 0 {
			stop = len(s)
		}
		part(s[:stop], true)
		s = strings.TrimPrefix(s[stop:], HighlightStop)
	}
}
