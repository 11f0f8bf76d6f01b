package db

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"
)

// SearchHit is one full-text match in a person's workspace: a page, or a message of one of their
// conversations. Snippet is plain text with the matched words in **bold** markdown.
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

// searchPages is the best $3 of user $1's live pages matching query $2, with snippets, as
// SearchHit rows.
const searchPages = `
		SELECT 'page' AS kind, b.id, 0::bigint AS message_id, b.title,
		       ts_headline('english', b.content, ` + searchQuery + `, 'StartSel=**,StopSel=**,MaxWords=30,MinWords=10') AS snippet,
		       b.rank, b.at
		FROM (SELECT p.id, p.title, p.content, ts_rank(p.search, ` + searchQuery + `) AS rank, p.updated_at AS at
		      FROM pages p
		      WHERE p.owner_id = $1 AND p.deleted_at IS NULL AND p.search @@ ` + searchQuery + `
		      ORDER BY rank DESC, at DESC LIMIT $3) b`

// searchWorkspaceHits is the search tool's statement ($1 user, $2 query, $3 limit, $4 exchange
// left out, $5 matches ranked at most, $6 newest messages read): toolSearch.newest's rows as
// SearchHit rows of kind conversation (marked with HighlightStart and HighlightStop; exchange 0
// asks for every match to be ranked) and searchPages' rows, in one statement, so a turn that
// searches runs one.
var searchWorkspaceHits = `
		SELECT 'conversation' AS kind, c.exchange_id AS id, c.message_id, c.title, c.snippet, c.rank, c.at
		FROM (` + toolSearch.newest + `) c
		UNION ALL
		(` + searchPages + `)`

// searchWorkspace is SearchWorkspace for query alone, its conversations searched as
// searchConversations searches them with ranked and window.
func (s *Store) searchWorkspace(ctx context.Context, userID int64, query string, excludeExchange int64, limit, ranked, window int) ([]SearchHit, error) {
	var hits []SearchHit
	err := s.searching(ctx, func(ctx context.Context) error {
		if err := s.hotSelect(ctx, &hits, searchWorkspaceHits, userID, query, limit, excludeExchange, ranked, window); err != nil {
			return err
		}
		if !slices.ContainsFunc(hits, func(h SearchHit) bool { return h.Kind == "conversation" && h.ID == 0 }) {
			return nil
		}
		var every []ConversationHit
		if err := s.hotSelect(ctx, &every, toolSearch.everyMatch, userID, query, limit, excludeExchange); err != nil {
			return err
		}
		hits = slices.DeleteFunc(hits, func(h SearchHit) bool { return h.Kind == "conversation" })
		for _, h := range every {
			hits = append(hits, SearchHit{Kind: "conversation", ID: h.ExchangeID, MessageID: h.MessageID, Title: h.Title,
				Snippet: h.Snippet, Rank: h.Rank, At: h.At})
		}
		return nil
	})
	if err != nil {
		return nil, notFound(err, "search workspace")
	}
	bold := strings.NewReplacer(HighlightStart, "**", HighlightStop, "**")
	plain := strings.NewReplacer(HighlightStart, "", HighlightStop, "")
	for i, h := range hits {
		if h.Kind != "conversation" {
			continue
		}
		if h.Snippet == "" { // found by its title
			h.Snippet = h.Title
		}
		hits[i].Title, hits[i].Snippet = plain.Replace(h.Title), bold.Replace(h.Snippet)
	}
	slices.SortStableFunc(hits, func(a, b SearchHit) int {
		return cmp.Or(cmp.Compare(b.Rank, a.Rank), b.At.Compare(a.At))
	})
	return hits[:min(len(hits), limit)], nil
}
