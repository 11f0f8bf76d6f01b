package db

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jmoiron/sqlx"

	"parley/fault"
)

// Proposal statuses.
const (
	ProposalPending    = "pending"
	ProposalAccepted   = "accepted"
	ProposalRejected   = "rejected"
	ProposalSuperseded = "superseded"
)

// Proposal is an edit an assistant message offers for a page (its own row, one per message). Body
// is the edit as JSON (pages.Edit); OriginalContentHash the djb2 hash of the content the
// assistant saw; BaseRevisionID the revision that content was.
type Proposal struct {
	ID                  int64           `db:"id"`
	PageID              int64           `db:"page_id"`
	MessageID           int64           `db:"message_id"`
	ExchangeID          int64           `db:"exchange_id"`
	Kind                string          `db:"kind"`
	Status              string          `db:"status"`
	BaseRevisionID      *int64          `db:"base_revision_id"`
	OriginalContentHash string          `db:"original_content_hash"`
	Body                json.RawMessage `db:"proposal"`
	AppliedRevisionID   *int64          `db:"applied_revision_id"`
	DecidedAt           *time.Time      `db:"decided_at"`
	CreatedAt           time.Time       `db:"created_at"`
	// Query is the user message the proposing answer replied to (filled by UserProposal only).
	Query string `db:"query"`
}

const proposalColumns = `pr.id, pr.page_id, pr.message_id, m.exchange_id, pr.kind, pr.status, pr.base_revision_id,
	pr.original_content_hash, pr.proposal, pr.applied_revision_id, pr.decided_at, pr.created_at`

// NewProposal is the input of InsertProposal. SupersedeTarget names which older pending proposals
// of the same conversation the new one replaces: those whose body has the same "target_key" (a
// section patch replaces the pending patches of its section, not a pending rewrite, which still
// merges), or all of them when it is "*" (a rewrite replaces everything pending).
type NewProposal struct {
	PageID              int64
	MessageID           int64
	Kind                string
	BaseRevisionID      *int64
	OriginalContentHash string
	Body                json.RawMessage
	SupersedeTarget     string
}

// ErrProposalExists is InsertProposal's error when the message already carries a proposal.
var ErrProposalExists = &fault.Error{Code: fault.Conflict, Message: "This answer already carries a proposal."}

// InsertProposal stores a pending proposal for an assistant message and marks the older pending
// proposals of the same conversation that it replaces as superseded. The body is stored as
// storableJSON makes it (a model wrote it).
func (s *Store) InsertProposal(ctx context.Context, in NewProposal) (Proposal, error) {
	var p Proposal
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE page_edit_proposal pr SET status = 'superseded', decided_at = now()
			FROM chat_message m, chat_message mine
			WHERE m.id = pr.message_id AND mine.id = $1 AND m.exchange_id = mine.exchange_id
			  AND pr.page_id = $2 AND pr.status = 'pending'
			  AND ($3 = '*' OR pr.proposal->>'target_key' = $3)`,
			in.MessageID, in.PageID, in.SupersedeTarget); err != nil {
			return err
		}
		var id int64
		err := tx.GetContext(ctx, &id, `INSERT INTO page_edit_proposal
			(page_id, message_id, kind, base_revision_id, original_content_hash, proposal)
			VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
			in.PageID, in.MessageID, in.Kind, in.BaseRevisionID, in.OriginalContentHash, string(storableJSON(in.Body)))
		if isUniqueViolation(err, "page_edit_proposal_message_key") {
			return ErrProposalExists
		}
		if err != nil {
			return err
		}
		return tx.GetContext(ctx, &p, `SELECT `+proposalColumns+` FROM page_edit_proposal pr
			JOIN chat_message m ON m.id = pr.message_id WHERE pr.id = $1`, id)
	})
	if err != nil {
		return Proposal{}, notFound(err, "insert proposal")
	}
	return p, nil
}

// UserProposal returns a proposal on the user's live page pageID.
func (s *Store) UserProposal(ctx context.Context, userID, pageID, id int64) (Proposal, error) {
	var p Proposal
	err := s.DB.GetContext(ctx, &p, `SELECT `+proposalColumns+`,
		coalesce((SELECT q.content FROM chat_message q WHERE q.id = m.parent_id AND q.role = 'user'), '') AS query
		FROM page_edit_proposal pr
		JOIN chat_message m ON m.id = pr.message_id
		JOIN chat_exchange e ON e.id = m.exchange_id AND e.deleted_at IS NULL
		JOIN pages pg ON pg.id = pr.page_id
		WHERE pr.id = $1 AND pr.page_id = $2 AND pg.owner_id = $3 AND pg.deleted_at IS NULL`, id, pageID, userID)
	return p, notFound(err, "user proposal")
}

// ErrProposalDecided is the error of deciding a proposal that is no longer pending.
var ErrProposalDecided = &fault.Error{Code: fault.Conflict,
	Message: "This proposal was already decided (perhaps in another tab). Reload to see its state."}

// ErrProposalSuperseded is the error of deciding a proposal a newer one replaced.
var ErrProposalSuperseded = &fault.Error{Code: fault.Conflict,
	Message: "A newer proposal in this chat replaced this one (or its chat was deleted); review the newer one instead."}

// decidedError is the error of deciding a proposal whose status is no longer pending.
func decidedError(status string) error {
	if status == ProposalSuperseded {
		return ErrProposalSuperseded
	}
	return ErrProposalDecided
}

// RejectProposal marks the user's pending proposal rejected. One already decided is
// ErrProposalDecided; a foreign or missing one ErrNotFound.
func (s *Store) RejectProposal(ctx context.Context, userID, pageID, id int64) error {
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := lockPage(ctx, tx, userID, pageID); err != nil {
			return err
		}
		p, err := lockProposal(ctx, tx, pageID, id)
		if err != nil {
			return err
		}
		if p.Status != ProposalPending {
			return decidedError(p.Status)
		}
		_, err = tx.ExecContext(ctx, `UPDATE page_edit_proposal SET status = 'rejected', decided_by = $2, decided_at = now()
			WHERE id = $1`, id, userID)
		return err
	})
}

// lockProposal reads proposal id of page pageID for update inside tx; one whose conversation was
// deleted is ErrNotFound. The caller has locked the page (and so checked its owner).
func lockProposal(ctx context.Context, tx *sqlx.Tx, pageID, id int64) (Proposal, error) {
	var p Proposal
	err := tx.GetContext(ctx, &p, `SELECT `+proposalColumns+` FROM page_edit_proposal pr
		JOIN chat_message m ON m.id = pr.message_id
		JOIN chat_exchange e ON e.id = m.exchange_id AND e.deleted_at IS NULL
		WHERE pr.id = $1 AND pr.page_id = $2 FOR UPDATE OF pr`, id, pageID)
	return p, notFound(err, "lock proposal")
}

// AcceptProposal applies the user's pending proposal in one transaction: with the page and the
// proposal locked, apply computes the new content from the stored page and proposal (or refuses
// with an error, which is returned as is); the content is written as an `agent` revision and the
// proposal marked accepted with it. A proposal no longer pending is ErrProposalDecided, so two tabs
// accepting the same proposal make exactly one revision. It returns the page and the revision the
// page now has.
func (s *Store) AcceptProposal(ctx context.Context, userID, pageID, id int64, apply func(Page, Proposal) (string, error)) (Page, error) {
	var page Page
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		if page, err = lockPage(ctx, tx, userID, pageID); err != nil {
			return err
		}
		p, err := lockProposal(ctx, tx, pageID, id)
		if err != nil {
			return err
		}
		if p.Status != ProposalPending {
			return decidedError(p.Status)
		}
		content, err := apply(page, p)
		if err != nil {
			return err
		}
		if page, err = writeRevision(ctx, tx, page, content, EditAgent, userID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE page_edit_proposal SET status = 'accepted', applied_revision_id = $2,
			decided_by = $3, decided_at = now() WHERE id = $1`, id, page.CurrentRevisionID, userID)
		return err
	})
	return page, err
}

// UndoProposal undoes the user's accepted proposal: the revision before the one it wrote is
// restored as a `restore` revision and the proposal is pending again. It is refused with
// a Conflict when the page changed after the accept or the proposal is not accepted.
func (s *Store) UndoProposal(ctx context.Context, userID, pageID, id int64) (Page, error) {
	var page Page
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		if page, err = lockPage(ctx, tx, userID, pageID); err != nil {
			return err
		}
		p, err := lockProposal(ctx, tx, pageID, id)
		if err != nil {
			return err
		}
		if p.Status == ProposalPending {
			return &fault.Error{Code: fault.Conflict, Message: "This edit was already undone (perhaps in another tab)."}
		}
		if p.Status != ProposalAccepted || p.AppliedRevisionID == nil || page.CurrentRevisionID == nil ||
			*page.CurrentRevisionID != *p.AppliedRevisionID {
			return &fault.Error{Code: fault.Conflict, Message: "The page changed after this edit was accepted; restore an older revision from the Revisions panel instead."}
		}
		var content string
		if err := tx.GetContext(ctx, &content, `SELECT content FROM page_revisions WHERE page_id = $1
			AND version < (SELECT version FROM page_revisions WHERE id = $2) ORDER BY version DESC LIMIT 1`,
			pageID, *p.AppliedRevisionID); err != nil {
			return notFound(err, "revision before accept")
		}
		if page, err = writeRevision(ctx, tx, page, content, EditRestore, userID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE page_edit_proposal SET status = 'pending', applied_revision_id = NULL,
			decided_by = NULL, decided_at = NULL WHERE id = $1`, id)
		return err
	})
	return page, err
}
