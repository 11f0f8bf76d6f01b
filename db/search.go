package db

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/jmoiron/sqlx"
)

// SearchHit is one full-text match in a person's workspace: a page, or a message of one of their
// conversations. Snippet is plain text with the matched words between « and ».
type SearchHit struct {
	Kind      string    `db:"kind"`       // "page" or "conversation"
	ID        int64     `db:"id"`         // page id or exchange id
	MessageID int64     `db:"message_id"` // 0 for a page, or a conversation found by its title only
	Title     string    `db:"title"`
	Snippet   string    `db:"snippet"`
	Rank      float32   `db:"rank"`
	At        time.Time `db:"at"` // the page's last edit or the message's time
}

// SearchWorkspace searches the user's live pages and their conversations (excluding exchangeID, the
// conversation asking) with websearch_to_tsquery ('english'), at most limit hits ranked by ts_rank
// then recency; snippets mark matches as **bold** markdown. Conversations are found the way
// SearchConversations finds them (one hit per conversation, a title match counts double, and for
// words common for the person the newest conversations holding them), except that the offline
// agent's own answers do not count (they only repeat earlier searches). When every word together
// finds nothing, any of the words may match instead. It uses pages_search_idx and the indexes of
// SearchConversations, and answers ErrSearchTimeout past s.SearchTimeout.
func (s *Store) SearchWorkspace(ctx context.Context, userID int64, query string, excludeExchange int64, limit int) ([]SearchHit, error) {
	hits, err := s.searchWorkspace(ctx, userID, query, excludeExchange, limit, searchRankedMatches, searchWindow)
	if words := strings.Fields(query); err == nil && len(hits) == 0 && len(words) > 1 {
		hits, err = s.searchWorkspace(ctx, userID, strings.Join(words, " or "), excludeExchange, limit, searchRankedMatches, searchWindow)
	}
	return hits, err
}

// searchPages is the best $3 of user $1's live pages matching query $2, with snippets.
const searchPages = `
		SELECT 'page' AS kind, b.id, 0::bigint AS message_id, b.title, b.rank, b.at,
		       ts_headline('english', b.content, ` + searchQuery + `, 'StartSel=**,StopSel=**,MaxWords=30,MinWords=10') AS snippet
		FROM (SELECT p.id, p.title, p.content, ts_rank(p.search, ` + searchQuery + `) AS rank, p.updated_at AS at
		      FROM pages p
		      WHERE p.owner_id = $1 AND p.deleted_at IS NULL AND p.search @@ ` + searchQuery + `
		      ORDER BY rank DESC, at DESC LIMIT $3) b
		ORDER BY b.rank DESC, b.at DESC`

// searchWorkspace is SearchWorkspace for query alone, its conversations searched as
// searchConversations searches them with ranked and window.
func (s *Store) searchWorkspace(ctx context.Context, userID int64, query string, excludeExchange int64, limit, ranked, window int) ([]SearchHit, error) {
	var hits []SearchHit
	err := s.searching(ctx, func(ctx context.Context, q sqlx.QueryerContext) error {
		return s.hotSelect(ctx, &hits, searchPages, userID, query, limit)
	})
	if err != nil {
		return nil, notFound(err, "search workspace")
	}
	found, err := s.conversationHits(ctx, toolSearch, userID, query, excludeExchange, limit, ranked, window)
	if err != nil {
		return nil, err
	}
	bold := strings.NewReplacer(HighlightStart, "**", HighlightStop, "**")
	plain := strings.NewReplacer(HighlightStart, "", HighlightStop, "")
	for _, h := range found {
		hit := SearchHit{Kind: "conversation", ID: h.ExchangeID, MessageID: h.MessageID, Title: plain.Replace(h.Title),
			Snippet: bold.Replace(h.Snippet), Rank: h.Rank, At: h.At}
		if hit.Snippet == "" { // found by its title
			hit.Snippet = bold.Replace(h.Title)
		}
		hits = append(hits, hit)
	}
	slices.SortStableFunc(hits, func(a, b SearchHit) int {
		return cmp.Or(cmp.Compare(b.Rank, a.Rank), b.At.Compare(a.At))
	})
	return hits[:min(len(hits), limit)], nil
}
