package dbtest

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Seeder writes realistic conversations fast, with COPY, for plan tests and benchmarks at scale:
// made-up words that PostgreSQL's english configuration keeps as they are, so the seeder writes
// the search vectors itself instead of PostgreSQL computing millions of them. Words have known
// frequencies: Common is in about 1% of messages, Frequent in about 5%, Rare in about 0.05%, and
// every other vocabulary word in about 1%.
type Seeder struct {
	DB         *sqlx.DB
	Vocabulary []string
	Common     string
	Frequent   string
	Rare       string
	rng        *rand.Rand
	agentID    int64
}

// NewSeeder builds the vocabulary (2,000 words) on conn's database, deterministically.
func NewSeeder(t testing.TB, conn *sqlx.DB) *Seeder {
	t.Helper()
	s := &Seeder{DB: conn, rng: rand.New(rand.NewPCG(1, 2)), Rare: "zanzibark"}
	syllables := strings.Fields("ba do ka lu mi no pe ri sa to vu we xa yo za bre cli dra fro glu kra plo sni tre vla")
	var words []string
	for len(words) < 2600 {
		words = append(words, syllables[s.rng.IntN(len(syllables))]+syllables[s.rng.IntN(len(syllables))]+syllables[s.rng.IntN(len(syllables))]+"k")
	}
	slices.Sort(words)
	words = slices.Compact(words)
	if err := conn.Select(&s.Vocabulary, `SELECT w FROM unnest($1::text[]) w
		WHERE to_tsvector('english', w)::text = quote_literal(w) || ':1' AND w <> 'zanzibark' ORDER BY w LIMIT 2000`, pq.Array(words)); err != nil {
		t.Fatal(err)
	}
	s.Common, s.Frequent = s.Vocabulary[0], s.Vocabulary[1]
	if err := conn.Get(&s.agentID, `SELECT id FROM agents WHERE identifier = 'auto'`); err != nil {
		t.Fatal(err)
	}
	return s
}

// text is n words, with the marked words at their frequencies, and its tsvector literal.
func (s *Seeder) text(n int) (string, string) {
	var content, vec strings.Builder
	marked := ""
	switch r := s.rng.IntN(10000); {
	case r < 100:
		marked = s.Common
	case r < 600:
		marked = s.Frequent
	case r < 605:
		marked = s.Rare
	}
	for i := range n {
		w := s.Vocabulary[2+s.rng.IntN(len(s.Vocabulary)-2)]
		if i == n/2 && marked != "" {
			w = marked
		}
		if i > 0 {
			content.WriteByte(' ')
			vec.WriteByte(' ')
		}
		content.WriteString(w)
		vec.WriteString(w)
		vec.WriteByte(':')
		vec.WriteString(strconv.Itoa(i + 1))
	}
	return content.String(), vec.String()
}

// Users adds n users (who cannot sign in: their password hash is not bcrypt) and returns their ids.
func (s *Seeder) Users(t testing.TB, prefix string, n int) []int64 {
	t.Helper()
	var ids []int64
	if err := s.DB.Select(&ids, `INSERT INTO users (email, display_name, password_hash)
		SELECT $1 || i || '@example.com', $1 || i, '!' FROM generate_series(1, $2) i RETURNING id`, prefix, n); err != nil {
		t.Fatal(err)
	}
	return ids
}

// message is one row for COPY into chat_message.
type message struct {
	parent   int64
	position int
	role     string
}

// Conversations adds, for each user, perUser general conversations of messages messages each
// (alternating query and answer, one line), active at random times over the last two years.
func (s *Seeder) Conversations(t testing.TB, users []int64, perUser, messages int) {
	t.Helper()
	s.copy(t, len(users)*perUser, func(i int) (int64, time.Time, []message) {
		ms := make([]message, messages)
		for p := range ms {
			ms[p] = message{position: p + 1, role: []string{"user", "assistant"}[p%2], parent: int64(p)}
		}
		return users[i/perUser], time.Now().Add(-time.Hour - time.Duration(s.rng.Int64N(int64(2*365*24*time.Hour)))), ms
	})
}

// Long adds one conversation of n messages for the user, the user's newest, and returns its id
// and the id of its last answer. A branched one has, like a conversation people regenerate and
// edit in, an older version of every 10th answer and of every 50th question (with its answer); its
// branch on screen is the newest versions.
func (s *Seeder) Long(t testing.TB, userID int64, n int, branched bool) (int64, int64) {
	t.Helper()
	ms := make([]message, 0, n)
	// parent is a 1-based index into ms (0: none), turned into ids by copy.
	var prevAnswer int64
	for turn := 1; len(ms) < n; turn++ {
		add := func(role string, parent int64) int64 {
			ms = append(ms, message{position: len(ms) + 1, role: role, parent: parent})
			return int64(len(ms))
		}
		if branched && turn%50 == 0 && len(ms)+4 <= n {
			old := add("user", prevAnswer)
			add("assistant", old)
		}
		q := add("user", prevAnswer)
		if len(ms) >= n {
			break
		}
		if branched && turn%10 == 0 && len(ms)+2 <= n {
			add("assistant", q)
		}
		prevAnswer = add("assistant", q)
	}
	s.copy(t, 1, func(int) (int64, time.Time, []message) { return userID, time.Now(), ms })
	exchangeID, last := s.LongOf(t, userID)
	if branched {
		s.DB.MustExec(`UPDATE chat_exchange SET leaf_message_id = $2 WHERE id = $1`, exchangeID, last)
	}
	return exchangeID, last
}

// LongOf finds, in a seeded database, the conversation Long added for the user (the user's last
// one) and the id of its last answer, as Long returned them.
func (s *Seeder) LongOf(t testing.TB, userID int64) (int64, int64) {
	t.Helper()
	var exchangeID, last int64
	if err := s.DB.Get(&exchangeID, `SELECT max(id) FROM chat_exchange WHERE user_id = $1`, userID); err != nil {
		t.Fatal(err)
	}
	if err := s.DB.Get(&last, `SELECT id FROM chat_message WHERE exchange_id = $1 AND role = 'assistant' ORDER BY position DESC LIMIT 1`, exchangeID); err != nil {
		t.Fatal(err)
	}
	return exchangeID, last
}

// copy writes n conversations, conversation(i) giving the owner, the last activity and the
// messages (parent as a 1-based index among them, 0 for none) of the i-th, in one transaction.
func (s *Seeder) copy(t testing.TB, n int, conversation func(i int) (int64, time.Time, []message)) {
	t.Helper()
	var exID, msgID int64
	if err := s.DB.Get(&exID, `SELECT coalesce(max(id), 0) FROM chat_exchange`); err != nil {
		t.Fatal(err)
	}
	if err := s.DB.Get(&msgID, `SELECT coalesce(max(id), 0) FROM chat_message`); err != nil {
		t.Fatal(err)
	}
	tx := s.DB.MustBegin()
	defer func() { _ = tx.Rollback() }()
	tx.MustExec(`SET LOCAL synchronous_commit = off`)
	type exchange struct {
		owner int64
		at    time.Time
		msgs  []message
	}
	exchanges := make([]exchange, n)
	exStmt, err := tx.Prepare(pq.CopyIn("chat_exchange", "id", "user_id", "agent_id", "title", "created_at", "updated_at"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range exchanges {
		owner, at, msgs := conversation(i)
		exchanges[i] = exchange{owner, at, msgs}
		title, _ := s.text(4)
		if _, err := exStmt.Exec(exID+int64(i)+1, owner, s.agentID, title, at.Add(-time.Hour), at); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := exStmt.Exec(); err != nil {
		t.Fatal(err)
	}
	_ = exStmt.Close()
	mStmt, err := tx.Prepare(pq.CopyIn("chat_message", "id", "exchange_id", "parent_id", "position", "role", "content", "status", "search", "created_at", "updated_at"))
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range exchanges {
		first := msgID
		for _, m := range e.msgs {
			msgID++
			words := 8
			if m.role == "assistant" {
				words = 30
			}
			content, vec := s.text(words)
			parent := sql.NullInt64{Int64: first + m.parent, Valid: m.parent != 0}
			at := e.at.Add(-time.Duration(len(e.msgs)-m.position) * time.Second)
			if _, err := mStmt.Exec(msgID, exID+int64(i)+1, parent, m.position, m.role, content, "complete", vec, at, at); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := mStmt.Exec(); err != nil {
		t.Fatal(err)
	}
	_ = mStmt.Close()
	tx.MustExec(`SELECT setval('chat_exchange_id_seq', $1), setval('chat_message_id_seq', $2)`, exID+int64(n), msgID)
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// Analyze vacuums and analyzes the chat tables, as autovacuum would after a load: it merges the
// GIN pending lists and sets the visibility map that index-only counts need.
func (s *Seeder) Analyze(t testing.TB) {
	t.Helper()
	for _, table := range []string{"users", "chat_exchange", "chat_message"} {
		if _, err := s.DB.Exec(`VACUUM ANALYZE ` + table); err != nil {
			t.Fatal(fmt.Errorf("vacuum %s: %w", table, err))
		}
	}
}
