package dbtest

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/jmoiron/sqlx"
)

// StatementLog reads the statements one test database ran from PostgreSQL's own statement log:
// LogStatements sets log_statement = 'all' for that database only (so other tests' databases
// stay quiet), and Since reads the server log through pg_read_file as the admin role. It needs the
// server log in the data directory (db/localpg.sh writes server.log there) and a superuser
// PARLEY_TEST_DATABASE_URL, as the private cluster has; otherwise the test fails saying so.
type StatementLog struct {
	t     testing.TB
	admin *sqlx.DB
	file  string
}

// Statement is one logged statement: the backend's process id and the SQL text (parameters are
// not included).
type Statement struct {
	PID  int
	Text string
}

// LogStatements turns on statement logging for the database of dsn (one from URL) and returns the
// log reader. Only connections opened afterwards log, so call it before opening the database.
func LogStatements(t testing.TB, dsn string) *StatementLog {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	admin, err := sqlx.Open("postgres", AdminURL(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.Close() })
	if _, err := admin.Exec(`ALTER DATABASE ` + name + ` SET log_statement = 'all'`); err != nil {
		t.Fatalf("dbtest: statement logging needs a superuser PARLEY_TEST_DATABASE_URL: %v", err)
	}
	l := &StatementLog{t: t, admin: admin}
	if err := admin.Get(&l.file, `SELECT coalesce(pg_current_logfile(), 'server.log')`); err != nil {
		t.Fatal(err)
	}
	return l
}

// Mark is the log's current size in bytes, to pass to Since.
func (l *StatementLog) Mark() int64 {
	l.t.Helper()
	var size int64
	if err := l.admin.Get(&size, `SELECT size FROM pg_stat_file($1)`, l.file); err != nil {
		l.t.Fatalf("dbtest: the server log %s is not readable (statement counts read it): %v", l.file, err)
	}
	return size
}

// logLine is a log_statement line under the default log_line_prefix '%m [%p] ': the statement of a
// simple query ("statement: …") or of an extended-protocol execute ("execute <unnamed>: …").
var logLine = regexp.MustCompile(`^\S+ \S+ \S+ \[(\d+)\] LOG:  (?:statement|execute [^:]*): (.*)$`)

// Since returns the statements logged after mark, in log order. Lines of a multi-line statement
// are joined with spaces.
func (l *StatementLog) Since(mark int64) []Statement {
	l.t.Helper()
	var text string
	if err := l.admin.Get(&text, `SELECT pg_read_file($1, $2, $3)`, l.file, mark, l.Mark()-mark); err != nil {
		l.t.Fatalf("dbtest: reading the server log: %v", err)
	}
	var out []Statement
	inStatement := false
	for _, line := range strings.Split(text, "\n") {
		if m := logLine.FindStringSubmatch(line); m != nil {
			var pid int
			fmt.Sscan(m[1], &pid)
			out = append(out, Statement{PID: pid, Text: m[2]})
			inStatement = true
			continue
		}
		if inStatement && strings.HasPrefix(line, "\t") {
			out[len(out)-1].Text += " " + strings.TrimSpace(line)
			continue
		}
		inStatement = false
	}
	return out
}

var writes = regexp.MustCompile(`(?i)\b(INSERT|UPDATE|DELETE)\b`)

// Commits counts the transactions among stmts that may have written: every COMMIT, plus each
// INSERT, UPDATE or DELETE run outside a transaction block (which commits on its own).
func Commits(stmts []Statement) int {
	inTx := map[int]bool{}
	n := 0
	for _, s := range stmts {
		word := strings.ToUpper(strings.Fields(s.Text + " ")[0])
		switch {
		case word == "BEGIN" || word == "START":
			inTx[s.PID] = true
		case word == "COMMIT" || word == "END":
			inTx[s.PID] = false
			n++
		case word == "ROLLBACK" || word == "ABORT":
			inTx[s.PID] = false
		case !inTx[s.PID] && writes.MatchString(s.Text) && word != "SELECT":
			n++
		}
	}
	return n
}
