package db_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"parley/db"
	"parley/db/dbtest"
)

// planRecorder is a Store whose connection has auto_explain on: every statement's plan arrives as
// a notice, in JSON, and is kept until taken.
type planRecorder struct {
	*db.Store
	mu    sync.Mutex
	plans []string
}

func newPlanRecorder(t *testing.T, dsn string) *planRecorder {
	t.Helper()
	r := &planRecorder{}
	base, err := pq.NewConnector(dsn)
	if err != nil {
		t.Fatal(err)
	}
	conn := sqlx.NewDb(sql.OpenDB(pq.ConnectorWithNoticeHandler(base, func(n *pq.Error) {
		r.mu.Lock()
		r.plans = append(r.plans, n.Message)
		r.mu.Unlock()
	})), "postgres")
	t.Cleanup(func() { conn.Close() })
	conn.SetMaxOpenConns(1)
	conn.MustExec(`LOAD 'auto_explain'`)
	conn.MustExec(`SET auto_explain.log_min_duration = 0; SET auto_explain.log_format = json; SET client_min_messages = log`)
	r.Store = &db.Store{DB: conn}
	return r
}

// take returns the plans recorded since the last take.
func (r *planRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.plans
	r.plans = nil
	return out
}

// seqScans lists the chat tables that a recorded plan reads by sequential scan.
func seqScans(t *testing.T, plans []string) []string {
	t.Helper()
	var found []string
	var walk func(node map[string]any)
	walk = func(node map[string]any) {
		if node["Node Type"] == "Seq Scan" {
			if rel, _ := node["Relation Name"].(string); rel == "chat_message" || rel == "chat_exchange" {
				found = append(found, rel)
			}
		}
		kids, _ := node["Plans"].([]any)
		for _, k := range kids {
			if m, ok := k.(map[string]any); ok {
				walk(m)
			}
		}
	}
	for _, p := range plans {
		i := strings.Index(p, "{")
		if i < 0 {
			continue
		}
		var doc struct {
			Plan map[string]any `json:"Plan"`
		}
		if err := json.Unmarshal([]byte(p[i:]), &doc); err != nil {
			t.Fatalf("reading a plan: %v\n%s", err, p)
		}
		walk(doc.Plan)
	}
	return found
}

// planCase is one hot query whose plans are checked.
type planCase struct {
	name string
	run  func() error
}

// perRowQueries lists the conditions of recorded plans that parse the search words for every row
// they check (websearch_to_tsquery inline, not an InitPlan's result).
func perRowQueries(t *testing.T, plans []string) []string {
	t.Helper()
	var found []string
	var walk func(node map[string]any)
	walk = func(node map[string]any) {
		for _, key := range []string{"Filter", "Index Cond", "Recheck Cond", "Join Filter"} {
			if c, _ := node[key].(string); strings.Contains(c, "websearch_to_tsquery") {
				found = append(found, key+": "+c)
			}
		}
		kids, _ := node["Plans"].([]any)
		for _, k := range kids {
			if m, ok := k.(map[string]any); ok {
				walk(m)
			}
		}
	}
	for _, p := range plans {
		i := strings.Index(p, "{")
		if i < 0 {
			continue
		}
		var doc struct {
			Plan map[string]any `json:"Plan"`
		}
		if err := json.Unmarshal([]byte(p[i:]), &doc); err != nil {
			t.Fatalf("reading a plan: %v\n%s", err, p)
		}
		walk(doc.Plan)
	}
	return found
}

// The hot chat queries (search, the window and its versions, a stream's tail, the sidebar's turn counts) read the
// chat tables through indexes, never by a sequential scan, on an instance large and analyzed
// enough that the planner chooses honestly: one person with 2,000 conversations, one with 100, 50
// others, a branched 2,000-message conversation (about 33,000 messages in all).
func TestHotChatQueriesNeverScanAChatTable(t *testing.T) {
	ctx := context.Background()
	dsn := dbtest.URL(t)
	store, err := db.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	seed := dbtest.NewSeeder(t, store.DB)
	users := seed.Users(t, "plan", 52)
	big, small := users[0], users[1]
	seed.Conversations(t, users[:1], 2000, 10)
	seed.Conversations(t, users[1:2], 100, 10)
	seed.Conversations(t, users[2:], 20, 10)
	long, last := seed.Long(t, big, 2000, true)
	seed.Analyze(t)

	r := newPlanRecorder(t, dsn)
	// The detector itself finds a sequential scan where there is one.
	r.DB.MustExec(`SELECT count(*) FROM chat_message WHERE content LIKE '%zzz%'`)
	if got := seqScans(t, r.take()); len(got) != 1 {
		t.Fatalf("the plan detector missed a sequential scan: %v", got)
	}
	// The searches run as prepared statements (searchConversations, searchWorkspace): PostgreSQL may reuse their
	// generic plans, which read the indexes too and, like the custom ones, parse the words once.
	searches := func(r *planRecorder) []planCase {
		return []planCase{
			{"search, 1% word, 2,000 conversations", func() error {
				_, err := r.SearchConversations(ctx, big, seed.Common, 31)
				return err
			}},
			{"search, 1% word, 100 conversations", func() error {
				_, err := r.SearchConversations(ctx, small, seed.Common, 31)
				return err
			}},
			{"search, a word common for the person (their newest messages)", func() error {
				_, err := db.SearchConversationsWith(r.Store, ctx, big, seed.Common, 31, 50, 5000)
				return err
			}},
			{"search, a word common for the person but not in their newest messages (every match)", func() error {
				_, err := db.SearchConversationsWith(r.Store, ctx, big, seed.Common, 31, 50, 100)
				return err
			}},
			{"search, 5% word and a phrase", func() error {
				_, err := r.SearchConversations(ctx, big, seed.Frequent+` "`+seed.Common+` `+seed.Vocabulary[5]+`"`, 31)
				return err
			}},
			{"workspace search (the search tool)", func() error {
				_, err := r.SearchWorkspace(ctx, big, seed.Common, 0, 10)
				return err
			}},
			{"workspace search, a word common for the person (their newest messages)", func() error {
				_, err := db.SearchWorkspaceWith(r.Store, ctx, big, seed.Common, long, 10, 50, 5000)
				return err
			}},
			{"workspace search, a word common for the person but not in their newest messages (every match)", func() error {
				_, err := db.SearchWorkspaceWith(r.Store, ctx, big, seed.Common, long, 10, 50, 100)
				return err
			}},
			{"workspace search, a rare word", func() error {
				_, err := r.SearchWorkspace(ctx, big, seed.Rare, 0, 10)
				return err
			}},
		}
	}
	cases := append(searches(r), []planCase{
		{"window, newest", func() error {
			_, _, err := r.ExchangeWindow(ctx, long, 0, 40)
			return err
		}},
		{"window, older", func() error {
			_, _, err := r.ExchangeWindow(ctx, long, 1000, 40)
			return err
		}},
		{"branched window with its versions, newest", func() error {
			_, _, _, err := r.BranchWindow(ctx, long, 0, 40)
			return err
		}},
		{"branched window with its versions, older", func() error {
			_, _, _, err := r.BranchWindow(ctx, long, 1000, 40)
			return err
		}},
		{"versions of a stream's changed messages", func() error {
			_, err := r.BranchSiblings(ctx, long, []int64{last, last - 1})
			return err
		}},
		{"range", func() error {
			_, _, err := r.ExchangeRange(ctx, long, 900, 1000)
			return err
		}},
		{"stream tail", func() error {
			_, err := r.ExchangeTail(ctx, long, []int64{last})
			return err
		}},
		{"sidebar turn counts", func() error {
			_, err := r.GeneralHistory(ctx, big, nil, 31)
			return err
		}},
		{"one sidebar row", func() error {
			_, err := r.ExchangeSummaryByID(ctx, big, long)
			return err
		}},
	}...)
	generic := newPlanRecorder(t, dsn)
	generic.SetPrepared(true)
	generic.DB.MustExec(`SET plan_cache_mode = force_generic_plan`)
	for _, c := range searches(generic) {
		c.name += ", generic plan"
		cases = append(cases, c)
	}
	for _, c := range cases {
		if err := c.run(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		plans := append(r.take(), generic.take()...)
		if len(plans) == 0 {
			t.Fatalf("%s: no plan recorded", c.name)
		}
		if scans := seqScans(t, plans); len(scans) > 0 {
			t.Errorf("%s: sequential scan of %v:\n%s", c.name, scans, strings.Join(plans, "\n"))
		}
		if calls := perRowQueries(t, plans); len(calls) > 0 {
			t.Errorf("%s: the search words are parsed for every row checked:\n%s", c.name, strings.Join(calls, "\n"))
		}
	}
	var custom, generics int64
	if err := generic.DB.QueryRow(`SELECT coalesce(sum(custom_plans), 0), coalesce(sum(generic_plans), 0) FROM pg_prepared_statements`).Scan(&custom, &generics); err != nil {
		t.Fatal(err)
	}
	if custom != 0 || generics == 0 {
		t.Fatalf("the generic pass ran %d custom and %d generic plans, want generic plans only", custom, generics)
	}
}
