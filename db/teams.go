package db

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"

	"parley/fault"
)

// Team is a set of agents with a router that picks who answers (SPEC.md §2). Visibility is
// "public" (any signed-in user may chat with it) or "private" (its owner and admins).
type Team struct {
	ID          int64     `db:"id"`
	OwnerID     int64     `db:"owner_id"`
	Name        string    `db:"name"`
	Description string    `db:"description"`
	Visibility  string    `db:"visibility"`
	UpdatedAt   time.Time `db:"updated_at"`
	// Members is filled by ManagedTeams (the member names in order), not by every query.
	Members []string `db:"-"`
}

// TeamInput is a team's editable fields, validated by the caller. MemberIDs are agent ids in order.
type TeamInput struct {
	Name, Description, Visibility string
	MemberIDs                     []int64
}

const teamColumns = `t.id, t.owner_id, t.name, t.description, t.visibility, t.updated_at`

var errBadMembers = fault.Field("members", "Pick one or more agents you may use; an agent appears at most once.")

// CreateTeam stores a team owned by the manager with its ordered members, which must be agents the
// manager may put in a team (see setMembers).
func (s *Store) CreateTeam(ctx context.Context, m Manager, in TeamInput) (Team, error) {
	var t Team
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &t, `INSERT INTO teams AS t (owner_id, name, description, visibility)
			VALUES ($1, $2, $3, $4) RETURNING `+teamColumns, m.UserID, in.Name, in.Description, in.Visibility); err != nil {
			return err
		}
		return setMembers(ctx, tx, t.ID, m, in.MemberIDs)
	})
	return t, notFound(err, "create team")
}

// UpdateTeam rewrites a team the manager may change, members included.
func (s *Store) UpdateTeam(ctx context.Context, m Manager, id int64, in TeamInput) (Team, error) {
	var t Team
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &t, `UPDATE teams t SET name = $4, description = $5, visibility = $6, updated_at = now()
			WHERE t.id = $1 AND (t.owner_id = $2 OR $3) RETURNING `+teamColumns,
			id, m.UserID, m.IsAdmin, in.Name, in.Description, in.Visibility); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM team_members WHERE team_id = $1`, id); err != nil {
			return err
		}
		return setMembers(ctx, tx, id, Manager{UserID: t.OwnerID, IsAdmin: m.IsAdmin}, in.MemberIDs)
	})
	return t, notFound(err, "update team")
}

// setMembers inserts the members in order. Members are enabled agents that m (the team's owner, or
// an admin, who may add any) may use without a password: the owner's own and public agents without a
// password; an id that is not one, or one given twice, is errBadMembers. Who may chat with a member
// is checked again at every turn, for the person chatting.
func setMembers(ctx context.Context, tx *sqlx.Tx, teamID int64, m Manager, ids []int64) error {
	res, err := tx.ExecContext(ctx, `INSERT INTO team_members (team_id, agent_id, position)
		SELECT $1, a.id, x.ord FROM unnest($2::bigint[]) WITH ORDINALITY AS x(id, ord)
		JOIN agents a ON a.id = x.id
		WHERE a.deleted_at IS NULL AND a.disabled_at IS NULL
		  AND (a.owner_id = $3 OR $4 OR a.visibility = 'public' AND a.password_hash IS NULL)`,
		teamID, int64Array(ids), m.UserID, m.IsAdmin)
	if isUniqueViolation(err, "") {
		return errBadMembers
	}
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != int64(len(ids)) || n == 0 {
		return errBadMembers
	}
	return nil
}

// DeleteTeam deletes a team the manager may change; its conversations stay as plain agent chats.
func (s *Store) DeleteTeam(ctx context.Context, m Manager, id int64) error {
	res, err := s.DB.ExecContext(ctx, `DELETE FROM teams WHERE id = $1 AND (owner_id = $2 OR $3)`, id, m.UserID, m.IsAdmin)
	return affectedOne(res, err, "delete team")
}

// ManagedTeam returns a team the manager may change.
func (s *Store) ManagedTeam(ctx context.Context, m Manager, id int64) (Team, error) {
	var t Team
	err := s.DB.GetContext(ctx, &t, `SELECT `+teamColumns+` FROM teams t WHERE t.id = $1 AND (t.owner_id = $2 OR $3)`,
		id, m.UserID, m.IsAdmin)
	return t, notFound(err, "managed team")
}

// ManagedTeams lists the teams the manager may change, by name, each with its member names.
func (s *Store) ManagedTeams(ctx context.Context, m Manager) ([]Team, error) {
	return s.listTeams(ctx, `t.owner_id = $1 OR $2`, m.UserID, m.IsAdmin)
}

// PublicTeams lists other users' public teams (for a non-admin: an admin manages them all).
func (s *Store) PublicTeams(ctx context.Context, m Manager) ([]Team, error) {
	return s.listTeams(ctx, `t.owner_id <> $1 AND t.visibility = 'public' AND NOT $2`, m.UserID, m.IsAdmin)
}

// listTeams lists the teams matching where (over $1 user id, $2 is-admin), by name, each with the
// names of the members the user may see (public ones, their own; all for an admin).
func (s *Store) listTeams(ctx context.Context, where string, userID int64, isAdmin bool) ([]Team, error) {
	var rows []struct {
		Team
		MemberNames pq.StringArray `db:"member_names"`
	}
	err := s.DB.SelectContext(ctx, &rows, `SELECT `+teamColumns+`,
			coalesce((SELECT array_agg(a.name ORDER BY tm.position) FROM team_members tm JOIN agents a ON a.id = tm.agent_id
			          WHERE tm.team_id = t.id AND a.deleted_at IS NULL AND (a.visibility = 'public' OR a.owner_id = $1 OR $2)), '{}') AS member_names
		FROM teams t WHERE `+where+` ORDER BY lower(t.name), t.id LIMIT $3`, userID, isAdmin, maxListedAgents)
	out := make([]Team, len(rows))
	for i, r := range rows {
		out[i] = r.Team
		out[i].Members = r.MemberNames
	}
	return out, notFound(err, "managed teams")
}

// TeamForChat returns a team the user may chat with: their own, a public one, or any for an admin.
func (s *Store) TeamForChat(ctx context.Context, userID int64, isAdmin bool, id int64) (Team, error) {
	var t Team
	err := s.DB.GetContext(ctx, &t, `SELECT `+teamColumns+` FROM teams t
		WHERE t.id = $1 AND (t.owner_id = $2 OR t.visibility = 'public' OR $3)`, id, userID, isAdmin)
	return t, notFound(err, "team for chat")
}

// TeamMembers returns a team's member agents in order (disabled ones included; deleted ones not).
// Whether the person chatting may use each one is the caller's to check (handlers usableMembers).
func (s *Store) TeamMembers(ctx context.Context, teamID int64) ([]Agent, error) {
	var out []Agent
	err := s.DB.SelectContext(ctx, &out, `SELECT `+prefixed("a.", agentColumns)+` FROM team_members tm
		JOIN agents a ON a.id = tm.agent_id WHERE tm.team_id = $1 AND a.deleted_at IS NULL ORDER BY tm.position`, teamID)
	return out, notFound(err, "team members")
}
