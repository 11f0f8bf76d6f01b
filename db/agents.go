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
	err := s.DB.SelectContext(ctx, &out, `SELECT `+agentColumns+` FROM agents WHERE `+specialist+` ORDER BY id`)
	return out, notFound(err, "specialists")
}

// specialist is the SQL condition "this agents row is one of the Specialists".
const specialist = `agent_type <> 'router' AND visibility = 'public' AND is_builtin AND disabled_at IS NULL AND deleted_at IS NULL`

// AgentForTurn returns the agent that answers a turn, by id (disabled or deleted ones included:
// the caller refuses them), or when id is 0 the usable agent named identifier; and when that agent
// is a router, the Specialists it may hand the turn to (else nil). One statement. No such agent is
// ErrNotFound.
func (s *Store) AgentForTurn(ctx context.Context, id int64, identifier string) (Agent, []Agent, error) {
	var rows []struct {
		Agent
		Chosen bool `db:"chosen"`
	}
	err := s.hotSelect(ctx, &rows, `WITH chosen AS (SELECT `+agentColumns+` FROM agents
			WHERE CASE WHEN $1 <> 0 THEN id = $1 ELSE identifier = $2 AND disabled_at IS NULL AND deleted_at IS NULL END)
		SELECT *, true AS chosen FROM chosen
		UNION ALL
		SELECT `+agentColumns+`, false FROM agents
		WHERE EXISTS (SELECT 1 FROM chosen WHERE agent_type = 'router') AND `+specialist+`
		ORDER BY chosen DESC, id`, id, identifier)
	if err != nil {
		return Agent{}, nil, notFound(err, "agent for turn")
	}
	if len(rows) == 0 || !rows[0].Chosen {
		return Agent{}, nil, ErrNotFound
	}
	var specialists []Agent
	for _, r := range rows[1:] {
		specialists = append(specialists, r.Agent)
	}
	if rows[0].AgentType == "router" && specialists == nil {
		specialists = []Agent{} // read, and none: the router answers itself
	}
	return rows[0].Agent, specialists, nil
}
