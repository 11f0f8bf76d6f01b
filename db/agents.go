package db

import (
	"context"
	"encoding/json"
	"time"

	"github.com/lib/pq"
)

// Agent is a configured assistant (SPEC.md §2). Capabilities is raw JSON such as {"tools": true,
// "reasoning": true}; Theme is raw JSON such as {"accent": "rose"}. OwnerID is nil for built-in
// agents. PasswordHash (bcrypt) is nil when the agent has no password. Models are the models people
// may pick from (besides Model); EmbedOrigins the origins allowed to frame its widget ("*": any).
type Agent struct {
	ID             int64           `db:"id"`
	Identifier     string          `db:"identifier"`
	Name           string          `db:"name"`
	Description    string          `db:"description"`
	Avatar         string          `db:"avatar"`
	AgentType      string          `db:"agent_type"`
	Provider       string          `db:"provider"`
	Model          string          `db:"model"`
	SystemPrompt   string          `db:"system_prompt"`
	WelcomeMessage string          `db:"welcome_message"`
	Visibility     string          `db:"visibility"`
	Capabilities   json.RawMessage `db:"capabilities"`
	OwnerID        *int64          `db:"owner_id"`
	PasswordHash   *string         `db:"password_hash"`
	Theme          json.RawMessage `db:"theme"`
	IsBuiltin      bool            `db:"is_builtin"`
	Models         pq.StringArray  `db:"models"`
	EmbedOrigins   pq.StringArray  `db:"embed_origins"`
	DisabledAt     *time.Time      `db:"disabled_at"`
	DeletedAt      *time.Time      `db:"deleted_at"`
	UpdatedAt      time.Time       `db:"updated_at"`
}

const agentColumns = `id, identifier, name, description, avatar, agent_type, provider, model, system_prompt,
	welcome_message, visibility, capabilities, owner_id, password_hash, theme, is_builtin, models, embed_origins,
	disabled_at, deleted_at, updated_at`

// AgentByIdentifier returns a usable (not disabled or deleted) agent by its URL slug.
func (s *Store) AgentByIdentifier(ctx context.Context, identifier string) (Agent, error) {
	var a Agent
	err := s.DB.GetContext(ctx, &a, `SELECT `+agentColumns+` FROM agents
		WHERE identifier = $1 AND disabled_at IS NULL AND deleted_at IS NULL`, identifier)
	return a, notFound(err, "agent by identifier")
}

// AgentByID returns a usable (not disabled or deleted) agent by id.
func (s *Store) AgentByID(ctx context.Context, id int64) (Agent, error) {
	var a Agent
	err := s.DB.GetContext(ctx, &a, `SELECT `+agentColumns+` FROM agents
		WHERE id = $1 AND disabled_at IS NULL AND deleted_at IS NULL`, id)
	return a, notFound(err, "agent by id")
}

// AgentsByID returns the agents with these ids, keyed by id (one query for a whole conversation).
func (s *Store) AgentsByID(ctx context.Context, ids []int64) (map[int64]Agent, error) {
	out := map[int64]Agent{}
	if len(ids) == 0 {
		return out, nil
	}
	var rows []Agent
	if err := s.DB.SelectContext(ctx, &rows, `SELECT `+agentColumns+` FROM agents WHERE id = ANY($1)`, int64Array(ids)); err != nil {
		return nil, notFound(err, "agents by id")
	}
	for _, a := range rows {
		out[a.ID] = a
	}
	return out, nil
}

// Specialists are the agents a router may hand a turn to: usable built-in agents that are not
// routers (a person's public agent never receives someone else's general chat).
func (s *Store) Specialists(ctx context.Context) ([]Agent, error) {
	var out []Agent
	err := s.DB.SelectContext(ctx, &out, `SELECT `+agentColumns+` FROM agents
		WHERE agent_type <> 'router' AND visibility = 'public' AND is_builtin AND disabled_at IS NULL AND deleted_at IS NULL
		ORDER BY id`)
	return out, notFound(err, "specialists")
}
