package db

import (
	"context"
	"encoding/json"

	"github.com/lib/pq"

	"parley/fault"
)

// Manager is who manages agents and teams: a user, who may change their own, or an admin, who may
// change all of them. Anything else is ErrNotFound.
type Manager struct {
	UserID  int64
	IsAdmin bool
}

// AgentInput is an agent's editable fields, already validated (agents.CheckAgent). PasswordHash
// is applied only when SetPassword: nil removes the password.
type AgentInput struct {
	Identifier, Name, Description, Avatar, AgentType, Provider, Model string
	SystemPrompt, WelcomeMessage, Visibility                          string
	Capabilities, Theme                                               json.RawMessage
	Models, EmbedOrigins                                              []string
	SetPassword                                                       bool
	PasswordHash                                                      *string
}

var errIdentifierTaken = fault.Field("identifier", "This identifier is already taken; choose another.")

// CreateAgent stores a new agent owned by ownerID. A taken identifier is a field error.
func (s *Store) CreateAgent(ctx context.Context, ownerID int64, in AgentInput) (Agent, error) {
	var a Agent
	err := s.DB.GetContext(ctx, &a, `INSERT INTO agents (identifier, owner_id, name, description, avatar, agent_type,
			provider, model, system_prompt, welcome_message, visibility, password_hash, capabilities, theme, models, embed_origins)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
		RETURNING `+agentColumns,
		in.Identifier, ownerID, in.Name, in.Description, in.Avatar, in.AgentType, in.Provider, in.Model,
		in.SystemPrompt, in.WelcomeMessage, in.Visibility, in.PasswordHash, string(in.Capabilities), string(in.Theme),
		pq.StringArray(nonNil(in.Models)), pq.StringArray(nonNil(in.EmbedOrigins)))
	if isUniqueViolation(err, "agents_identifier_live_key") {
		return a, errIdentifierTaken
	}
	return a, notFound(err, "create agent")
}

// UpdateAgent rewrites the editable fields of an agent the manager may change.
func (s *Store) UpdateAgent(ctx context.Context, m Manager, id int64, in AgentInput) (Agent, error) {
	var a Agent
	err := s.DB.GetContext(ctx, &a, `UPDATE agents SET identifier = $4, name = $5, description = $6, avatar = $7,
			agent_type = $8, provider = $9, model = $10, system_prompt = $11, welcome_message = $12, visibility = $13,
			password_hash = CASE WHEN $14 THEN $15 ELSE password_hash END, capabilities = $16, theme = $17,
			models = $18, embed_origins = $19, updated_at = now()
		WHERE id = $1 AND deleted_at IS NULL AND (owner_id = $2 OR $3)
		RETURNING `+agentColumns,
		id, m.UserID, m.IsAdmin, in.Identifier, in.Name, in.Description, in.Avatar, in.AgentType, in.Provider, in.Model,
		in.SystemPrompt, in.WelcomeMessage, in.Visibility, in.SetPassword, in.PasswordHash, string(in.Capabilities),
		string(in.Theme), pq.StringArray(nonNil(in.Models)), pq.StringArray(nonNil(in.EmbedOrigins)))
	if isUniqueViolation(err, "agents_identifier_live_key") {
		return a, errIdentifierTaken
	}
	return a, notFound(err, "update agent")
}

// SetAgentDisabled disables (or enables again) an agent the manager may change.
func (s *Store) SetAgentDisabled(ctx context.Context, m Manager, id int64, disabled bool) error {
	res, err := s.DB.ExecContext(ctx, `UPDATE agents SET disabled_at = CASE WHEN $4 THEN coalesce(disabled_at, now()) END,
		updated_at = now() WHERE id = $1 AND deleted_at IS NULL AND (owner_id = $2 OR $3)`, id, m.UserID, m.IsAdmin, disabled)
	return affectedOne(res, err, "disable agent")
}

// DeleteAgent marks an agent the manager may change as deleted: its link stops working, its
// conversations stay (and show that the agent is gone). The floating chat button, which names its
// agent by identifier, is turned off when it named this one (the identifier may be taken again).
func (s *Store) DeleteAgent(ctx context.Context, m Manager, id int64) error {
	var n int
	err := s.DB.GetContext(ctx, &n, `WITH gone AS (
			UPDATE agents SET deleted_at = now(), updated_at = now()
			WHERE id = $1 AND deleted_at IS NULL AND (owner_id = $2 OR $3) RETURNING identifier),
		widget_off AS (DELETE FROM app_settings WHERE name = 'floating_widget' AND value->>'agent' IN (SELECT identifier FROM gone))
		SELECT count(*) FROM gone`, id, m.UserID, m.IsAdmin)
	if err == nil && n == 0 {
		return ErrNotFound
	}
	return notFound(err, "delete agent")
}

// ManagedAgent returns an agent (disabled or not, not deleted) that the manager may change.
func (s *Store) ManagedAgent(ctx context.Context, m Manager, id int64) (Agent, error) {
	var a Agent
	err := s.DB.GetContext(ctx, &a, `SELECT `+agentColumns+` FROM agents
		WHERE id = $1 AND deleted_at IS NULL AND (owner_id = $2 OR $3)`, id, m.UserID, m.IsAdmin)
	return a, notFound(err, "managed agent")
}

// maxListedAgents bounds the agent lists (a person has a handful; the list is not paginated).
const maxListedAgents = 500

// ManagedAgents lists the agents the manager may change (all of them for an admin), by name.
func (s *Store) ManagedAgents(ctx context.Context, m Manager) ([]Agent, error) {
	var out []Agent
	err := s.DB.SelectContext(ctx, &out, `SELECT `+agentColumns+` FROM agents
		WHERE deleted_at IS NULL AND (owner_id = $1 OR $2) ORDER BY lower(name), id LIMIT $3`, m.UserID, m.IsAdmin, maxListedAgents)
	return out, notFound(err, "managed agents")
}

// UsableAgents lists the agents a user may chat with: usable public agents and their own.
func (s *Store) UsableAgents(ctx context.Context, userID int64) ([]Agent, error) {
	var out []Agent
	err := s.DB.SelectContext(ctx, &out, `SELECT `+agentColumns+` FROM agents
		WHERE deleted_at IS NULL AND disabled_at IS NULL AND (visibility = 'public' OR owner_id = $1)
		ORDER BY is_builtin DESC, lower(name), id LIMIT $2`, userID, maxListedAgents)
	return out, notFound(err, "usable agents")
}

// AgentForChat returns an agent by identifier, disabled or not (a disabled agent's page shows a
// banner); a deleted one is ErrNotFound. Whether the caller may see it is for them to check.
func (s *Store) AgentForChat(ctx context.Context, identifier string) (Agent, error) {
	var a Agent
	err := s.DB.GetContext(ctx, &a, `SELECT `+agentColumns+` FROM agents
		WHERE identifier = $1 AND deleted_at IS NULL`, identifier)
	return a, notFound(err, "agent for chat")
}

// AvatarByHash returns the uploaded avatar image (a data:image URL) whose SHA-256 of the data URL,
// in lower-case hex, is hash; ErrNotFound when no agent has it.
func (s *Store) AvatarByHash(ctx context.Context, hash string) (string, error) {
	var avatar string
	err := s.DB.GetContext(ctx, &avatar, `SELECT avatar FROM agents
		WHERE avatar LIKE 'data:image/%' AND encode(sha256(decode(avatar, 'escape')), 'hex') = $1 LIMIT 1`, hash)
	return avatar, notFound(err, "avatar by hash")
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
