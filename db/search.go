package db

import (
	"context"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// SearchHit is one full-text match in a person's workspace: a page, or a message of one of their
// conversations. Snippet is plain text with the matched words between « and ».
type SearchHit struct {
	Kind      string    `db:"kind"` // "page" or "conversation"
	ID        int64     `db:"id"`   // page id or exchange id
	MessageID int64     `db:"message_id"`
	Title     string    `db:"title"`
	Snippet   string    `db:"snippet"`
	Rank      float32   `db:"rank"`
	At        time.Time `db:"at"` // the page's last edit or the message's time
}

// SearchWorkspace searches the user's live pages and their conversations (excluding exchangeID, the
// conversation asking, and those about a page in the trash) with websearch_to_tsquery ('english'): the best message of each
// conversation counts, the offline agent's own answers do not (they only repeat earlier searches).
// Hits are ranked by ts_rank then recency, limit of them; snippets mark matches as **bold**
// markdown. When every word together finds nothing, any of the words may match instead. It uses
// pages_search_idx and chat_message_owner_search_idx (keyed by owner), and answers
// ErrSearchTimeout past s.SearchTimeout.
func (s *Store) SearchWorkspace(ctx context.Context, userID int64, query string, excludeExchange int64, limit int) ([]SearchHit, error) {
	hits, err := s.searchWorkspace(ctx, userID, query, excludeExchange, limit)
	if words := strings.Fields(query); err == nil && len(hits) == 0 && len(words) > 1 {
		hits, err = s.searchWorkspace(ctx, userID, strings.Join(words, " or "), excludeExchange, limit)
	}
	return hits, err
}

func (s *Store) searchWorkspace(ctx context.Context, userID int64, query string, excludeExchange int64, limit int) ([]SearchHit, error) {
	var hits []SearchHit
	err := s.searching(ctx, func(ctx context.Context, q sqlx.QueryerContext) error {
		return sqlx.SelectContext(ctx, q, &hits, `
		WITH q AS (SELECT websearch_to_tsquery('english', $2) AS q),
		best AS (
			(SELECT 'page' AS kind, p.id, 0::bigint AS message_id, p.title, ts_rank(p.search, q.q) AS rank, p.updated_at AS at
			 FROM pages p, q WHERE p.owner_id = $1 AND p.deleted_at IS NULL AND p.search @@ q.q)
			UNION ALL
			(SELECT DISTINCT ON (e.id) 'conversation', e.id, m.id, e.title, ts_rank(m.search, q.q), m.created_at
			 FROM chat_message m JOIN chat_exchange e ON e.id = m.exchange_id, q
			 WHERE m.user_id = $1 AND e.user_id = $1 AND e.deleted_at IS NULL AND e.id <> $3 AND `+livePage+`
			   AND (m.role = 'user' OR (m.role = 'assistant' AND m.metadata->>'provider' IS DISTINCT FROM 'offline'))
			   AND m.search @@ websearch_to_tsquery('english', $2)
			 ORDER BY e.id, ts_rank(m.search, q.q) DESC, m.id)
			ORDER BY rank DESC, at DESC
			LIMIT $4)
		-- Snippets only for the hits shown.
		SELECT b.kind, b.id, b.message_id, b.title, b.rank, b.at,
		       ts_headline('english', CASE WHEN b.kind = 'page' THEN (SELECT p.content FROM pages p WHERE p.id = b.id)
		                                   ELSE (SELECT m.content FROM chat_message m WHERE m.id = b.message_id) END,
		                   q.q, 'StartSel=**,StopSel=**,MaxWords=30,MinWords=10') AS snippet
		FROM best b, q
		ORDER BY b.rank DESC, b.at DESC`, userID, query, excludeExchange, limit)
	})
	if err != nil {
		return nil, notFound(err, "search workspace")
	}
	return hits, nil
}
