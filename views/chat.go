package views

import (
	"strconv"
	"time"

	"parley/markdown"
)

// ChatPage is the standalone chat page: the history sidebar, the conversation and the composer.
type ChatPage struct {
	Page
	Pane    ChatPane
	History []HistoryItem
	// HistoryMore is the keyset cursor of the sidebar's next page ("" when there is none).
	HistoryMore string
	// Undo, when it has ids, shows the toast that restores conversations just moved to the Trash.
	Undo Undo
}

// ChatPane is the conversation area. It is also the fragment the composer's POST answers with.
type ChatPane struct {
	// ExchangeID is 0 on the welcome screen of a new conversation.
	ExchangeID int64
	Agent      AgentView
	Messages   []MessageView
	// Busy is true while an answer is being generated (the composer cannot send).
	Busy      bool
	ShowTools bool
	// Composer state: what is typed, its error, a fresh idempotency key, the length limit.
	Query          string
	QueryError     string
	IdempotencyKey string
	MaxQueryChars  int
	// RetryAfter > 0 shows the rate-limit banner for that many seconds.
	RetryAfter int
	CSRF       string
	// PageID is set for the chat panel of the page editor (a chat about that page).
	PageID int64
	// NewURL is where a new conversation's first message posts ("" = /chat/messages, general chat);
	// NewChatURL is the New chat link ("" = /chat/new).
	NewURL, NewChatURL string
	// Guest hides what needs an account (the Tools preference, history); SignUpURL invites a guest
	// to keep the conversation. Embed is the iframe widget (minimal chrome).
	Guest     bool
	Embed     bool
	NoHistory bool
	SignUpURL string
	// Unavailable, when set, is shown as a banner and disables the composer (agent disabled or deleted).
	Unavailable string
	// Models the person may pick for this conversation (shown when more than one), and the current one.
	Models []string
	Model  string
	// Team, when set, is the team whose members the agent sidebar lists.
	Team *TeamView
	// Older is the position before which older messages exist (loaded on scroll), 0 when none.
	Older int
	// From is the position the shown messages start at when the page opened at a message (its
	// stream's snapshot keeps them), 0 otherwise.
	From int
	// FocusMessage is the element id of the message a search result opened, "" otherwise.
	FocusMessage string
}

// AgentView is how an agent is shown. Avatar is an emoji or text, or a data:image URL.
// Accent names the theme's colour ("" = the default indigo); ShowReasoning false hides reasoning items.
type AgentView struct {
	Name, Avatar, Welcome string
	Accent                string
	ShowReasoning         bool
}

// welcomeHTML is the welcome message (markdown) as sanitised HTML.
func (a AgentView) welcomeHTML() string { return markdown.Render(a.Welcome) }

// TeamView is a team's agent sidebar: "Auto" (the router picks) or a pinned member.
type TeamView struct {
	ID      int64
	Name    string
	Members []TeamMemberView
	// Pinned is the member id chosen in the sidebar, 0 for Auto.
	Pinned int64
}

// TeamMemberView is one member in the team sidebar.
type TeamMemberView struct {
	ID                        int64
	Name, Avatar, Description string
}

// MessageView is one message as rendered. HTML is sanitised markdown for assistant text; Text is
// plain text for user messages, arguments and results.
type MessageView struct {
	ID        int64
	Role      string
	Status    string
	Text      string
	HTML      string
	ToolLabel string
	// Arguments is a tool call's arguments, pretty-printed JSON, cut to their opening when long
	// (a whole-page rewrite carries the document); ArgumentsMore counts the characters left out,
	// which load when the person asks (GET /sessions/{id}/messages/{mid}/arguments).
	Arguments     string
	ArgumentsMore int
	Result        string
	DurationMS    int
	AgentName     string
	AgentAvatar   string
	// AgentAccent is the answering agent's theme colour ("" for none), so each member of a team
	// answers in its own colours.
	AgentAccent string
	At          time.Time
	// GroupStart marks the first message of a run by one speaker: it shows the name and time.
	GroupStart bool
	// ShowTime says a group's time shows at all times: at the conversation's first message and
	// after a pause of more than five minutes (SPEC §4's group boundaries); other times show
	// when the pointer or the focus is on the message.
	ShowTime bool
	Model    string
	Tokens   int
	Error    string
	// Truncated: the model stopped at its token limit; the answer says so and offers Continue.
	Truncated bool
	ViaRouter bool
	// HandoffReason is why the router handed the turn to this agent (shown on the badge).
	HandoffReason string
	// Confidence is the agent's own estimate ("low", "medium", "high"), when it gave one.
	Confidence  string
	Suggestions []Suggestion
	// Feedback is the person's rating of an answer ("up", "down" or ""), with its optional reason.
	Feedback       string
	FeedbackReason string
	// OOB renders the message as an htmx out-of-band replacement (for streamed updates).
	OOB bool
	// ProposalURL loads the edit proposal the answer carries ("" when none).
	ProposalURL string
	// Version and Versions place a user message or an answer among its branches (‹ 2/3 ›);
	// Versions is 0 or 1 when it has no siblings. PrevVersion and NextVersion are their ids.
	Version, Versions        int
	PrevVersion, NextVersion int64
}

// HistoryItem is one conversation in the sidebar.
type HistoryItem struct {
	ID     int64
	Title  string
	Avatar string
	Turns  int
	At     time.Time
	Active bool
}

// PostURL is where the composer posts.
func (p ChatPane) PostURL() string {
	if p.PageID != 0 {
		return PagePostURL(p.PageID, p.ExchangeID)
	}
	if p.ExchangeID == 0 {
		if p.NewURL != "" {
			return p.NewURL
		}
		return "/chat/messages"
	}
	return historyURL(p.ExchangeID, "/messages")
}

func (p ChatPane) newChatURL() string {
	if p.NewChatURL != "" {
		return p.NewChatURL
	}
	return "/chat/new"
}

// streamURL is the pane's SSE stream; a page opened at an older message asks its snapshots to
// start there too.
func (p ChatPane) streamURL() string {
	if p.From > 0 {
		return historyURL(p.ExchangeID, "/events?from="+strconv.Itoa(p.From))
	}
	return historyURL(p.ExchangeID, "/events")
}

// MessageElementID is the HTML id of a message's element: "message-42".
func MessageElementID(id int64) string { return "message-" + strconv.FormatInt(id, 10) }

// timeLabel is a short UTC time, re-rendered in the viewer's zone by app.js from the datetime attribute.
func timeLabel(t time.Time) string { return t.UTC().Format("15:04") }

// dateTimeLabel is a moment with its day, e.g. "2026-12-01 08:56" (UTC; chat.js shows it in the
// reader's zone).
func dateTimeLabel(t time.Time) string { return t.UTC().Format("2006-01-02 15:04") }

func isoTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func boolAttr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func itoa(n int) string { return strconv.Itoa(n) }

// Suggestion is an action card under an answer: a label and the local URL it opens.
type Suggestion struct {
	Label, URL string
}

// TextPart is a piece of a search snippet or title; Match marks the words the search matched.
type TextPart struct {
	Text  string
	Match bool
}

// SearchResultView is one conversation found by the sidebar search: its title and best snippet
// (both with matches marked) and the URL that opens it at the matching message. Page is the title
// of the page a page chat is about ("" for general chat).
type SearchResultView struct {
	URL     string
	Page    string
	Title   []TextPart
	Snippet []TextPart
	At      time.Time
}

// TrashItem is one conversation in the Trash.
type TrashItem struct {
	ID        int64
	Title     string
	DeletedAt time.Time
	// Page is the title of the page a page chat is about ("" for a general conversation).
	Page string
}

// ShareLink is one share link of a conversation, as its owner sees it.
type ShareLink struct {
	ID        int64
	URL       string
	CreatedAt time.Time
	Revoked   bool
}
