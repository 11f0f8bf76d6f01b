package db

import (
	"context"
	"slices"
	"strings"
	"time"
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

// searchRankedMatches is the most matching messages of one person a search fetches and ranks
// (SearchConversations); past it the words are common for that person and the search looks for its
// page of conversations among their searchWindow newest messages first.
const searchRankedMatches = 2000

// searchWindow is how many of a person's newest messages a search for words common for them reads
// (SearchConversations).
const searchWindow = 5000

// searchQuery is a search statement's tsquery, websearch_to_tsquery('english', $2), as an
// InitPlan: computed once per statement, where inline a prepared statement's generic plan calls it
// for every row it checks, and the same plan for every query, so PostgreSQL can reuse one generic
// plan (the indexes keyed by owner pick the rows either way; TestHotChatQueriesNeverScanAChatTable).
const searchQuery = `(SELECT websearch_to_tsquery('english', $2))`

// liveConversation keeps a row d whose conversation d.exchange_id belongs to user $1, is not $4
// (the one left out) and is listed: not in the trash, a general chat or a chat about one of their
// pages not in the trash. It is a lateral lookup by primary key (OFFSET 0 keeps the planner from
// turning it into a join over all the person's conversations), so its cost follows the rows it
// checks.
const liveConversation = `CROSS JOIN LATERAL (SELECT FROM chat_exchange e LEFT JOIN pages p ON p.id = e.page_id
	WHERE e.id = d.exchange_id AND ` + listedExchange + `
	OFFSET 0) live`

// listedExchange is the condition on e (chat_exchange) LEFT JOIN p (pages ON p.id = e.page_id)
// that liveConversation and searchBest check: a conversation of user $1 but $4, not in the trash,
// a general chat or a chat about one of their pages not in the trash.
const listedExchange = `e.user_id = $1 AND e.id <> $4 AND e.deleted_at IS NULL
	  AND (e.page_id IS NULL OR (p.deleted_at IS NULL AND p.owner_id = $1))`

// SearchConversations searches the titles and every message of the user's live conversations,
// general chats and chats about their live pages, with websearch_to_tsquery('english', query): one
// hit per conversation, at most limit, ranked by relevance (a title match counts double) then
// recency. Its cost follows the user's own matches and the page of results, never the instance's.
//
// Which conversations are ranked depends on how common the words are for this person:
//   - in at most 2,000 of their messages (searchRankedMatches), or in fewer than limit
//     conversations among their newest 5,000 messages (searchWindow): every match is ranked, and
//     each conversation's hit is its best message (chat_message_owner_search_idx);
//   - otherwise the candidates are the newest limit conversations holding a match in those 5,000
//     messages (chat_message_owner_recent_idx), each with its newest matching message as its hit,
//     plus the title matches active since the oldest of those hits, ranked among themselves. A
//     word in 1% of a million messages then costs 2,000 matches and 5,000 recent messages read,
//     instead of 10,000 matches fetched and ranked.
//
// Titles come from chat_exchange_owner_title_search_idx. A query with no searchable words finds
// nothing; one that runs longer than s.SearchTimeout is stopped and answers ErrSearchTimeout.
func (s *Store) SearchConversations(ctx context.Context, userID int64, query string, limit int) ([]ConversationHit, error) {
	return s.searchConversations(ctx, userID, query, limit, searchRankedMatches, searchWindow)
}

// searchConversations is SearchConversations ranking every match when there are at most ranked,
// or when the newest window messages hold matches in fewer than limit conversations. Words common
// for the person but not among their newest window messages cost a second statement
// (historySearch.everyMatch), so the first never carries the cost of ranking every match in its
// plan (past jit_above_cost, JIT compiling it would cost more than the search). Both run as named
// prepared statements (hotSelect): their generic plans are the custom ones (searchQuery), and
// planning one cost about 1 ms of PostgreSQL CPU at every call, a third of running it for a rare
// word (the search tool runs on turns that ask to find something).
func (s *Store) searchConversations(ctx context.Context, userID int64, query string, limit, ranked, window int) ([]ConversationHit, error) {
	var hits []ConversationHit
	err := s.searching(ctx, func(ctx context.Context) error {
		if err := s.hotSelect(ctx, &hits, historySearch.newest, userID, query, limit, 0, ranked, window); err != nil {
			return err
		}
		if !slices.ContainsFunc(hits, func(h ConversationHit) bool { return h.ExchangeID == 0 }) {
			return nil
		}
		hits = nil
		return s.hotSelect(ctx, &hits, historySearch.everyMatch, userID, query, limit, 0)
	})
	if err != nil {
		return nil, notFound(err, "search conversations")
	}
	return hits, nil
}

// conversationSearch is the two statements of one conversation search, both searching only the
// messages m of chat_message that pass its condition.
type conversationSearch struct {
	// newest: $1 user, $2 query, $3 limit, $4 exchange left out (0: none), $5 matches ranked at
	// most, $6 newest messages read. The hits, or, with the words common for the person but in
	// fewer than $3 conversations among their newest $6 messages, a row of exchange 0 among them.
	newest string
	// everyMatch ranks every match of the person ($1 user, $2 query, $3 limit, $4 exchange left out).
	everyMatch string
}

var (
	// historySearch searches every message (SearchConversations, the history search).
	historySearch = newConversationSearch("")
	// toolSearch leaves out the offline agent's own answers, which only repeat earlier searches,
	// and tool calls (SearchWorkspace).
	toolSearch = newConversationSearch(`AND (m.role = 'user' OR (m.role = 'assistant' AND m.metadata->>'provider' IS DISTINCT FROM 'offline'))`)
)

// newConversationSearch is the conversation search of the messages m passing messages, an SQL
// condition starting with AND (or "" for every message).
func newConversationSearch(messages string) conversationSearch {
	return conversationSearch{
		newest: `
		WITH
		-- Up to $5 + 1 of the person's matches, in no order: all of them when there are at most $5.
		cand AS MATERIALIZED (
			SELECT m.exchange_id, m.id, ts_rank(m.search, ` + searchQuery + `) AS rank, m.created_at
			FROM chat_message m
			WHERE m.user_id = $1 AND m.search @@ ` + searchQuery + ` ` + messages + `
			LIMIT $5 + 1),
		common AS (SELECT count(*) > $5 AS yes FROM cand),
		-- More: the newest $3 live conversations with a match among the person's newest $6 messages,
		-- each at its newest match, checked live in that order until $3 are found.
		newest AS MATERIALIZED (
			SELECT d.exchange_id, d.id, d.rank, d.created_at
			FROM (SELECT * FROM (
				SELECT DISTINCT ON (w.exchange_id) w.exchange_id, w.id, ts_rank(w.search, ` + searchQuery + `) AS rank, w.created_at
				FROM (SELECT m.exchange_id, m.id, m.search, m.created_at FROM chat_message m
				      WHERE (SELECT yes FROM common) AND m.user_id = $1 ` + messages + `
				      ORDER BY m.created_at DESC, m.id DESC LIMIT $6) w
				WHERE w.search @@ ` + searchQuery + `
				ORDER BY w.exchange_id, w.created_at DESC, w.id DESC) n
			      ORDER BY n.created_at DESC, n.id DESC OFFSET 0) d
			` + liveConversation + `
			LIMIT $3),
		enough AS (SELECT count(*) >= $3 AS yes FROM newest),
		-- Every match when there are at most $5; else the newest conversations, when enough.
		msg AS (
			(SELECT DISTINCT ON (c.exchange_id) c.exchange_id, c.id, c.rank, c.created_at
			 FROM cand c WHERE NOT (SELECT yes FROM common)
			 ORDER BY c.exchange_id, c.rank DESC, c.id DESC)
			UNION ALL
			SELECT n.exchange_id, n.id, n.rank, n.created_at FROM newest n WHERE (SELECT yes FROM enough)),
		-- Title matches: all of them, or with the newest conversations those active since their oldest hit.
		since AS (SELECT CASE WHEN (SELECT yes FROM enough) THEN min(n.created_at) ELSE '-infinity' END AS at FROM newest n),
` + searchBest + `
		(` + searchHits + `)
		-- Common for the person but not among their newest messages: a row of exchange 0 asks for
		-- every match to be ranked (everyMatch).
		UNION ALL
		SELECT 0, 0, 0, 0, '', '', '', now() WHERE (SELECT yes FROM common) AND NOT (SELECT yes FROM enough)`,
		everyMatch: `
		WITH
		msg AS (
			SELECT DISTINCT ON (m.exchange_id) m.exchange_id, m.id, ts_rank(m.search, ` + searchQuery + `) AS rank, m.created_at
			FROM chat_message m
			WHERE m.user_id = $1 AND m.search @@ ` + searchQuery + ` ` + messages + `
			ORDER BY m.exchange_id, 3 DESC, m.id DESC),
		since AS (SELECT '-infinity'::timestamptz AS at),
` + searchBest + searchHits,
	}
}

// searchBest is the best $3 live conversations but $4 (best) of the message hits (msg: exchange_id, id,
// rank, created_at) and the title matches active since since.at.
const searchBest = `
		title AS (
			SELECT e.id AS exchange_id, 2 * ts_rank(to_tsvector('english', e.title), ` + searchQuery + `) AS rank, e.updated_at
			FROM chat_exchange e
			WHERE e.user_id = $1 AND e.deleted_at IS NULL AND to_tsvector('english', e.title) @@ ` + searchQuery + `
			  AND e.updated_at >= (SELECT at FROM since)),
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
				WHERE e.id = f.exchange_id AND ` + listedExchange + `
				OFFSET 0) x
			LIMIT $3)`

// searchHits is the hits of best with their highlighted titles and snippets, best first.
const searchHits = `
		SELECT b.exchange_id, b.message_id, b.rank, b.page_id, b.page_title,
		       ts_headline('english', b.title, ` + searchQuery + `, 'StartSel=' || chr(1) || ',StopSel=' || chr(2) || ',HighlightAll=true') AS title,
		       coalesce((SELECT ts_headline('english', m.content, ` + searchQuery + `, 'StartSel=' || chr(1) || ',StopSel=' || chr(2) || ',MaxWords=24,MinWords=8,MaxFragments=2,FragmentDelimiter= … ')
		                 FROM chat_message m WHERE m.id = b.message_id), '') AS snippet,
		       b.at
		FROM best b
		ORDER BY b.rank DESC, b.at DESC, b.exchange_id DESC`

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
