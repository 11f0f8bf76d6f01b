package handlers_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"parley/accounts"
	"parley/db"
	"parley/handlers/handlerstest"
)

// BenchmarkHistoryAtScale seeds one user with 1,000 and then 100,000 general conversations of 10
// messages each (1,000,000 messages, by COPY) and measures, in one run: the sidebar's first page and
// a page deep in the list (keyset), a search (a word in ~1% of messages, and a rare one), and
// opening a 1,000-message conversation (page time against the time of its SQL alone). Targets
// (issue 4): sidebar at 100k ≤ 1.3× at 1k; search p50 ≤ 50 ms; open ≤ 2× its SQL. The EXPLAIN
// ANALYZE of each hot query, as the app runs it (auto_explain), goes to
// test-artifacts/history-explain.txt.
func BenchmarkHistoryAtScale(b *testing.B) {
	app := handlerstest.Start(b)
	c := app.Client(b)
	c.SignUp("ada@example.com", "correct horse")
	ctx := context.Background()
	s := newHistorySeeder(b, app)

	started := time.Now()
	s.conversations(1000, 10)
	s.analyze()
	fmt.Printf("seeded 1,000 conversations in %s\n", time.Since(started).Round(time.Millisecond))
	first1k := benchP50(b, "sidebar-first-page/1k", func() { s.history(nil) })
	deep1k := benchP50(b, "sidebar-deep-page/1k", func() { s.history(s.cursorAt(500)) })

	started = time.Now()
	s.conversations(99_000, 10)
	long := s.longConversation(1000)
	s.analyze()
	var messages int
	_ = app.Store.DB.Get(&messages, `SELECT count(*) FROM chat_message`)
	fmt.Printf("seeded 100,000 conversations (%d messages) in %s\n", messages, time.Since(started).Round(time.Millisecond))
	first100k := benchP50(b, "sidebar-first-page/100k", func() { s.history(nil) })
	deepCursor := s.cursorAt(50_000)
	deep100k := benchP50(b, "sidebar-deep-page/100k", func() { s.history(deepCursor) })

	common, rare := s.vocabulary[len(s.vocabulary)/2], "zanzibark"
	searchCommon := benchP50(b, "search-common-word/1M", func() { s.search(common) })
	searchRare := benchP50(b, "search-rare-word/1M", func() { s.search(rare) })
	searchTwo := benchP50(b, "search-two-words/1M", func() { s.search(common + " " + s.vocabulary[10]) })

	path := fmt.Sprintf("/sessions/%d/chat", long)
	if res := c.Get(path); res.Status != 200 || strings.Count(res.Body, `class="msg `) != 40 {
		b.Fatalf("opening the long conversation: %d, %d messages rendered", res.Status, strings.Count(res.Body, `class="msg `))
	}
	open := benchP50(b, "open-1000-message-conversation/page", func() { c.Get(path) })
	// Its SQL: the session lookup, the exchange, the newest window, its agents, the sidebar's page.
	sessions := accounts.Service{Store: app.Store, SessionTTL: time.Hour}
	token, err := sessions.StartSession(ctx, s.userID, "bench", "127.0.0.1")
	if err != nil {
		b.Fatal(err)
	}
	openSQL := benchP50(b, "open-1000-message-conversation/sql", func() {
		if _, err := sessions.UserForToken(ctx, token); err != nil {
			b.Fatal(err)
		}
		e, err := app.Store.OwnerExchange(ctx, db.Owner{UserID: s.userID}, long)
		if err != nil {
			b.Fatal(err)
		}
		msgs, _, _ := app.Store.ExchangeWindow(ctx, long, 0, 40)
		_, _ = app.Store.AgentsByID(ctx, []int64{*e.AgentID})
		_ = msgs
		s.history(nil)
	})

	// Go does not print a parent benchmark's log when it has sub-benchmarks: print the summary.
	summary := ""
	summary += fmt.Sprintf("sidebar first page: %.2f ms at 1k, %.2f ms at 100k (%.2f×, target ≤ 1.3×)\n", first1k, first100k, first100k/first1k)
	summary += fmt.Sprintf("sidebar deep page:  %.2f ms at 1k, %.2f ms at 100k (%.2f×, target ≤ 1.3×)\n", deep1k, deep100k, deep100k/deep1k)
	summary += fmt.Sprintf("search at %d messages: common word %.2f ms, rare word %.2f ms, two words %.2f ms (target p50 ≤ 50 ms)\n", messages, searchCommon, searchRare, searchTwo)
	summary += fmt.Sprintf("open 1,000-message conversation: page %.2f ms, its SQL %.2f ms (%.2f×, target ≤ 2×)\n", open, openSQL, open/openSQL)
	fmt.Print(summary)
	s.explain(summary, long, deepCursor, common)
}

// benchP50 runs fn as a sub-benchmark and returns (and reports) its median time in milliseconds.
func benchP50(b *testing.B, name string, fn func()) float64 {
	var p50 float64
	b.Run(name, func(b *testing.B) {
		var times []time.Duration
		for b.Loop() {
			t := time.Now()
			fn()
			times = append(times, time.Since(t))
		}
		slices.Sort(times)
		p50 = float64(times[len(times)/2].Microseconds()) / 1000
		b.ReportMetric(p50, "p50-ms")
	})
	return p50
}

// historySeeder writes conversations for ada with COPY.
type historySeeder struct {
	b          *testing.B
	app        *handlerstest.App
	userID     int64
	agentID    int64
	vocabulary []string
	rng        *rand.Rand
	cursors    []db.HistoryCursor // by recency rank, filled by cursorAt
}

func newHistorySeeder(b *testing.B, app *handlerstest.App) *historySeeder {
	s := &historySeeder{b: b, app: app, rng: rand.New(rand.NewPCG(1, 2))}
	if err := app.Store.DB.Get(&s.userID, `SELECT id FROM users WHERE email = 'ada@example.com'`); err != nil {
		b.Fatal(err)
	}
	if err := app.Store.DB.Get(&s.agentID, `SELECT id FROM agents WHERE identifier = 'auto'`); err != nil {
		b.Fatal(err)
	}
	// 2,000 made-up words that the english configuration keeps as they are, so the seeder can write
	// the search vectors itself instead of PostgreSQL computing a million of them.
	syllables := strings.Fields("ba do ka lu mi no pe ri sa to vu we xa yo za bre cli dra fro glu kra plo sni tre vla")
	var words []string
	for len(words) < 2600 {
		w := syllables[s.rng.IntN(len(syllables))] + syllables[s.rng.IntN(len(syllables))] + syllables[s.rng.IntN(len(syllables))] + "k"
		words = append(words, w)
	}
	slices.Sort(words)
	words = slices.Compact(words)
	if err := app.Store.DB.Select(&s.vocabulary, `SELECT w FROM unnest($1::text[]) w
		WHERE to_tsvector('english', w)::text = quote_literal(w) || ':1' ORDER BY w LIMIT 2000`, pq.Array(words)); err != nil {
		b.Fatal(err)
	}
	return s
}

// text is n words of the vocabulary, and its tsvector literal.
func (s *historySeeder) text(n int, extra string) (string, string) {
	words := make([]string, n)
	for i := range words {
		words[i] = s.vocabulary[s.rng.IntN(len(s.vocabulary))]
	}
	if extra != "" {
		words[n/2] = extra
	}
	positions := map[string][]string{}
	for i, w := range words {
		positions[w] = append(positions[w], fmt.Sprint(i+1))
	}
	var vec []string
	for w, p := range positions {
		vec = append(vec, "'"+w+"':"+strings.Join(p, ","))
	}
	return strings.Join(words, " "), strings.Join(vec, " ")
}

// conversations adds n conversations of per messages (alternating query and answer), active at
// random times over the last two years; about one in 2,000 answers holds the rare word.
func (s *historySeeder) conversations(n, per int) {
	s.copy(n, per, func(int) time.Time {
		return time.Now().Add(-time.Duration(s.rng.Int64N(int64(2 * 365 * 24 * time.Hour))))
	})
}

// longConversation adds the newest conversation, of n messages, and returns its id.
func (s *historySeeder) longConversation(n int) int64 {
	return s.copy(1, n, func(int) time.Time { return time.Now() })
}

func (s *historySeeder) copy(n, per int, at func(int) time.Time) int64 {
	b, store := s.b, s.app.Store
	var exID, msgID int64
	if err := store.DB.Get(&exID, `SELECT coalesce(max(id), 0) FROM chat_exchange`); err != nil {
		b.Fatal(err)
	}
	if err := store.DB.Get(&msgID, `SELECT coalesce(max(id), 0) FROM chat_message`); err != nil {
		b.Fatal(err)
	}
	tx := store.DB.MustBegin()
	exStmt, err := tx.Prepare(pq.CopyIn("chat_exchange", "id", "user_id", "agent_id", "title", "created_at", "updated_at"))
	if err != nil {
		b.Fatal(err)
	}
	type msg struct {
		id, exchange int64
		parent       sql.NullInt64
		position     int
		role         string
		content, vec string
		at           time.Time
	}
	var msgs []msg
	for i := range n {
		exID++
		updated := at(i)
		title, _ := s.text(4, "")
		if _, err := exStmt.Exec(exID, s.userID, s.agentID, title, updated.Add(-time.Hour), updated); err != nil {
			b.Fatal(err)
		}
		var parent sql.NullInt64
		for p := 1; p <= per; p++ {
			msgID++
			role, words, extra := "user", 8, ""
			if p%2 == 0 {
				role, words = "assistant", 30
				if s.rng.IntN(2000) == 0 {
					extra = "zanzibark"
				}
			}
			content, vec := s.text(words, extra)
			msgs = append(msgs, msg{msgID, exID, parent, p, role, content, vec, updated.Add(-time.Duration(per-p) * time.Second)})
			parent = sql.NullInt64{Int64: msgID, Valid: true}
		}
	}
	if _, err := exStmt.Exec(); err != nil {
		b.Fatal(err)
	}
	_ = exStmt.Close()
	mStmt, err := tx.Prepare(pq.CopyIn("chat_message", "id", "exchange_id", "parent_id", "position", "role", "content", "status", "search", "created_at", "updated_at"))
	if err != nil {
		b.Fatal(err)
	}
	for _, m := range msgs {
		if _, err := mStmt.Exec(m.id, m.exchange, m.parent, m.position, m.role, m.content, "complete", m.vec, m.at, m.at); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := mStmt.Exec(); err != nil {
		b.Fatal(err)
	}
	_ = mStmt.Close()
	tx.MustExec(`SELECT setval('chat_exchange_id_seq', $1), setval('chat_message_id_seq', $2)`, exID, msgID)
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	s.cursors = nil
	return exID
}

func (s *historySeeder) analyze() {
	s.app.Store.DB.MustExec(`VACUUM ANALYZE chat_exchange`)
	s.app.Store.DB.MustExec(`VACUUM ANALYZE chat_message`)
}

func (s *historySeeder) history(after *db.HistoryCursor) {
	rows, err := s.app.Store.GeneralHistory(context.Background(), s.userID, after, 31)
	if err != nil || len(rows) != 31 {
		s.b.Fatalf("history page: %d rows, %v", len(rows), err)
	}
}

// cursorAt is the keyset cursor after the rank-th most recent conversation.
func (s *historySeeder) cursorAt(rank int) *db.HistoryCursor {
	var c struct {
		UpdatedAt time.Time `db:"updated_at"`
		ID        int64     `db:"id"`
	}
	if err := s.app.Store.DB.Get(&c, `SELECT updated_at, id FROM chat_exchange WHERE user_id = $1 AND page_id IS NULL AND deleted_at IS NULL
		ORDER BY updated_at DESC, id DESC OFFSET $2 LIMIT 1`, s.userID, rank-1); err != nil {
		s.b.Fatal(err)
	}
	return &db.HistoryCursor{UpdatedAt: c.UpdatedAt, ID: c.ID}
}

func (s *historySeeder) search(q string) {
	hits, err := s.app.Store.SearchConversations(context.Background(), s.userID, q, 30)
	if err != nil || len(hits) == 0 {
		s.b.Fatalf("search %q: %d hits, %v", q, len(hits), err)
	}
}

// explain runs each hot query once more on a connection with auto_explain, and writes the plans
// PostgreSQL reports (as notices) to test-artifacts/history-explain.txt.
func (s *historySeeder) explain(summary string, long int64, deep *db.HistoryCursor, word string) {
	var mu sync.Mutex
	var plans []string
	base, err := pq.NewConnector(s.app.Config.DatabaseURL)
	if err != nil {
		s.b.Fatal(err)
	}
	conn := sqlx.NewDb(sql.OpenDB(pq.ConnectorWithNoticeHandler(base, func(n *pq.Error) {
		mu.Lock()
		plans = append(plans, n.Message)
		mu.Unlock()
	})), "postgres")
	defer conn.Close()
	conn.SetMaxOpenConns(1)
	conn.MustExec(`LOAD 'auto_explain'`)
	conn.MustExec(`SET auto_explain.log_min_duration = 0; SET auto_explain.log_analyze = on; SET auto_explain.log_buffers = on; SET client_min_messages = log`)
	store := &db.Store{DB: conn}
	ctx := context.Background()
	var out strings.Builder
	out.WriteString(summary + "\n")
	step := func(name string, fn func()) {
		mu.Lock()
		plans = nil
		mu.Unlock()
		fn()
		mu.Lock()
		fmt.Fprintf(&out, "==== %s\n%s\n\n", name, strings.Join(plans, "\n"))
		mu.Unlock()
	}
	step("sidebar first page (GeneralHistory)", func() { _, _ = store.GeneralHistory(ctx, s.userID, nil, 31) })
	step("sidebar deep page, 50,000 in (GeneralHistory)", func() { _, _ = store.GeneralHistory(ctx, s.userID, deep, 31) })
	step("search "+word+" (SearchConversations)", func() { _, _ = store.SearchConversations(ctx, s.userID, word, 30) })
	step("search zanzibark (SearchConversations)", func() { _, _ = store.SearchConversations(ctx, s.userID, "zanzibark", 30) })
	step("open: newest 40 messages of 1,000 (ExchangeWindow)", func() { _, _, _ = store.ExchangeWindow(ctx, long, 0, 40) })
	step("open: older window (ExchangeWindow before=500)", func() { _, _, _ = store.ExchangeWindow(ctx, long, 500, 40) })
	dir := filepath.Join("..", "test-artifacts")
	_ = os.MkdirAll(dir, 0o755)
	file := filepath.Join(dir, "history-explain.txt")
	if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
		s.b.Fatal(err)
	}
	fmt.Printf("EXPLAIN ANALYZE of the hot queries: %s\n", file)
}
