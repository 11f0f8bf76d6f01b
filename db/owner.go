package db

import "context"

// Owner is who a conversation belongs to: a signed-in user (UserID) or an anonymous visitor's
// guest session (GuestID). Exactly one is non-zero; the zero Owner owns nothing.
type Owner struct {
	UserID  int64
	GuestID int64
}

// IsGuest reports whether the owner is a guest session.
func (o Owner) IsGuest() bool { return o.UserID == 0 && o.GuestID != 0 }

// lockKey is a number unique per owner, for advisory locks (guests are negative).
func (o Owner) lockKey() int64 {
	if o.UserID != 0 {
		return o.UserID
	}
	return -o.GuestID
}

// ownedBy is the SQL condition "exchange e belongs to the owner in $u (user id) and $g (guest
// session id)". Ids start at 1, so the 0 of the other kind never matches.
func ownedBy(u, g string) string {
	return `(e.user_id = ` + u + ` OR e.guest_session_id = ` + g + `)`
}

// livePage is the SQL condition "exchange e is not about a page in the trash".
const livePage = `(e.page_id IS NULL OR EXISTS (SELECT 1 FROM pages lp WHERE lp.id = e.page_id AND lp.deleted_at IS NULL))`

// OwnerExchange returns the owner's live exchange by id; anyone else's, a deleted one or one about
// a page in the trash is ErrNotFound.
func (s *Store) OwnerExchange(ctx context.Context, o Owner, id int64) (Exchange, error) {
	var e Exchange
	err := s.hotGet(ctx, &e, `SELECT `+exchangeColumns+` FROM chat_exchange e
		WHERE e.id = $1 AND `+ownedBy("$2", "$3")+` AND e.deleted_at IS NULL AND `+livePage, id, o.UserID, o.GuestID)
	return e, notFound(err, "owner exchange")
}

// LatestAgentExchange returns the owner's most recently active conversation with an agent (outside
// pages and teams), or ErrNotFound.
func (s *Store) LatestAgentExchange(ctx context.Context, o Owner, agentID int64) (Exchange, error) {
	var e Exchange
	var err error
	if o.UserID != 0 { // chat_exchange_user_agent_idx
		err = s.DB.GetContext(ctx, &e, `SELECT `+exchangeColumns+` FROM chat_exchange e
			WHERE e.user_id = $1 AND e.agent_id = $2 AND e.deleted_at IS NULL AND e.page_id IS NULL AND e.team_id IS NULL
			ORDER BY e.updated_at DESC, e.id DESC LIMIT 1`, o.UserID, agentID)
	} else { // chat_exchange_guest_agent_idx
		err = s.DB.GetContext(ctx, &e, `SELECT `+exchangeColumns+` FROM chat_exchange e
			WHERE e.guest_session_id = $1 AND e.agent_id = $2 AND e.deleted_at IS NULL AND e.team_id IS NULL
			ORDER BY e.updated_at DESC, e.id DESC LIMIT 1`, o.GuestID, agentID)
	}
	return e, notFound(err, "latest agent exchange")
}

// LatestTeamExchange returns the user's most recently active conversation with a team, or ErrNotFound.
func (s *Store) LatestTeamExchange(ctx context.Context, userID, teamID int64) (Exchange, error) {
	var e Exchange
	err := s.DB.GetContext(ctx, &e, `SELECT `+exchangeColumns+` FROM chat_exchange e
		WHERE e.user_id = $1 AND e.team_id = $2 AND e.deleted_at IS NULL
		ORDER BY e.updated_at DESC, e.id DESC LIMIT 1`, userID, teamID)
	return e, notFound(err, "latest team exchange")
}
