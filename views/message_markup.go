package views

import (
	"time"

	"github.com/a-h/templ"
)

// MessageItem is one message's markup (messageItem). That of a finished message without
// suggestions is rendered once per distinct view model and then reused (markupCache): a
// conversation's page, its stream's snapshot and every reopening show the same finished messages.
func MessageItem(m MessageView, exchangeID int64) templ.Component {
	if m.Status == "pending" || m.Status == "streaming" || len(m.Suggestions) > 0 {
		return messageItem(m, exchangeID)
	}
	k := messageKeyOf(m, exchangeID)
	if hit, ok := messageMarkup.get(k); ok {
		return hit
	}
	weight := len(m.Text) + len(m.HTML) + len(m.Arguments) + len(m.Result) + len(m.Error) + 256
	return messageMarkup.rendering(k, weight, messageItem(m, exchangeID))
}

// historyItem is one sidebar item's markup (historyItemMarkup), rendered once per distinct item.
func historyItem(h HistoryItem) templ.Component {
	if hit, ok := historyMarkup.get(h); ok {
		return hit
	}
	return historyMarkup.rendering(h, len(h.Title)+len(h.Avatar)+128, historyItemMarkup(h))
}

// messageMarkup and historyMarkup keep up to 2 × 8 MB and 2 × 1 MB of markup.
var (
	messageMarkup = newMarkupCache[messageKey](8 << 20)
	historyMarkup = newMarkupCache[HistoryItem](1 << 20)
)

// messageKey is everything messageItem reads: the exchange and every field of MessageView but
// Suggestions (a slice, so not comparable; a message with suggestions is not memoized).
// TestMessageKeyHoldsEveryFieldOfTheView fails when MessageView gains a field this lacks.
type messageKey struct {
	ExchangeID     int64
	ID             int64
	Role           string
	Status         string
	Text           string
	HTML           string
	ToolLabel      string
	Arguments      string
	ArgumentsMore  int
	Result         string
	DurationMS     int
	AgentName      string
	AgentAvatar    string
	AgentAccent    string
	At             time.Time
	GroupStart     bool
	ShowTime       bool
	Model          string
	Tokens         int
	Error          string
	Truncated      bool
	ViaRouter      bool
	HandoffReason  string
	Confidence     string
	Feedback       string
	FeedbackReason string
	OOB            bool
	ProposalURL    string
	Version        int
	Versions       int
	PrevVersion    int64
	NextVersion    int64
}

func messageKeyOf(m MessageView, exchangeID int64) messageKey {
	return messageKey{
		ExchangeID: exchangeID, ID: m.ID, Role: m.Role, Status: m.Status, Text: m.Text, HTML: m.HTML,
		ToolLabel: m.ToolLabel, Arguments: m.Arguments, ArgumentsMore: m.ArgumentsMore, Result: m.Result,
		DurationMS: m.DurationMS, AgentName: m.AgentName, AgentAvatar: m.AgentAvatar, AgentAccent: m.AgentAccent,
		At: m.At, GroupStart: m.GroupStart, ShowTime: m.ShowTime, Model: m.Model, Tokens: m.Tokens,
		Error: m.Error, Truncated: m.Truncated, ViaRouter: m.ViaRouter, HandoffReason: m.HandoffReason,
		Confidence: m.Confidence, Feedback: m.Feedback, FeedbackReason: m.FeedbackReason, OOB: m.OOB,
		ProposalURL: m.ProposalURL, Version: m.Version, Versions: m.Versions,
		PrevVersion: m.PrevVersion, NextVersion: m.NextVersion,
	}
}
