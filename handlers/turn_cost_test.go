package handlers_test

import (
	"fmt"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"

	"parley/config"
	"parley/db"
	"parley/db/dbtest"
)

// Statement budget of one chat turn, as PostgreSQL's statement log counts it: the POST (session,
// exchange, the agent with the router's specialists, and the one statement that takes the message
// from the shared rate limit and stores the query and the pending answer already claimed by its
// generation's lease) and the whole generation of the offline agent's answer (history; the write
// of its reasoning and its search tool call with the answer marked streaming; the search; the
// final write of the answer, indexed, with the call's outcome and output). It was 37 statements
// and 11 commits, then 17 and 6, then 10 and 4 with the rate-limit UPSERT on its own; issue 10
// asks ≤ 10 and ≤ 3. A quiet turn runs 9; the pin is the 10, because once in a loaded
// `make test` run (load ~18) a turn logged one SELECT more with its 3 commits.
//
// The batched NOTIFY for the other instances counts as one statement: the notifier gathers a
// turn's notices for 20 ms, so a turn sends one on a quiet machine and more when it outlasts that
// window (never more than one per notice: the query, the pending answer, and each write of the
// answer and of its reasoning and tool items).
const (
	maxStatementsPerTurn = 10
	maxCommitsPerTurn    = 3
	maxNotifiesPerTurn   = 8
)

// A follow-up chat turn with the offline agent stays within its SQL statement and commit budget,
// counted by PostgreSQL itself (log_statement), not by reading the code.
func TestChatTurnStaysWithinItsStatementBudget(t *testing.T) {
	var log *dbtest.StatementLog
	var quiet *sqlx.DB // the test's own reads, kept out of the log
	_, c := signedIn(t, func(cfg *config.Config) {
		cfg.OfflineDelay = 0
		log = dbtest.LogStatements(t, cfg.DatabaseURL)
		var err error
		if quiet, err = sqlx.Open("postgres", cfg.DatabaseURL+"&options=-c%20log_statement%3Dnone"); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { quiet.Close() })
	})
	id := exchangeFromPush(t, htmxPost(c, "/chat/messages", url.Values{"query": {"hello there"}, "idempotency_key": {"first"}}))
	waitQuiet(t, quiet, id, 1)

	for turn := 2; turn <= 3; turn++ {
		mark := log.Mark()
		res := htmxPost(c, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"what did I write about gardens"}, "idempotency_key": {fmt.Sprintf("k%d", turn)}})
		if res.Status != 200 {
			t.Fatalf("turn %d: status %d\n%s", turn, res.Status, res.Body)
		}
		waitQuiet(t, quiet, id, turn)
		stmts := settledStatements(log, mark)
		var lines []string
		notifies := 0
		for _, s := range stmts {
			lines = append(lines, fmt.Sprintf("  [%d] %.160s", s.PID, s.Text))
			if strings.HasPrefix(s.Text, "SELECT pg_notify(") {
				notifies++
			}
		}
		// The notifier sends what it gathered in each 20 ms (chat's noticeLinger): how many NOTIFY
		// statements a turn costs depends on how long it takes (one here, three under -race at
		// load 16), so they count as one.
		counted := len(stmts) - notifies + min(notifies, 1)
		commits := dbtest.Commits(stmts)
		t.Logf("turn %d: %d statements (%d NOTIFY), %d commits:\n%s", turn, len(stmts), notifies, commits, strings.Join(lines, "\n"))
		if counted > maxStatementsPerTurn || commits > maxCommitsPerTurn {
			t.Errorf("turn %d ran %d statements (NOTIFY batches counted once) with %d commits, want at most %d and %d", turn, counted, commits, maxStatementsPerTurn, maxCommitsPerTurn)
		}
		if notifies < 1 || notifies > maxNotifiesPerTurn {
			t.Errorf("turn %d sent %d NOTIFY batches, want 1 to %d", turn, notifies, maxNotifiesPerTurn)
		}
		if len(stmts) < 3 {
			t.Errorf("turn %d: only %d statements logged; is log_statement working?", turn, len(stmts))
		}
	}
}

// settledStatements returns the statements logged since mark once no new one has come for 200 ms
// (at most 5 s): the notifier's batched NOTIFY follows the last write by 20 ms or, on a loaded
// machine, much more, and would otherwise be counted in the next turn.
func settledStatements(log *dbtest.StatementLog, mark int64) []dbtest.Statement {
	stmts := log.Since(mark)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		more := log.Since(mark)
		if len(more) == len(stmts) {
			break
		}
		stmts = more
	}
	return stmts
}

// waitQuiet waits until the exchange's answer of turn n is finished and indexed, reading through a
// connection that does not log.
func waitQuiet(t *testing.T, quiet *sqlx.DB, exchangeID int64, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		var done int
		err := quiet.Get(&done, `SELECT count(*) FROM chat_message WHERE exchange_id = $1 AND role = 'assistant'
			AND status NOT IN ('`+db.StatusPending+`', '`+db.StatusStreaming+`') AND search IS NOT NULL`, exchangeID)
		if err != nil {
			t.Fatal(err)
		}
		if done >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("turn %d of exchange %d did not finish", n, exchangeID)
}
