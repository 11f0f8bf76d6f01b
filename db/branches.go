package db

import (
	"context"
	"math"

	"github.com/jmoiron/sqlx"
	"github.com/lib/pq"
)

// Branches (SPEC.md §3): regenerate and edit-and-resend never destroy messages. Messages form a
// tree through parent_id: a user message's parent is the answer it follows (NULL for the first), an
// answer's parent is its user message, and reasoning and tool items hang off their answer. A
// regenerated answer is a sibling of the old one (same parent user message); an edited query is a
// sibling of the old one (same parent answer) with an answer of its own.
//
// chat_exchange.leaf_message_id names the answer that ends the branch on screen: the branch is the
// leaf and its ancestors, plus their items, in position order (children always get a higher
// position than their parent). It stays NULL until a conversation first branches; then every
// message is on the one branch.
//
// chat_message.on_branch marks the messages on the branch on screen, kept by triggers (migration
// 00010): a new message joins it when its parent is on it and no other version of it is, and moving
// leaf_message_id swaps the tail after the fork. So every read of the branch is an index range on
// chat_message_branch_idx, never a walk of the tree, whatever the conversation's length.

// turnsOf is the number of user messages on the branch on screen of exchange row e, which triggers
// keep in chat_exchange.turns (migration 00010): the sidebar reads it instead of counting.
const turnsOf = `e.turns`

// Siblings places a user message or an answer among its versions: it is version Index (from 1) of
// Count; Prev and Next are the neighbouring versions' ids (0 at either end).
type Siblings struct {
	Index, Count int
	Prev, Next   int64
}

// versionsOf joins to each chat_message row w its versions: the ids, in id order, of the messages
// of its role under the same parent (NULL for a message without other versions, and for reasoning
// and tool items). One index lookup per row: chat_message_parent_idx, or chat_message_root_idx for
// a first question.
const versionsOf = `LEFT JOIN LATERAL (
		SELECT array_agg(x.id ORDER BY x.id) AS versions FROM (
			SELECT x.id FROM chat_message x
			WHERE w.role IN ('user', 'assistant') AND x.parent_id = w.parent_id AND x.role = w.role
			UNION ALL
			SELECT x.id FROM chat_message x
			WHERE w.role IN ('user', 'assistant') AND w.parent_id IS NULL
			  AND x.exchange_id = w.exchange_id AND x.parent_id IS NULL AND x.role = w.role) x
		HAVING count(*) > 1) v ON true`

// versionRow is a message id with its versions, as versionsOf reads them.
type versionRow struct {
	ID       int64         `db:"id"`
	Versions pq.Int64Array `db:"versions"`
}

// siblings places each row among its versions; rows without other versions are left out.
func siblings(rows []versionRow) map[int64]Siblings {
	out := make(map[int64]Siblings, len(rows))
	for _, r := range rows {
		for i, id := range r.Versions {
			if id != r.ID {
				continue
			}
			sib := Siblings{Index: i + 1, Count: len(r.Versions)}
			if i > 0 {
				sib.Prev = r.Versions[i-1]
			}
			if i < len(r.Versions)-1 {
				sib.Next = r.Versions[i+1]
			}
			out[r.ID] = sib
		}
	}
	return out
}

// BranchSiblings returns the versions of each user message and answer among ids (of exchange
// exchangeID) that has more than one; the others are absent from the map. One statement, whose
// cost follows len(ids); an exchange that never branched finds none and reads no message.
func (s *Store) BranchSiblings(ctx context.Context, exchangeID int64, ids []int64) (map[int64]Siblings, error) {
	var rows []versionRow
	err := s.DB.SelectContext(ctx, &rows, `
		SELECT w.id, v.versions FROM chat_exchange e
		JOIN chat_message w ON w.exchange_id = e.id AND w.id = ANY($2) AND w.role IN ('user', 'assistant')
		`+versionsOf+`
		WHERE e.id = $1 AND e.leaf_message_id IS NOT NULL AND v.versions IS NOT NULL`, exchangeID, int64Array(ids))
	if err != nil {
		return nil, notFound(err, "branch siblings")
	}
	return siblings(rows), nil
}

// BranchWindow is ExchangeWindow for an exchange that branched: the same window on
// chat_message_branch_idx, with the versions (BranchSiblings) of its messages read in the same
// statement, so opening a branched conversation costs the statements of a never-branched one.
func (s *Store) BranchWindow(ctx context.Context, exchangeID int64, before, limit int) ([]Message, map[int64]Siblings, bool, error) {
	if before <= 0 {
		before = math.MaxInt32
	}
	var rows []struct {
		Message
		Versions pq.Int64Array `db:"versions"`
	}
	err := s.DB.SelectContext(ctx, &rows, `SELECT w.*, v.versions FROM (`+exchangeWindow+`) w
		`+versionsOf+`
		ORDER BY w.position, w.id`, exchangeID, before, limit+1)
	if err != nil {
		return nil, nil, false, notFound(err, "branch window")
	}
	older := len(rows) > limit
	if older {
		rows = rows[1:]
	}
	msgs := make([]Message, len(rows))
	versions := make([]versionRow, 0, len(rows))
	for i, r := range rows {
		msgs[i] = r.Message
		if r.Versions != nil {
			versions = append(versions, versionRow{ID: r.ID, Versions: r.Versions})
		}
	}
	return msgs, siblings(versions), older, nil
}

// SwitchBranch shows version to of message id (a sibling: same exchange, parent and role): the
// branch on screen becomes the line under to that was written last (its newest descendant). Not the
// owner's exchange, or not a sibling, is ErrNotFound; an exchange with an answer being written is
// ErrBusy (switching away would hide the answer and its Stop).
func (s *Store) SwitchBranch(ctx context.Context, o Owner, exchangeID, id, to int64) error {
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var locked int64
		if err := tx.GetContext(ctx, &locked, `SELECT e.id FROM chat_exchange e
			WHERE e.id = $2 AND `+ownedBy("$1", "$3")+` AND e.deleted_at IS NULL FOR UPDATE`,
			o.UserID, exchangeID, o.GuestID); err != nil {
			return err
		}
		if err := idle(ctx, tx, exchangeID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `
			WITH RECURSIVE down AS (
				SELECT t.id FROM chat_message t JOIN chat_message m ON m.id = $2
				WHERE t.id = $3 AND t.exchange_id = $1 AND m.exchange_id = $1 AND t.role = m.role
				  AND t.parent_id IS NOT DISTINCT FROM m.parent_id
				UNION ALL
				SELECT c.id FROM chat_message c JOIN down d ON c.parent_id = d.id
				WHERE c.role IN ('user', 'assistant'))
			UPDATE chat_exchange e SET leaf_message_id = (SELECT max(id) FROM down)
			WHERE e.id = $1 AND EXISTS (SELECT 1 FROM down)`, exchangeID, id, to)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
	return notFound(err, "switch branch")
}

// ShowVersionOf makes the branch on screen hold message id of exchange exchangeID (a search hit in
// an older version), as switching to its version does: the branch becomes the line under it that
// was written last. A message already on the branch, an exchange that never branched, or one with
// an answer being written (switching would hide its Stop) changes nothing. The caller has checked
// the exchange is the viewer's; a message of another exchange changes nothing. It reports whether
// the branch on screen changed.
func (s *Store) ShowVersionOf(ctx context.Context, exchangeID, id int64) (bool, error) {
	res, err := s.DB.ExecContext(ctx, `WITH RECURSIVE
		start AS (
			SELECT CASE WHEN m.role IN ('user', 'assistant') THEN m.id ELSE m.parent_id END AS id
			FROM chat_message m WHERE m.id = $2 AND m.exchange_id = $1),
		down AS (
			SELECT id FROM start WHERE id IS NOT NULL
			UNION ALL
			SELECT c.id FROM chat_message c JOIN down d ON c.parent_id = d.id
			WHERE c.role IN ('user', 'assistant'))
		UPDATE chat_exchange e SET leaf_message_id = (SELECT max(id) FROM down)
		WHERE e.id = $1 AND e.leaf_message_id IS NOT NULL AND EXISTS (SELECT 1 FROM down)
		  AND NOT EXISTS (SELECT 1 FROM chat_message s JOIN start ON s.id = start.id WHERE s.on_branch)
		  AND NOT EXISTS (SELECT 1 FROM chat_message u WHERE u.exchange_id = $1 AND u.status IN ('pending', 'streaming'))`,
		exchangeID, id)
	if err != nil {
		return false, notFound(err, "show version")
	}
	n, err := res.RowsAffected()
	return n > 0, err
}

// Regenerate adds a new pending answer beside answer id (the same user message), makes it the end
// of the branch on screen and returns it; the old answer stays as another version. The answer must
// be finished (not pending or streaming) and the exchange idle (else ErrBusy). Not the user's, or
// not an answer, is ErrNotFound.
func (s *Store) Regenerate(ctx context.Context, o Owner, exchangeID, id, agentID int64, agentType string) (Message, error) {
	var out Message
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var parent int64
		if err := tx.GetContext(ctx, &parent, `SELECT m.parent_id FROM chat_message m
			JOIN chat_exchange e ON e.id = m.exchange_id
			WHERE m.id = $3 AND m.exchange_id = $2 AND `+ownedBy("$1", "$4")+` AND e.deleted_at IS NULL
			  AND m.role = 'assistant' AND m.parent_id IS NOT NULL
			FOR UPDATE OF e`, o.UserID, exchangeID, id, o.GuestID); err != nil {
			return err
		}
		if err := idle(ctx, tx, exchangeID); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &out, `INSERT INTO chat_message (exchange_id, parent_id, position, role, status, agent_id, agent_type)
			VALUES ($1, $2, (SELECT max(position) + 1 FROM chat_message WHERE exchange_id = $1), 'assistant', 'pending', $3, $4)
			RETURNING `+messageColumns, exchangeID, parent, nullID(agentID), agentType); err != nil {
			return err
		}
		return showAnswer(ctx, tx, exchangeID, out.ID)
	})
	return out, notFound(err, "regenerate")
}

// EditQuery adds query as a new version of user message id (the same parent) with a pending answer
// of its own, makes that answer the end of the branch on screen and returns both; the old query and
// everything after it stay as another version. The exchange must be idle (else ErrBusy). Not the
// user's, or not a user message, is ErrNotFound.
func (s *Store) EditQuery(ctx context.Context, o Owner, exchangeID, id int64, query string, agentID int64, agentType string) (Message, Message, error) {
	var user, answer Message
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var parent *int64
		if err := tx.GetContext(ctx, &parent, `SELECT m.parent_id FROM chat_message m
			JOIN chat_exchange e ON e.id = m.exchange_id
			WHERE m.id = $3 AND m.exchange_id = $2 AND `+ownedBy("$1", "$4")+` AND e.deleted_at IS NULL AND m.role = 'user'
			FOR UPDATE OF e`, o.UserID, exchangeID, id, o.GuestID); err != nil {
			return err
		}
		if err := idle(ctx, tx, exchangeID); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &user, `INSERT INTO chat_message (exchange_id, parent_id, position, role, content, status, search)
			VALUES ($1, $2, (SELECT max(position) + 1 FROM chat_message WHERE exchange_id = $1), 'user', $3, 'complete', to_tsvector('english', $3))
			RETURNING `+messageColumns, exchangeID, parent, query); err != nil {
			return err
		}
		if err := tx.GetContext(ctx, &answer, `INSERT INTO chat_message (exchange_id, parent_id, position, role, status, agent_id, agent_type)
			VALUES ($1, $2, $3, 'assistant', 'pending', $4, $5) RETURNING `+messageColumns,
			exchangeID, user.ID, user.Position+1, nullID(agentID), agentType); err != nil {
			return err
		}
		return showAnswer(ctx, tx, exchangeID, answer.ID)
	})
	return user, answer, notFound(err, "edit query")
}

// showAnswer makes answer id the end of the branch on screen of exchange exchangeID and bumps its
// updated_at (a new version is activity).
func showAnswer(ctx context.Context, tx *sqlx.Tx, exchangeID, id int64) error {
	_, err := tx.ExecContext(ctx, `UPDATE chat_exchange SET leaf_message_id = $2, updated_at = now() WHERE id = $1`, exchangeID, id)
	return err
}

// idle is ErrBusy while the exchange has an answer being generated.
func idle(ctx context.Context, tx *sqlx.Tx, exchangeID int64) error {
	var unfinished bool
	if err := tx.GetContext(ctx, &unfinished, `SELECT EXISTS (SELECT 1 FROM chat_message
		WHERE exchange_id = $1 AND status IN ('pending', 'streaming'))`, exchangeID); err != nil {
		return err
	}
	if unfinished {
		return ErrBusy
	}
	return nil
}
