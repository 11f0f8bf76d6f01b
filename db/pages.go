package db

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/jmoiron/sqlx"

	"parley/fault"
)

// Page is a markdown page owned by one user. Version goes up by one on every saved change (title or
// content); a save based on an older Version is refused (optimistic concurrency). Content always
// equals the content of revision CurrentRevisionID.
type Page struct {
	ID                int64      `db:"id"`
	OwnerID           int64      `db:"owner_id"`
	Title             string     `db:"title"`
	Content           string     `db:"content"`
	Version           int        `db:"version"`
	CurrentRevisionID *int64     `db:"current_revision_id"`
	CreatedAt         time.Time  `db:"created_at"`
	UpdatedAt         time.Time  `db:"updated_at"`
	DeletedAt         *time.Time `db:"deleted_at"`
}

// PageSummary is one row of the page list: no content.
type PageSummary struct {
	ID        int64      `db:"id"`
	Title     string     `db:"title"`
	UpdatedAt time.Time  `db:"updated_at"`
	DeletedAt *time.Time `db:"deleted_at"`
}

// Revision edit sources (SPEC.md §2).
const (
	EditUser    = "user"
	EditAgent   = "agent"
	EditRestore = "restore"
)

// Revision is an immutable saved version of a page's content, except that the newest `user`
// revision absorbs further saves during its coalescing window (see SavePage).
type Revision struct {
	ID         int64     `db:"id"`
	PageID     int64     `db:"page_id"`
	Version    int       `db:"version"`
	Content    string    `db:"content"`
	EditSource string    `db:"edit_source"`
	AuthorID   *int64    `db:"author_id"`
	CreatedAt  time.Time `db:"created_at"`
}

// RevisionSummary is one row of the revisions panel (no content). Adds, Dels and Sections say what
// it changed against the revision before (lines added and removed, a JSON array of section
// titles); they are nil until SetRevisionChanges stored them.
type RevisionSummary struct {
	ID         int64     `db:"id"`
	Version    int       `db:"version"`
	EditSource string    `db:"edit_source"`
	CreatedAt  time.Time `db:"created_at"`
	Adds       *int      `db:"adds"`
	Dels       *int      `db:"dels"`
	Sections   []byte    `db:"sections"`
}

// RevisionText is a revision's content with the content of the revision before it ("" for the
// first), for computing what it changed.
type RevisionText struct {
	ID       int64  `db:"id"`
	Content  string `db:"content"`
	Previous string `db:"previous"`
}

// RevisionChange is what SetRevisionChanges stores for one revision.
type RevisionChange struct {
	ID       int64    `json:"id"`
	Adds     int      `json:"adds"`
	Dels     int      `json:"dels"`
	Sections []string `json:"sections"`
}

// VersionConflict is SavePage's error when the save was based on an older version: Current is the
// page as stored, for the person to compare and choose.
type VersionConflict struct {
	Current Page
}

func (e *VersionConflict) Error() string {
	return "db: page changed since version the save was based on"
}

// Unwrap makes a VersionConflict a fault.Conflict.
func (e *VersionConflict) Unwrap() error {
	return &fault.Error{Code: fault.Conflict, Message: "This page was changed elsewhere since you loaded it."}
}

const pageColumns = `id, owner_id, title, content, version, current_revision_id, created_at, updated_at, deleted_at`

const revisionColumns = `id, page_id, version, content, edit_source, author_id, created_at`

// CreatePage stores a new page with its first `user` revision (version 1).
func (s *Store) CreatePage(ctx context.Context, ownerID int64, title, content string) (Page, error) {
	var p Page
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if err := tx.GetContext(ctx, &p, `INSERT INTO pages (owner_id, title, content) VALUES ($1, $2, $3)
			RETURNING `+pageColumns, ownerID, title, content); err != nil {
			return err
		}
		rev, err := insertRevision(ctx, tx, p.ID, p.Version, content, EditUser, ownerID, "")
		if err != nil {
			return err
		}
		p.CurrentRevisionID = &rev
		_, err = tx.ExecContext(ctx, `UPDATE pages SET current_revision_id = $1 WHERE id = $2`, rev, p.ID)
		return err
	})
	if err != nil {
		return Page{}, notFound(err, "create page")
	}
	return p, nil
}

// insertRevision adds revision version of a page and returns its id; editorSession "" (every
// source but an editor's autosave) stores none.
func insertRevision(ctx context.Context, tx *sqlx.Tx, pageID int64, version int, content, source string, authorID int64,
	editorSession string) (int64, error) {
	var id int64
	err := tx.GetContext(ctx, &id, `INSERT INTO page_revisions (page_id, version, content, edit_source, author_id, editor_session)
		VALUES ($1, $2, $3, $4, $5, NULLIF($6, '')) RETURNING id`, pageID, version, content, source, nullID(authorID), editorSession)
	return id, err
}

// UserPage returns the owner's live page; a trashed, missing or foreign one is ErrNotFound.
func (s *Store) UserPage(ctx context.Context, ownerID, id int64) (Page, error) {
	var p Page
	err := s.DB.GetContext(ctx, &p, `SELECT `+pageColumns+` FROM pages
		WHERE id = $1 AND owner_id = $2 AND deleted_at IS NULL`, id, ownerID)
	return p, notFound(err, "user page")
}

// PageCursor is a keyset position in the page list: the last row's (updated_at, id).
type PageCursor struct {
	UpdatedAt time.Time
	ID        int64
}

// ListPages lists the owner's live pages, most recently updated first, limit rows after the cursor
// (nil: the first page of results). It uses pages_owner_updated_idx.
func (s *Store) ListPages(ctx context.Context, ownerID int64, after *PageCursor, limit int) ([]PageSummary, error) {
	var rows []PageSummary
	var afterTime any
	var afterID int64
	if after != nil {
		afterTime, afterID = after.UpdatedAt, after.ID
	}
	err := s.DB.SelectContext(ctx, &rows, `SELECT id, title, updated_at, deleted_at FROM pages
		WHERE owner_id = $1 AND deleted_at IS NULL
		  AND ($2::timestamptz IS NULL OR (updated_at, id) < ($2, $3))
		ORDER BY updated_at DESC, id DESC LIMIT $4`, ownerID, afterTime, afterID, limit)
	return rows, notFound(err, "list pages")
}

// TrashedPages lists the owner's trashed pages, most recently trashed first (at most limit).
func (s *Store) TrashedPages(ctx context.Context, ownerID int64, limit int) ([]PageSummary, error) {
	var rows []PageSummary
	err := s.DB.SelectContext(ctx, &rows, `SELECT id, title, updated_at, deleted_at FROM pages
		WHERE owner_id = $1 AND deleted_at IS NOT NULL
		ORDER BY deleted_at DESC, id DESC LIMIT $2`, ownerID, limit)
	return rows, notFound(err, "trashed pages")
}

// PageSave is the input of SavePage. BaseVersion is the version the editor's text was based on.
// Coalesce is the window during which the newest `user` revision by the same author absorbs the
// save instead of a new revision being written.
type PageSave struct {
	OwnerID     int64
	PageID      int64
	BaseVersion int
	Title       string
	Content     string
	// EditorSession names the open editor (one browser tab) that saves, as page.js makes it (a
	// random id per page load); "" for none, which never coalesces.
	EditorSession string
	Coalesce      time.Duration
}

// SavePage stores the person's title and content. Nothing changes when both equal what is stored.
// Otherwise the version goes up and the content lands in a revision: the newest one when it is a
// `user` revision that the same editor session (in.EditorSession) wrote, younger than in.Coalesce
// (so continuous typing makes one revision per window), unless it is the page's first revision or
// a proposal's base revision (those never change), else a new `user` revision. So a save never
// rewrites text that another tab, a proposal or a restore wrote: every saved text stays in some
// revision but the intermediate states of one tab's own typing. A save whose BaseVersion is not the stored
// version returns *VersionConflict with the stored page; a trashed or foreign page is ErrNotFound.
func (s *Store) SavePage(ctx context.Context, in PageSave) (Page, error) {
	var p Page
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		if p, err = lockPage(ctx, tx, in.OwnerID, in.PageID); err != nil {
			return err
		}
		if p.Title == in.Title && p.Content == in.Content {
			return nil // an echo of what is stored (e.g. a retried save): nothing to do
		}
		if p.Version != in.BaseVersion {
			return &VersionConflict{Current: p}
		}
		contentChanged := p.Content != in.Content
		p.Version++
		p.Title, p.Content = in.Title, in.Content
		if contentChanged {
			// The first revision (the page as created) and one a proposal is based on stay as they
			// are: the revisions list and the three-way merge rely on them.
			var cur Revision
			var session sql.NullString
			var fixed bool
			err := tx.QueryRowxContext(ctx, `SELECT r.id, r.page_id, r.version, r.edit_source, r.author_id, r.created_at,
				r.editor_session,
				NOT EXISTS (SELECT 1 FROM page_revisions b WHERE b.page_id = r.page_id AND b.version < r.version)
				OR EXISTS (SELECT 1 FROM page_edit_proposal pr WHERE pr.base_revision_id = r.id)
				FROM page_revisions r WHERE r.id = $1`, p.CurrentRevisionID).Scan(
				&cur.ID, &cur.PageID, &cur.Version, &cur.EditSource, &cur.AuthorID, &cur.CreatedAt, &session, &fixed)
			coalesce := err == nil && !fixed && cur.EditSource == EditUser && cur.AuthorID != nil && *cur.AuthorID == in.OwnerID &&
				in.EditorSession != "" && session.String == in.EditorSession && time.Since(cur.CreatedAt) < in.Coalesce
			if coalesce {
				if _, err := tx.ExecContext(ctx, `UPDATE page_revisions SET content = $1, version = $2,
					adds = NULL, dels = NULL, sections = NULL WHERE id = $3`,
					p.Content, p.Version, cur.ID); err != nil {
					return err
				}
			} else {
				id, err := insertRevision(ctx, tx, p.ID, p.Version, p.Content, EditUser, in.OwnerID, in.EditorSession)
				if err != nil {
					return err
				}
				p.CurrentRevisionID = &id
			}
		}
		return tx.GetContext(ctx, &p, `UPDATE pages SET title = $1, content = $2, version = $3,
			current_revision_id = $4, updated_at = now() WHERE id = $5 RETURNING `+pageColumns,
			p.Title, p.Content, p.Version, p.CurrentRevisionID, p.ID)
	})
	return p, err
}

// lockPage reads the owner's live page for update inside tx.
func lockPage(ctx context.Context, tx *sqlx.Tx, ownerID, pageID int64) (Page, error) {
	var p Page
	err := tx.GetContext(ctx, &p, `SELECT `+pageColumns+` FROM pages
		WHERE id = $1 AND owner_id = $2 AND deleted_at IS NULL FOR UPDATE`, pageID, ownerID)
	return p, notFound(err, "lock page")
}

// writeRevision sets a locked page's content with a new revision of source and returns the page.
func writeRevision(ctx context.Context, tx *sqlx.Tx, p Page, content, source string, authorID int64) (Page, error) {
	id, err := insertRevision(ctx, tx, p.ID, p.Version+1, content, source, authorID, "")
	if err != nil {
		return p, err
	}
	err = tx.GetContext(ctx, &p, `UPDATE pages SET content = $1, version = version + 1, current_revision_id = $2,
		updated_at = now() WHERE id = $3 RETURNING `+pageColumns, content, id, p.ID)
	return p, err
}

// RestoreRevision makes revision revisionID of the owner's page the current content, as a new
// `restore` revision (also when the content is unchanged, so the list shows the restore). It returns
// the page. A foreign page or a revision of another page is ErrNotFound.
func (s *Store) RestoreRevision(ctx context.Context, ownerID, pageID, revisionID int64) (Page, error) {
	var p Page
	err := s.WithTx(ctx, func(tx *sqlx.Tx) error {
		var err error
		if p, err = lockPage(ctx, tx, ownerID, pageID); err != nil {
			return err
		}
		var content string
		if err := tx.GetContext(ctx, &content, `SELECT content FROM page_revisions WHERE id = $1 AND page_id = $2`,
			revisionID, pageID); err != nil {
			return notFound(err, "revision to restore")
		}
		p, err = writeRevision(ctx, tx, p, content, EditRestore, ownerID)
		return err
	})
	return p, err
}

// Revisions lists the page's revisions, newest first: at most limit with a version below before
// (0: from the newest). The page must be the owner's and live.
func (s *Store) Revisions(ctx context.Context, ownerID, pageID int64, before, limit int) ([]RevisionSummary, error) {
	var rows []RevisionSummary
	err := s.DB.SelectContext(ctx, &rows, `SELECT r.id, r.version, r.edit_source, r.created_at, r.adds, r.dels, r.sections
		FROM page_revisions r JOIN pages p ON p.id = r.page_id
		WHERE r.page_id = $1 AND p.owner_id = $2 AND p.deleted_at IS NULL AND ($3 = 0 OR r.version < $3)
		ORDER BY r.version DESC LIMIT $4`, pageID, ownerID, before, limit)
	return rows, notFound(err, "revisions")
}

// RevisionTexts returns the content of page pageID's revisions among ids, each with the content of
// the revision before it, in one statement (the caller has checked the page is the person's).
func (s *Store) RevisionTexts(ctx context.Context, pageID int64, ids []int64) ([]RevisionText, error) {
	var rows []RevisionText
	err := s.DB.SelectContext(ctx, &rows, `SELECT r.id, r.content, coalesce(prev.content, '') AS previous
		FROM page_revisions r
		LEFT JOIN LATERAL (SELECT b.content FROM page_revisions b WHERE b.page_id = r.page_id AND b.version < r.version
			ORDER BY b.version DESC LIMIT 1) prev ON true
		WHERE r.page_id = $1 AND r.id = ANY($2)`, pageID, int64Array(ids))
	return rows, notFound(err, "revision texts")
}

// SetRevisionChanges stores what revisions of page pageID changed, in one statement.
func (s *Store) SetRevisionChanges(ctx context.Context, pageID int64, changes []RevisionChange) error {
	if len(changes) == 0 {
		return nil
	}
	b, err := json.Marshal(changes)
	if err != nil {
		return err
	}
	_, err = s.DB.ExecContext(ctx, `UPDATE page_revisions r SET adds = x.adds, dels = x.dels, sections = x.sections
		FROM jsonb_to_recordset($2::jsonb) AS x(id bigint, adds integer, dels integer, sections jsonb)
		WHERE r.id = x.id AND r.page_id = $1`, pageID, string(b))
	return notFound(err, "set revision changes")
}

// RevisionPair returns two revisions of the owner's live page, the older (lower version) first.
// A revision of another page, or a foreign page, is ErrNotFound.
func (s *Store) RevisionPair(ctx context.Context, ownerID, pageID, a, b int64) (Revision, Revision, error) {
	var rows []Revision
	err := s.DB.SelectContext(ctx, &rows, `SELECT `+prefixed("r.", revisionColumns)+`
		FROM page_revisions r JOIN pages p ON p.id = r.page_id
		WHERE r.id IN ($1, $2) AND r.page_id = $3 AND p.owner_id = $4 AND p.deleted_at IS NULL
		ORDER BY r.version`, a, b, pageID, ownerID)
	if err != nil {
		return Revision{}, Revision{}, notFound(err, "revision pair")
	}
	if len(rows) != 2 {
		return Revision{}, Revision{}, ErrNotFound
	}
	return rows[0], rows[1], nil
}

// RevisionWithPrevious returns one revision of the owner's live page and the one before it
// (Previous is nil for the first).
func (s *Store) RevisionWithPrevious(ctx context.Context, ownerID, pageID, revisionID int64) (Revision, *Revision, error) {
	var r Revision
	err := s.DB.GetContext(ctx, &r, `SELECT `+prefixed("r.", revisionColumns)+`
		FROM page_revisions r JOIN pages p ON p.id = r.page_id
		WHERE r.id = $1 AND r.page_id = $2 AND p.owner_id = $3 AND p.deleted_at IS NULL`, revisionID, pageID, ownerID)
	if err != nil {
		return r, nil, notFound(err, "revision")
	}
	var prev Revision
	err = s.DB.GetContext(ctx, &prev, `SELECT `+revisionColumns+`
		FROM page_revisions WHERE page_id = $1 AND version < $2 ORDER BY version DESC LIMIT 1`, pageID, r.Version)
	if err != nil {
		if err := notFound(err, "previous revision"); err != ErrNotFound {
			return r, nil, err
		}
		return r, nil, nil
	}
	return r, &prev, nil
}

// TrashPage moves the owner's live page to the trash; its chats and proposals stay, hidden with it.
func (s *Store) TrashPage(ctx context.Context, ownerID, pageID int64) error {
	res, err := s.DB.ExecContext(ctx, `UPDATE pages SET deleted_at = now()
		WHERE id = $1 AND owner_id = $2 AND deleted_at IS NULL`, pageID, ownerID)
	return affectedOne(res, err, "trash page")
}

// RestorePage brings the owner's page back from the trash, with its chats and proposals.
func (s *Store) RestorePage(ctx context.Context, ownerID, pageID int64) error {
	res, err := s.DB.ExecContext(ctx, `UPDATE pages SET deleted_at = NULL, updated_at = now()
		WHERE id = $1 AND owner_id = $2 AND deleted_at IS NOT NULL`, pageID, ownerID)
	return affectedOne(res, err, "restore page")
}

// PurgePage deletes the owner's trashed page for good, with its revisions, chats (and their
// messages) and proposals (foreign keys cascade).
func (s *Store) PurgePage(ctx context.Context, ownerID, pageID int64) error {
	return s.WithTx(ctx, func(tx *sqlx.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE pages SET current_revision_id = NULL
			WHERE id = $1 AND owner_id = $2 AND deleted_at IS NOT NULL`, pageID, ownerID); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM pages WHERE id = $1 AND owner_id = $2 AND deleted_at IS NOT NULL`, pageID, ownerID)
		return affectedOne(res, err, "purge page")
	})
}

type rowsAffected interface{ RowsAffected() (int64, error) }

// affectedOne turns an UPDATE/DELETE that touched no row into ErrNotFound.
func affectedOne(res rowsAffected, err error, doing string) error {
	if err != nil {
		return notFound(err, doing)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return notFound(err, doing)
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}
