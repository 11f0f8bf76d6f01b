package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// ImportedExchange is one conversation brought in from an export (package imports builds it):
// where it came from, its title and times, and its messages as a tree in Parley's shape
// (branches.go): a user message's parent is the answer it follows, an answer's parent is its user
// message, reasoning and tool items hang off their answer.
type ImportedExchange struct {
	// Source is the export's format (chatgpt, openwebui, librechat, parley); Key is the
	// conversation's id in it. The pair is unique per owner: importing it again adds nothing.
	Source, Key string
	Title       string
	Model       string
	// AgentID is kept only when that agent exists here (a Parley export re-imported).
	AgentID              *int64
	CreatedAt, UpdatedAt time.Time
	// Messages are in display order: each after the message it follows, an answer's items just
	// before it, versions of one message in the order they were written.
	Messages []ImportedMessage
	// Leaf is the index in Messages of the answer ending the branch to show, or -1 when the
	// conversation never branched (every message is then on screen).
	Leaf int
}

// ImportedMessage is one message of an ImportedExchange. Parent is the index of its parent in
// Messages (-1 for none); Position 0 is the message's place in Messages (from 1); Status "" is
// complete.
type ImportedMessage struct {
	Parent, Position                                int
	Role, Content, Status                           string
	AgentID                                         *int64
	AgentType                                       string
	ToolName, ToolCallID, ToolArguments, ToolResult string
	DurationMS                                      *int
	Metadata                                        json.RawMessage
	Feedback                                        *string
	FeedbackReason                                  string
	// UpdatedAt zero is CreatedAt.
	CreatedAt, UpdatedAt time.Time
}

// InsertImported stores one imported conversation for user in one transaction and returns its
// exchange id, or 0 and no error when the user already has the conversation (same Source and Key):
// then nothing is written. All messages go in one INSERT … SELECT FROM unnest, with ids taken from
// the sequence beforehand so parents are known; user messages and answers get their search vectors
// in the same statement, so the conversation is searchable as soon as it commits.
func (s *Store) InsertImported(ctx context.Context, userID int64, x ImportedExchange) (int64, error) {
	var exchangeID int64
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		err := tx.GetContext(ctx, &exchangeID, `INSERT INTO chat_exchange
				(user_id, agent_id, title, model, created_at, updated_at, import_source, import_key)
			VALUES ($1, (SELECT id FROM agents WHERE id = $2), $3, $4, $5, $6, $7, $8)
			ON CONFLICT (user_id, import_source, import_key) WHERE import_key IS NOT NULL DO NOTHING
			RETURNING id`, userID, x.AgentID, x.Title, x.Model, x.CreatedAt, x.UpdatedAt, x.Source, x.Key)
		if errors.Is(err, sql.ErrNoRows) {
			exchangeID = 0
			return nil // already imported
		}
		if err != nil {
			return err
		}
		n := len(x.Messages)
		if n == 0 {
			return nil
		}
		var ids []int64
		if err := tx.SelectContext(ctx, &ids, `SELECT nextval('chat_message_id_seq') FROM generate_series(1, $1) ORDER BY 1`, n); err != nil {
			return err
		}
		cols := importColumns{}
		for i, m := range x.Messages {
			if m.Parent >= n || m.Parent == i {
				return fmt.Errorf("db: imported message %d has parent %d", i, m.Parent)
			}
			cols.add(ids, i, m)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO chat_message (id, exchange_id, parent_id, position, role, content, status,
				agent_id, agent_type, tool_name, tool_call_id, tool_arguments, tool_result, duration_ms, metadata,
				feedback, feedback_reason, feedback_at, search, created_at, updated_at)
			SELECT u.id, $1, u.parent_id, u.position, u.role, u.content, u.status,
				(SELECT id FROM agents WHERE id = u.agent_id), u.agent_type, u.tool_name, u.tool_call_id, u.tool_arguments,
				u.tool_result, u.duration_ms, u.metadata::jsonb, u.feedback, u.feedback_reason,
				CASE WHEN u.feedback IS NOT NULL THEN u.created_at END,
				CASE WHEN u.role IN ('user', 'assistant') THEN to_tsvector('english', left(u.content, 300000)) END, u.created_at, u.updated_at
			FROM unnest($2::bigint[], $3::bigint[], $4::int[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[],
				$10::text[], $11::text[], $12::text[], $13::text[], $14::int[], $15::text[], $16::text[], $17::text[],
				$18::timestamptz[], $19::timestamptz[])
				AS u(id, parent_id, position, role, content, status, agent_id, agent_type, tool_name, tool_call_id,
				tool_arguments, tool_result, duration_ms, metadata, feedback, feedback_reason, created_at, updated_at)`,
			exchangeID, pq.Array(cols.id), pq.Array(cols.parent), pq.Array(cols.position), pq.Array(cols.role),
			pq.Array(cols.content), pq.Array(cols.status), pq.Array(cols.agent), pq.Array(cols.agentType),
			pq.Array(cols.toolName), pq.Array(cols.toolCallID), pq.Array(cols.toolArgs), pq.Array(cols.toolResult),
			pq.Array(cols.duration), pq.Array(cols.metadata), pq.Array(cols.feedback), pq.Array(cols.feedbackReason),
			pq.Array(cols.created), pq.Array(cols.updated)); err != nil {
			return err
		}
		if x.Leaf < 0 || x.Leaf >= n {
			return nil
		}
		_, err = tx.ExecContext(ctx, `UPDATE chat_exchange SET leaf_message_id = $2 WHERE id = $1`, exchangeID, ids[x.Leaf])
		return err
	})
	if isUniqueViolation(err, "chat_exchange_import_key") {
		return 0, nil // a concurrent import of the same file stored it first
	}
	return exchangeID, notFound(err, "insert imported exchange")
}

// importColumns holds an imported conversation's messages column by column, for unnest.
type importColumns struct {
	id, parent, agent                                []sql.NullInt64
	position, duration                               []sql.NullInt32
	role, content, status, agentType, toolName       []string
	toolCallID, toolArgs, toolResult, feedbackReason []string
	metadata, feedback                               []sql.NullString
	created, updated                                 []time.Time
}

func (c *importColumns) add(ids []int64, i int, m ImportedMessage) {
	c.id = append(c.id, sql.NullInt64{Int64: ids[i], Valid: true})
	parent := sql.NullInt64{}
	if m.Parent >= 0 {
		parent = sql.NullInt64{Int64: ids[m.Parent], Valid: true}
	}
	c.parent = append(c.parent, parent)
	pos := m.Position
	if pos == 0 {
		pos = i + 1
	}
	c.position = append(c.position, sql.NullInt32{Int32: int32(pos), Valid: true})
	status := m.Status
	if status == "" {
		status = StatusComplete
	}
	c.role, c.content, c.status = append(c.role, m.Role), append(c.content, m.Content), append(c.status, status)
	agent := sql.NullInt64{}
	if m.AgentID != nil {
		agent = sql.NullInt64{Int64: *m.AgentID, Valid: true}
	}
	c.agent, c.agentType = append(c.agent, agent), append(c.agentType, m.AgentType)
	c.toolName, c.toolCallID = append(c.toolName, m.ToolName), append(c.toolCallID, m.ToolCallID)
	c.toolArgs, c.toolResult = append(c.toolArgs, m.ToolArguments), append(c.toolResult, m.ToolResult)
	duration := sql.NullInt32{}
	if m.DurationMS != nil {
		duration = sql.NullInt32{Int32: int32(*m.DurationMS), Valid: true}
	}
	c.duration = append(c.duration, duration)
	meta := sql.NullString{String: "{}", Valid: true}
	if len(m.Metadata) > 0 && string(m.Metadata) != "null" {
		meta.String = string(m.Metadata)
	}
	c.metadata = append(c.metadata, meta)
	feedback := sql.NullString{}
	if m.Feedback != nil {
		feedback = sql.NullString{String: *m.Feedback, Valid: true}
	}
	c.feedback, c.feedbackReason = append(c.feedback, feedback), append(c.feedbackReason, m.FeedbackReason)
	updated := m.UpdatedAt
	if updated.IsZero() {
		updated = m.CreatedAt
	}
	c.created, c.updated = append(c.created, m.CreatedAt), append(c.updated, updated)
}

// Import statuses and phases: an import first checks the whole file (nothing stored), then stores.
const (
	ImportRunning  = "running"
	ImportDone     = "done"
	ImportFailed   = "failed"
	ImportChecking = "checking"
	ImportStoring  = "storing"
)

// Import is one upload being (or having been) imported, with its progress.
type Import struct {
	ID       int64  `db:"id"`
	UserID   int64  `db:"user_id"`
	FileName string `db:"file_name"`
	// Format is the export's format once known (chatgpt, openwebui, librechat, parley).
	Format string `db:"format"`
	Status string `db:"status"`
	Phase  string `db:"phase"`
	// BytesTotal is the file's size and BytesRead how far the current phase has read, in bytes.
	BytesTotal int64 `db:"bytes_total"`
	BytesRead  int64 `db:"bytes_read"`
	// Conversations is how many the file holds (known after checking); Imported were stored,
	// Skipped were there already; Messages counts the stored messages.
	Conversations int        `db:"conversations"`
	Imported      int        `db:"imported"`
	Skipped       int        `db:"skipped"`
	Messages      int        `db:"messages"`
	Error         string     `db:"error"`
	CreatedAt     time.Time  `db:"created_at"`
	UpdatedAt     time.Time  `db:"updated_at"`
	FinishedAt    *time.Time `db:"finished_at"`
}

const importColumnsSQL = `id, user_id, file_name, format, status, phase, bytes_total, bytes_read, conversations,
	imported, skipped, messages, error, created_at, updated_at, finished_at`

// CreateImport records a new running import of fileName (bytesTotal bytes) for user.
func (s *Store) CreateImport(ctx context.Context, userID int64, fileName string, bytesTotal int64) (Import, error) {
	var im Import
	err := s.DB.GetContext(ctx, &im, `INSERT INTO chat_import (user_id, file_name, bytes_total) VALUES ($1, $2, $3)
		RETURNING `+importColumnsSQL, userID, fileName, bytesTotal)
	return im, notFound(err, "create import")
}

// SetImportProgress writes a running import's phase, format and counters (from im).
func (s *Store) SetImportProgress(ctx context.Context, im Import) error {
	_, err := s.DB.ExecContext(ctx, `UPDATE chat_import SET phase = $2, format = $3, bytes_read = $4, conversations = $5,
		imported = $6, skipped = $7, messages = $8, bytes_total = $9, updated_at = now() WHERE id = $1 AND status = 'running'`,
		im.ID, im.Phase, im.Format, im.BytesRead, im.Conversations, im.Imported, im.Skipped, im.Messages, im.BytesTotal)
	return notFound(err, "import progress")
}

// FinishImport ends a running import: done, or failed with errMessage (shown to its owner).
func (s *Store) FinishImport(ctx context.Context, im Import, errMessage string) error {
	status := ImportDone
	if errMessage != "" {
		status = ImportFailed
	}
	_, err := s.DB.ExecContext(ctx, `UPDATE chat_import SET status = $2, error = $3, phase = $4, format = $5,
		bytes_read = $6, conversations = $7, imported = $8, skipped = $9, messages = $10, updated_at = now(), finished_at = now()
		WHERE id = $1 AND status = 'running'`, im.ID, status, errMessage, im.Phase, im.Format, im.BytesRead,
		im.Conversations, im.Imported, im.Skipped, im.Messages)
	return notFound(err, "finish import")
}

// UserImport returns one of user's imports; anyone else's is ErrNotFound.
func (s *Store) UserImport(ctx context.Context, userID, id int64) (Import, error) {
	var im Import
	err := s.DB.GetContext(ctx, &im, `SELECT `+importColumnsSQL+` FROM chat_import WHERE id = $1 AND user_id = $2`, id, userID)
	return im, notFound(err, "user import")
}

// UserImports returns user's latest limit imports, newest first.
func (s *Store) UserImports(ctx context.Context, userID int64, limit int) ([]Import, error) {
	var out []Import
	err := s.DB.SelectContext(ctx, &out, `SELECT `+importColumnsSQL+` FROM chat_import WHERE user_id = $1
		ORDER BY created_at DESC, id DESC LIMIT $2`, userID, limit)
	return out, notFound(err, "user imports")
}

// FailUnfinishedImports marks failed the running imports that made no progress for two minutes:
// the process running them is gone (called at start-up). A live import of another instance sharing
// the database reports progress far more often and is left alone. What an import stored stays;
// importing the file again adds only the rest.
func (s *Store) FailUnfinishedImports(ctx context.Context) (int64, error) {
	res, err := s.DB.ExecContext(ctx, `UPDATE chat_import SET status = 'failed', updated_at = now(), finished_at = now(),
		error = 'The server stopped during this import. Import the file again: conversations already stored are not added twice.'
		WHERE status = 'running' AND updated_at < now() - interval '2 minutes'`)
	if err != nil {
		return 0, notFound(err, "fail unfinished imports")
	}
	return res.RowsAffected()
}
