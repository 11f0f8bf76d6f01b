package handlers_test

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
	"golang.org/x/crypto/bcrypt"

	"parley/accounts"
	"parley/config"
	"parley/db"
	"parley/db/dbtest"
	"parley/handlers/handlerstest"
)

// BenchmarkHistoryAtScale measures what a person waits for, over HTTP with real session cookies,
// on one instance seeded by COPY with 2.1M messages in 211k conversations of 1,006 people:
//
//   - ada has 100,000 conversations (1M messages), ben 10,000, cy 1,000, and 1,000 others 100 each;
//   - dee's newest conversation has 20,000 messages and was regenerated and edited along the way
//     (an older version of every 10th answer and every 50th question), eve's has 20,000 and never
//     branched, fay's has 2,000.
//
// It reports p50/p95 (ms) of: search for a word in ~1% of messages (targets: ada ≤ 30 ms, cy ≤ 15
// ms), and of the offline agent's search tool for it and a rare word (SQL); the sidebar, opening a conversation and that search at 1k / 10k / 100k conversations (the
// cost curve); opening, the sidebar's turn counts and a stream update's SQL for dee's branched
// conversation against eve's (targets ≤ 1.2×, stream SQL ≤ 2 ms); and opening fay's 2,000-message
// conversation against its SQL alone (target ≤ 1.5×), and loading its earlier messages. The two
// sides of each ratio are requested alternately (table.pair). The seeded instance is kept as a
// template (dbtest.Seeded) and copied in seconds on later runs. One table is printed at the end; the
// EXPLAIN (ANALYZE, BUFFERS) of each hot query, as the app runs it (auto_explain), goes to
// test-artifacts/scale-explain.txt.
func BenchmarkHistoryAtScale(b *testing.B) {
	names := []string{"ada", "ben", "cy", "dee", "eve", "fay"}
	seeded := dbtest.Seeded(b, "history_at_scale", 1, func(dsn string) { seedHistoryAtScale(b, dsn, names) })
	app := handlerstest.Start(b, func(c *config.Config) {
		c.DatabaseURL = seeded.DSN
		c.SearchTimeout = 30 * time.Second // measure the slow searches instead of stopping them
	})
	ctx := context.Background()
	people := map[string]*person{}
	for _, name := range names {
		p := &person{c: app.Client(b)}
		p.c.SignIn(name+"@example.com", "correct horse")
		if err := app.Store.DB.Get(&p.id, `SELECT id FROM users WHERE email = $1`, name+"@example.com"); err != nil {
			b.Fatal(err)
		}
		people[name] = p
	}
	ada, ben, cy, dee, eve, fay := people["ada"], people["ben"], people["cy"], people["dee"], people["eve"], people["fay"]
	seed := dbtest.NewSeeder(b, app.Store.DB)
	branched, branchedLast := seed.LongOf(b, dee.id)
	linear, linearLast := seed.LongOf(b, eve.id)
	long, _ := seed.LongOf(b, fay.id)
	var messages, conversations int
	_ = app.Store.DB.Get(&messages, `SELECT count(*) FROM chat_message`)
	_ = app.Store.DB.Get(&conversations, `SELECT count(*) FROM chat_exchange`)
	how := fmt.Sprintf("seeded by COPY in %s", seeded.Took)
	if seeded.Reused {
		how += " (reused from an earlier run)"
	}
	fmt.Printf("%d messages in %d conversations of 1,006 people, %s\n", messages, conversations, how)

	var t table
	word := seed.Common
	// Search: a word in ~1% of messages, then a more common one and a rare one.
	searchAda := t.http(b, "search 1% word, ada (1M messages)", ada.c, "/history/search?q="+word, "≤ 30 ms", 30)
	searchCy := t.http(b, "search 1% word, cy (10k messages)", cy.c, "/history/search?q="+word, "≤ 15 ms", 15)
	t.http(b, "search 5% word, ada", ada.c, "/history/search?q="+seed.Frequent, "", 0)
	t.http(b, "search rare word, ada", ada.c, "/history/search?q="+seed.Rare, "", 0)
	t.http(b, "search phrase, ada", ada.c, "/history/search?q="+fmt.Sprintf("%%22%s+%s%%22", word, seed.Vocabulary[7]), "", 0)
	// The offline agent's search tool (SearchWorkspace, its SQL: the turn runs it), for the same words.
	for _, w := range []struct{ name, q string }{{"1% word", word}, {"rare word", seed.Rare}} {
		t.run(b, "search tool "+w.name+", ada (SearchWorkspace SQL)", "", 0, func() {
			if _, err := app.Store.SearchWorkspace(ctx, ada.id, w.q, 0, 5); err != nil {
				b.Fatal(err)
			}
		})
	}

	// The cost curve: sidebar, a deep sidebar page, opening the newest conversation, search.
	curve := map[string][3]float64{}
	for i, p := range []*person{cy, ben, ada} {
		size := []string{"1k", "10k", "100k"}[i]
		sidebar := t.http(b, "sidebar (/chat/new), "+size+" conversations", p.c, "/chat/new", "", 0)
		next := p.nextPage(b)
		deep := t.http(b, "sidebar next page, "+size, p.c, next, "", 0)
		newest := p.newest(b, app)
		open := t.http(b, "open newest conversation, "+size, p.c, fmt.Sprintf("/sessions/%d/chat", newest), "", 0)
		search := searchCy
		if i == 1 {
			search = t.http(b, "search 1% word, ben (100k messages)", p.c, "/history/search?q="+word, "", 0)
		} else if i == 2 {
			search = searchAda
		}
		for k, v := range map[string]float64{"sidebar": sidebar.p50, "next page": deep.p50, "open": open.p50, "search": search.p50} {
			c := curve[k]
			c[i] = v
			curve[k] = c
		}
	}

	// Branched against never-branched, 20,000 messages each, and the 2,000-message page against its
	// SQL: each pair is timed alternately in one sub-benchmark, so the machine's load weighs on both.
	get := func(c *handlerstest.Client, path string) func() {
		return func() {
			if res := c.Get(path); res.Status != 200 {
				b.Fatalf("GET %s: %d", path, res.Status)
			}
		}
	}
	t.pair(b, "open 20k-message conversation", "branched (dee)", "never-branched (eve)",
		get(dee.c, fmt.Sprintf("/sessions/%d/chat", branched)), get(eve.c, fmt.Sprintf("/sessions/%d/chat", linear)), 1.2)
	t.pair(b, "sidebar with it (turn counts)", "dee's", "eve's", get(dee.c, "/chat/new"), get(eve.c, "/chat/new"), 1.2)
	tailB, _ := t.pair(b, "stream update SQL (ExchangeTail)", "branched", "never-branched", func() {
		if msgs, err := app.Store.ExchangeTail(ctx, branched, []int64{branchedLast}); err != nil || len(msgs) < 2 {
			b.Fatalf("tail: %d, %v", len(msgs), err)
		}
	}, func() {
		if msgs, err := app.Store.ExchangeTail(ctx, linear, []int64{linearLast}); err != nil || len(msgs) < 2 {
			b.Fatalf("tail: %d, %v", len(msgs), err)
		}
	}, 1.2)
	t.check("stream update SQL, branched (ExchangeTail) p50", tailB.p50, "≤ 2 ms", 2)

	// Opening fay's 2,000-message conversation against its SQL alone: the statements the page
	// runs (the session, the exchange, the newest window, its agents, the sidebar's page).
	sessions := accounts.Service{Store: app.Store, SessionTTL: time.Hour}
	token, err := sessions.StartSession(ctx, fay.id, "bench", "127.0.0.1")
	if err != nil {
		b.Fatal(err)
	}
	t.pair(b, "open 2,000-message conversation", "page", "its SQL", get(fay.c, fmt.Sprintf("/sessions/%d/chat", long)), func() {
		if _, err := sessions.UserForToken(ctx, token); err != nil {
			b.Fatal(err)
		}
		e, err := app.Store.OwnerExchange(ctx, db.Owner{UserID: fay.id}, long)
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := app.Store.ExchangeWindow(ctx, long, 0, 40); err != nil {
			b.Fatal(err)
		}
		if _, err := app.Store.AgentsByID(ctx, []int64{*e.AgentID}); err != nil {
			b.Fatal(err)
		}
		if _, err := app.Store.GeneralHistory(ctx, fay.id, nil, 31); err != nil {
			b.Fatal(err)
		}
	}, 1.5)

	// What the same person waits for when scrolling up: the window before the newest one.
	newest, _, err := app.Store.ExchangeWindow(ctx, long, 0, 40)
	if err != nil || len(newest) == 0 {
		b.Fatalf("window: %v", err)
	}
	t.http(b, "load earlier messages, 2,000-message conversation", fay.c, fmt.Sprintf("/sessions/%d/messages?before=%d", long, newest[0].Position), "", 0)

	for _, k := range []string{"sidebar", "next page", "open", "search"} {
		c := curve[k]
		t.ratio(fmt.Sprintf("%s at 1k / 10k / 100k: %.2f / %.2f / %.2f ms, 100k ÷ 1k", k, c[0], c[1], c[2]), c[2]/c[0], 0)
	}
	summary := fmt.Sprintf("%d messages, %d conversations, 1,006 people; %s\n%s", messages, conversations, how, t.String())
	fmt.Print(summary)
	explainHotQueries(b, app, summary, map[string]func(*db.Store){
		"search 1% word, ada (SearchConversations)": func(s *db.Store) { _, _ = s.SearchConversations(ctx, ada.id, word, 31) },
		"search 1% word, cy (SearchConversations)":  func(s *db.Store) { _, _ = s.SearchConversations(ctx, cy.id, word, 31) },
		"search 5% word, ada (SearchConversations)": func(s *db.Store) { _, _ = s.SearchConversations(ctx, ada.id, seed.Frequent, 31) },
		"search tool, ada (SearchWorkspace)":        func(s *db.Store) { _, _ = s.SearchWorkspace(ctx, ada.id, word, 0, 10) },
		"sidebar, ada (GeneralHistory)":             func(s *db.Store) { _, _ = s.GeneralHistory(ctx, ada.id, nil, 31) },
		"sidebar with a 20k branched conversation, dee (GeneralHistory)": func(s *db.Store) {
			_, _ = s.GeneralHistory(ctx, dee.id, nil, 31)
		},
		"open 20k branched: newest window (ExchangeWindow)": func(s *db.Store) { _, _, _ = s.ExchangeWindow(ctx, branched, 0, 40) },
		"open 20k branched: older window (ExchangeWindow)":  func(s *db.Store) { _, _, _ = s.ExchangeWindow(ctx, branched, 10_000, 40) },
		"open 20k never-branched: newest window (ExchangeWindow)": func(s *db.Store) {
			_, _, _ = s.ExchangeWindow(ctx, linear, 0, 40)
		},
		"open 20k branched: newest window with its versions (BranchWindow)": func(s *db.Store) {
			_, _, _, _ = s.BranchWindow(ctx, branched, 0, 40)
		},
		"stream update, 20k branched (ExchangeTail)": func(s *db.Store) { _, _ = s.ExchangeTail(ctx, branched, []int64{branchedLast}) },
		"open 2,000 messages: newest window (ExchangeWindow)": func(s *db.Store) {
			_, _, _ = s.ExchangeWindow(ctx, long, 0, 40)
		},
	})
}

// seedHistoryAtScale fills the database of dsn with the benchmark's instance: the people of names
// (password "correct horse"), 1,000 others, their conversations, and the three long ones.
func seedHistoryAtScale(b *testing.B, dsn string, names []string) {
	store, err := db.Open(context.Background(), dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	signUp := accounts.Service{Store: store, Cost: bcrypt.MinCost}
	ids := map[string]int64{}
	for _, name := range names {
		u, err := signUp.SignUp(context.Background(), accounts.SignUpInput{Email: name + "@example.com", DisplayName: name, Password: "correct horse"})
		if err != nil {
			b.Fatal(err)
		}
		ids[name] = u.ID
	}
	seed := dbtest.NewSeeder(b, store.DB)
	others := seed.Users(b, "someone", 1000)
	seed.Conversations(b, others, 100, 10)
	seed.Conversations(b, []int64{ids["ada"]}, 100_000, 10)
	seed.Conversations(b, []int64{ids["ben"]}, 10_000, 10)
	seed.Conversations(b, []int64{ids["cy"], ids["dee"], ids["eve"], ids["fay"]}, 1_000, 10)
	seed.Long(b, ids["dee"], 20_000, true)
	seed.Long(b, ids["eve"], 20_000, false)
	seed.Long(b, ids["fay"], 2_000, false)
	seed.Analyze(b)
}

// person is a signed-in account of the benchmark.
type person struct {
	c  *handlerstest.Client
	id int64
}

// nextPage is the sidebar's second page, as its "more" sentinel asks for it.
func (p *person) nextPage(b *testing.B) string {
	res := p.c.Get("/chat/new")
	d, err := goquery.NewDocumentFromReader(strings.NewReader(res.Body))
	if err != nil || res.Status != 200 {
		b.Fatalf("sidebar: %d, %v", res.Status, err)
	}
	next, ok := d.Find("[data-history-more]").Attr("hx-get")
	if !ok {
		b.Fatalf("sidebar: %d, no next page", res.Status)
	}
	return next
}

// newest is the person's most recently active conversation.
func (p *person) newest(b *testing.B, app *handlerstest.App) int64 {
	e, err := app.Store.LatestGeneralExchange(context.Background(), p.id)
	if err != nil {
		b.Fatal(err)
	}
	return e.ID
}

// figure is one measured row: p50 and p95 in milliseconds.
type figure struct{ p50, p95 float64 }

// table collects the benchmark's rows and prints them as one table.
type table struct{ rows []string }

// run times fn as a sub-benchmark (after one untimed call) and adds its p50/p95 row, checked against limit (ms; 0: none).
func (t *table) run(b *testing.B, name, target string, limit float64, fn func()) figure {
	var f figure
	b.Run(benchName(name), func(b *testing.B) {
		var times []time.Duration
		fn() // once untimed, to warm the caches
		for b.Loop() {
			started := time.Now()
			fn()
			times = append(times, time.Since(started))
		}
		f = quantiles(times)
		b.ReportMetric(f.p50, "p50-ms")
		b.ReportMetric(f.p95, "p95-ms")
	})
	t.rows = append(t.rows, fmt.Sprintf("| %-58s | %8.2f | %8.2f | %-8s | %s |", name, f.p50, f.p95, target, verdict(f.p50, limit)))
	return f
}

// pair times a and b alternately (a then b, then b then a, …) in one sub-benchmark, at least 300
// times each, so a change of the machine's load weighs on both alike. It adds a row for each and
// one for the ratio of a's p50 to b's, checked against limit (0: none): the median of that ratio
// over five consecutive blocks of the samples, reported as the sub-benchmark's "ratio".
func (t *table) pair(b *testing.B, name, nameA, nameB string, a, c func(), limit float64) (figure, figure) {
	const least, blocks = 300, 5
	var fa, fc figure
	var ratio float64
	b.Run(benchName(name), func(b *testing.B) {
		for range 10 { // warm both
			a()
			c()
		}
		var ta, tc []time.Duration
		one := func(fn func(), into *[]time.Duration) {
			started := time.Now()
			fn()
			*into = append(*into, time.Since(started))
		}
		step := func() {
			if len(ta)%2 == 0 {
				one(a, &ta)
				one(c, &tc)
			} else {
				one(c, &tc)
				one(a, &ta)
			}
		}
		for b.Loop() {
			step()
		}
		for len(ta) < least {
			step()
		}
		n := len(ta) / blocks
		ratios := make([]float64, blocks)
		for i := range ratios {
			ratios[i] = quantiles(ta[i*n:(i+1)*n]).p50 / quantiles(tc[i*n:(i+1)*n]).p50
		}
		slices.Sort(ratios)
		fa, fc, ratio = quantiles(ta), quantiles(tc), ratios[blocks/2]
		b.ReportMetric(fa.p50, "a-p50-ms")
		b.ReportMetric(fc.p50, "b-p50-ms")
		b.ReportMetric(ratio, "ratio")
	})
	t.rows = append(t.rows, fmt.Sprintf("| %-58s | %8.2f | %8.2f | %-8s | %s |", name+", "+nameA, fa.p50, fa.p95, "", ""))
	t.rows = append(t.rows, fmt.Sprintf("| %-58s | %8.2f | %8.2f | %-8s | %s |", name+", "+nameB, fc.p50, fc.p95, "", ""))
	t.ratio(name+": "+nameA+" / "+nameB, ratio, limit)
	return fa, fc
}

// check adds a row for a value measured in another row, checked against limit.
func (t *table) check(name string, v float64, target string, limit float64) {
	t.rows = append(t.rows, fmt.Sprintf("| %-58s | %8.2f | %8s | %-8s | %s |", name, v, "", target, verdict(v, limit)))
}

// quantiles is the p50 and p95 of times, in milliseconds.
func quantiles(times []time.Duration) figure {
	times = slices.Sorted(slices.Values(times))
	ms := func(q float64) float64 {
		return float64(times[min(len(times)-1, int(q*float64(len(times))))].Microseconds()) / 1000
	}
	return figure{ms(0.5), ms(0.95)}
}

// benchName is a row's name as a sub-benchmark's.
func benchName(name string) string {
	return strings.NewReplacer(" ", "-", ",", "", "(", "", ")", "", ":", "", "'", "").Replace(name)
}

// http times GET path for client c (htmx headers for fragments), which must answer 200.
func (t *table) http(b *testing.B, name string, c *handlerstest.Client, path, target string, limit float64) figure {
	fragment := strings.HasPrefix(path, "/history")
	get := func() {
		var res handlerstest.Response
		if fragment {
			res = htmxGet(c, path)
		} else {
			res = c.Get(path)
		}
		if res.Status != 200 {
			b.Fatalf("%s: GET %s: %d", name, path, res.Status)
		}
	}
	return t.run(b, name, target, limit, get)
}

// ratio adds a row for a ratio of two p50s, checked against limit (0: none).
func (t *table) ratio(name string, r, limit float64) {
	target := ""
	if limit > 0 {
		target = fmt.Sprintf("≤ %.1f×", limit)
	}
	t.rows = append(t.rows, fmt.Sprintf("| %-58s | %7.2f× | %8s | %-8s | %s |", name, r, "", target, verdict(r, limit)))
}

func verdict(v, limit float64) string {
	switch {
	case limit == 0:
		return ""
	case v <= limit:
		return "ok"
	default:
		return "MISSED"
	}
}

func (t *table) String() string {
	head := fmt.Sprintf("| %-58s | %8s | %8s | %-8s | %s |\n|%s|%s|%s|%s|%s|\n", "what (over HTTP unless SQL)", "p50 ms", "p95 ms", "target", "",
		strings.Repeat("-", 60), strings.Repeat("-", 10), strings.Repeat("-", 10), strings.Repeat("-", 10), "----")
	return head + strings.Join(t.rows, "\n") + "\n"
}

// explainHotQueries runs each query once more on a connection with auto_explain (ANALYZE,
// BUFFERS), and writes the plans PostgreSQL reports to test-artifacts/scale-explain.txt.
func explainHotQueries(b *testing.B, app *handlerstest.App, summary string, queries map[string]func(*db.Store)) {
	var mu sync.Mutex
	var plans []string
	base, err := pq.NewConnector(app.Config.DatabaseURL)
	if err != nil {
		b.Fatal(err)
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
	var out strings.Builder
	out.WriteString(summary + "\n")
	names := make([]string, 0, len(queries))
	for name := range queries {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		mu.Lock()
		plans = nil
		mu.Unlock()
		queries[name](store)
		mu.Lock()
		fmt.Fprintf(&out, "==== %s\n%s\n\n", name, strings.Join(plans, "\n"))
		mu.Unlock()
	}
	dir := filepath.Join("..", "test-artifacts")
	_ = os.MkdirAll(dir, 0o755)
	file := filepath.Join(dir, "scale-explain.txt")
	if err := os.WriteFile(file, []byte(out.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	fmt.Printf("EXPLAIN (ANALYZE, BUFFERS) of the hot queries: %s\n", file)
}
