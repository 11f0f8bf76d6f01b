package views

import (
	"encoding/json"
	"strconv"
	"time"
)

// PagesList is /pages: the person's pages, newest first, and the trash.
type PagesList struct {
	Page
	Pages []PageRow
	// More is the URL of the next page of the list ("" when there is none).
	More  string
	Trash []PageRow
}

// PageRow is one page in the list or the trash.
type PageRow struct {
	ID        int64
	Title     string
	UpdatedAt time.Time
	DeletedAt time.Time
}

// PageNew is the new-page form with what was typed and its error.
type PageNew struct {
	Page
	Title, Content, Error string
}

// PageShow is a page rendered for reading. HTML is sanitised markdown.
type PageShow struct {
	Page
	ID        int64
	Title     string
	HTML      string
	UpdatedAt time.Time
}

// PageEditor is /pages/{id}/edit: the editor on the left and the chat panel on the right.
type PageEditor struct {
	Page
	ID      int64
	Title   string
	Content string
	Version int
	Chat    ChatPane
	History []PageChatItem
	// Revisions, when set, opens the side panel on the revisions instead of the chat.
	Revisions *Revisions
	// SideWidth is the side panel's width the person chose, in CSS pixels (0: the default 40%).
	SideWidth int
}

// PageChatItem is one conversation in the page chat's history list.
type PageChatItem struct {
	ID     int64
	PageID int64
	Title  string
	Turns  int
	At     time.Time
	Active bool
}

// PageChatHistory is the page chat's history list (a fragment).
type PageChatHistory struct {
	PageID int64
	Items  []PageChatItem
}

// PageSync carries the page as stored to the editor after a change made on the server (an
// accepted proposal, an undo, a restore): page.js puts it in the textarea.
type PageSync struct {
	Version int
	Content string
	Title   string
}

// SaveConflict is what a save based on an old version answers: the stored version and the diff
// from it to what the person has, for them to choose.
type SaveConflict struct {
	PageID        int64
	ServerVersion int
	ServerContent string
	ServerTitle   string
	Diff          DiffView
}

// DiffView is a line diff ready to show.
type DiffView struct {
	Adds, Dels int
	Hunks      []HunkView
}

// HunkView is one hunk: its "@@ … @@" header and lines.
type HunkView struct {
	Header string
	Lines  []DiffLineView
}

// DiffLineView is one diff line: Kind is "equal", "insert" or "delete".
type DiffLineView struct {
	Kind string
	Text string
	// NoEOL marks the text's last line when it has no line ending ("\ No newline at end of file").
	NoEOL bool
	// Words, when set, is Text cut into unchanged and changed runs (a changed line paired with
	// one on the other side); the changed ones are highlighted.
	Words []DiffWord
}

// DiffWord is a run of a diff line's text; Changed marks words the paired line does not have.
type DiffWord struct {
	Text    string
	Changed bool
}

// Revisions is the revisions panel: newest first, with the selected one's diff to the one before.
type Revisions struct {
	PageID int64
	Rows   []RevisionRow
	// More is the URL of older revisions ("" when there are none).
	More string
}

// RevisionRow is one revision in the list.
type RevisionRow struct {
	ID         int64
	Version    int
	EditSource string
	At         time.Time
	Current    bool
	// Adds and Dels count the lines it added and removed against the revision before; Sections
	// names the sections it touched.
	Adds, Dels int
	Sections   []string
}

// RevisionDetail is one revision's diff against the one before it, with Restore.
type RevisionDetail struct {
	PageID     int64
	ID         int64
	Version    int
	EditSource string
	At         time.Time
	First      bool
	Current    bool
	Diff       DiffView
	// Against is the version compared with when two picked revisions are compared (0: the
	// revision before); then ID and Version are the newer one's.
	Against int
}

// ProposalView is a proposal under its assistant message.
type ProposalView struct {
	ID        int64
	PageID    int64
	Kind      string // "full_replacement" or "section_patch"
	Status    string // "pending", "accepted", "rejected", "superseded"
	Summary   string
	Reasoning string
	Stale     bool
	Reason    string
	Note      string
	Unchanged bool
	// Diff is the whole change (its counts head a full replacement); Rows are what can be applied
	// on its own: the full replacement's hunks or the section patch's changed sections.
	Diff DiffView
	Rows []ProposalRow
	// Warning is what accepting all of it would break that the diff does not show ("" for none).
	Warning string
	// Selected lists the rows checked (kept across re-renders).
	Selected map[int]bool
	// Version is the page version this view was computed against; Accept sends it back.
	Version int
	// Error is a message from the last action (e.g. a 409).
	Error string
	// Redo lets the person ask the assistant again on the current text: where to post and what.
	RedoURL, RedoQuery, RedoKey string
	// Sync, when set, updates the editor out of band (after Accept or Undo).
	Sync *PageSync
	// Places are where a new section can go (a section patch that adds one), Place the chosen one.
	Places []Place
	Place  string
}

// Place is one choice of where a new section goes.
type Place struct {
	Value, Label string
}

// ProposalRow is one hunk of a full replacement or one changed section of a section patch.
type ProposalRow struct {
	Index  int
	Label  string // "Lines 12–15" for a hunk, the heading for a section
	Change string // "changed", "new", "removed"
	Diff   DiffView
}

func pageURL(id int64, suffix string) string {
	return "/pages/" + strconv.FormatInt(id, 10) + suffix
}

func i64(n int64) string { return strconv.FormatInt(n, 10) }

func proposalID(id int64) string { return "proposal-" + strconv.FormatInt(id, 10) }

func dateLabel(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

func selectedCount(m map[int]bool) int {
	n := 0
	for _, v := range m {
		if v {
			n++
		}
	}
	return n
}

// titleOr is the title, or "Untitled" for an empty one.
func titleOr(t string) string {
	if t == "" {
		return "Untitled"
	}
	return t
}

// redoVals are the form values of the "ask again" button: the original request, a fresh key.
func redoVals(p ProposalView) string {
	b, _ := json.Marshal(map[string]string{"query": p.RedoQuery, "idempotency_key": p.RedoKey})
	return string(b)
}

// PagePostURL is where the page chat's composer posts: a new chat about the page, or a follow-up.
func PagePostURL(pageID, exchangeID int64) string {
	if exchangeID == 0 {
		return pageURL(pageID, "/chats")
	}
	return pageURL(pageID, "/chats/"+i64(exchangeID)+"/messages")
}
