package handlers

import (
	"context"
	"maps"
	"net/http"
	"slices"
	"strconv"

	"github.com/labstack/echo/v4"

	"parley/chat"
	"parley/db"
	"parley/fault"
	"parley/views"
)

// conversationWindow is how many messages a conversation opens with; older ones load on scroll.
const conversationWindow = 40

// conversationWindow reads the messages the pane shows: the newest window of the branch on screen,
// widened down to the message a search result opens (?m=id, two messages before it for context) or
// to where the page's stream started (?from=position, on the stream's own requests), with the
// ‹ n/m › versions of those that have others. It sets the pane's Older, From and FocusMessage.
func (a *app) conversationWindow(c echo.Context, pane *views.ChatPane, e db.Exchange) ([]db.Message, map[int64]db.Siblings, error) {
	ctx := c.Request().Context()
	from, _ := strconv.Atoi(c.QueryParam("from"))
	mid, err := strconv.ParseInt(c.QueryParam("m"), 10, 64)
	if err == nil && mid > 0 && e.LeafMessageID != nil {
		// A hit in an older version opens that version (as switching to it does).
		changed, err := a.store.ShowVersionOf(ctx, e.ID, mid)
		if err != nil {
			return nil, nil, err
		}
		if changed {
			a.notifier.Publish(e.ID, chat.BranchChanged)
		}
	}
	msgs, versions, older, err := a.window(ctx, e, 0)
	if err != nil {
		return nil, nil, err
	}
	if mid > 0 {
		if m, err := a.store.MessageByID(ctx, e.ID, mid); err == nil {
			from = max(m.Position-2, 1)
			pane.FocusMessage = views.MessageElementID(mid)
		}
	}
	if from > 0 && older && len(msgs) > 0 && from < msgs[0].Position {
		more, moreOlder, err := a.store.ExchangeRange(ctx, e.ID, from, msgs[0].Position)
		if err != nil {
			return nil, nil, err
		}
		if e.LeafMessageID != nil && len(more) > 0 {
			ids := make([]int64, len(more))
			for i, m := range more {
				ids[i] = m.ID
			}
			moreVersions, err := a.store.BranchSiblings(ctx, e.ID, ids)
			if err != nil {
				return nil, nil, err
			}
			maps.Copy(versions, moreVersions)
		}
		msgs, older, pane.From = append(more, msgs...), moreOlder, from
	}
	if older && len(msgs) > 0 {
		pane.Older = msgs[0].Position
	}
	return msgs, versions, nil
}

// window reads the newest conversationWindow messages of e's branch on screen before position
// before (0: up to the end), and whether older ones exist. A conversation that ever branched gets
// the ‹ n/m › versions of those messages in the same statement (db.BranchWindow), so it costs the
// statements of one that never did, whose versions map is empty.
func (a *app) window(ctx context.Context, e db.Exchange, before int) ([]db.Message, map[int64]db.Siblings, bool, error) {
	if e.LeafMessageID != nil {
		return a.store.BranchWindow(ctx, e.ID, before, conversationWindow)
	}
	msgs, older, err := a.store.ExchangeWindow(ctx, e.ID, before, conversationWindow)
	return msgs, map[int64]db.Siblings{}, older, err
}

// finishedVersions reads the versions of the changed (ids) user messages and answers of msgs that
// are no longer being written, for a stream's updates: their ‹ n/m › shows once they are final.
// Text still streaming needs no query.
func (a *app) finishedVersions(ctx context.Context, exchangeID int64, ids []int64, msgs []db.Message) (map[int64]db.Siblings, error) {
	var final []int64
	for _, m := range msgs {
		if slices.Contains(ids, m.ID) && (m.Role == db.RoleUser || m.Role == db.RoleAssistant) &&
			m.Status != db.StatusPending && m.Status != db.StatusStreaming {
			final = append(final, m.ID)
		}
	}
	if len(final) == 0 {
		return nil, nil
	}
	return a.store.BranchSiblings(ctx, exchangeID, final) // none, in one statement, if it never branched
}

// setVersions sets a message view's ‹ n/m › from sibs, when it has versions.
func setVersions(v *views.MessageView, sibs map[int64]db.Siblings) {
	if s, ok := sibs[v.ID]; ok {
		v.Version, v.Versions, v.PrevVersion, v.NextVersion = s.Index, s.Count, s.Prev, s.Next
	}
}

// showOlderMessages answers the scroll sentinel at the top of a conversation with the window of
// messages before position ?before, and a sentinel of its own when still older ones exist.
func (a *app) showOlderMessages(c echo.Context) error {
	ctx := c.Request().Context()
	e, err := a.ownExchange(c)
	if err != nil {
		return err
	}
	before, err := strconv.Atoi(c.QueryParam("before"))
	if err != nil || before <= 0 {
		return db.ErrNotFound
	}
	msgs, versions, older, err := a.window(ctx, e, before)
	if err != nil {
		return err
	}
	agentsByID, err := a.store.AgentsByID(ctx, agentIDs(msgs))
	if err != nil {
		return err
	}
	shown := messageViews(msgs, agentsByID)
	for i := range shown {
		setVersions(&shown[i], versions)
	}
	olderAt := 0
	if older && len(msgs) > 0 {
		olderAt = msgs[0].Position
	}
	return render(c, http.StatusOK, views.OlderMessages(e.ID, shown, olderAt))
}

// submitRegenerate answers a question again as a new version of answer :mid (the old one stays,
// ‹ 1/2 ›), and shows the pane on the new branch.
func (a *app) submitRegenerate(c echo.Context) error {
	e, mid, err := a.ownMessage(c)
	if err != nil {
		return err
	}
	if _, err := a.regenerateAnswer(c, chatOwner(c), e, mid); err != nil {
		return err
	}
	return a.showBranch(c, e.ID)
}

// regenerateAnswer answers answerID's question again as a new version beside it (failed, stopped
// or complete: nothing is overwritten), makes it the end of the branch on screen and starts
// generating it. The Regenerate button and the API's regenerate both come here. A busy exchange is
// ErrBusy, an empty rate-limit bucket 429 (before any change).
func (a *app) regenerateAnswer(c echo.Context, owner db.Owner, e db.Exchange, answerID int64) (db.Message, error) {
	ctx := c.Request().Context()
	if a.generator.Running(e.ID) {
		return db.Message{}, db.ErrBusy
	}
	a.generator.WaitStored(ctx, e.ID) // an answer shown finished may still be on its way to the database
	agent, err := a.retryAgent(c, &e, answerID)
	if err != nil {
		return db.Message{}, err
	}
	if err := a.takeMessageSlot(c, owner); err != nil {
		return db.Message{}, err
	}
	m, err := a.store.Regenerate(ctx, owner, e.ID, answerID, agent.ID, agent.AgentType)
	if err != nil {
		return m, err
	}
	if err := a.startAnswer(ctx, chat.Job{UserID: owner.UserID, ExchangeID: e.ID, AnswerID: m.ID, Agent: agent, Model: e.Model, PageID: pageOf(e)}); err != nil {
		return m, err
	}
	a.notifier.Publish(e.ID, chat.BranchChanged)
	a.notifier.Publish(e.ID, m.ID)
	return m, nil
}

// submitEdit sends an edited query as a new version of user message :mid (the old one and what
// followed it stay, ‹ 1/2 ›) and shows the pane on the new branch.
func (a *app) submitEdit(c echo.Context) error {
	ctx := c.Request().Context()
	e, mid, err := a.ownMessage(c)
	if err != nil {
		return err
	}
	query := c.FormValue("query")
	if err := chat.CheckQuery(query, a.cfg.MaxQueryChars); err != nil {
		return err
	}
	if e.TeamID != nil {
		return fault.New(fault.Invalid, "Edit and resend is not available in team chats: send the corrected question as a new message.")
	}
	if wait, ok := a.allowChatMessage(c, chatOwner(c)); !ok {
		c.Response().Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds()+0.999)))
		return &fault.Error{Code: fault.RateLimited, Message: "You are sending messages too quickly. Wait a moment."}
	}
	agent, err := a.retryAgent(c, &e, mid)
	if err != nil {
		return err
	}
	_, answer, err := a.store.EditQuery(ctx, chatOwner(c), e.ID, mid, query, agent.ID, agent.AgentType)
	if err != nil {
		return err
	}
	a.notifier.Publish(e.ID, chat.BranchChanged)
	if err := a.startAnswer(ctx, chat.Job{UserID: chatOwner(c).UserID, ExchangeID: e.ID, AnswerID: answer.ID, Agent: agent, Model: e.Model}); err != nil {
		return err
	}
	return a.showBranch(c, e.ID)
}

// submitSwitch shows another version (form field to) of message :mid, and what followed it.
func (a *app) submitSwitch(c echo.Context) error {
	e, mid, err := a.ownMessage(c)
	if err != nil {
		return err
	}
	to, err := strconv.ParseInt(c.FormValue("to"), 10, 64)
	if err != nil || to <= 0 {
		return db.ErrNotFound
	}
	if err := a.store.SwitchBranch(c.Request().Context(), chatOwner(c), e.ID, mid, to); err != nil {
		return err
	}
	a.notifier.Publish(e.ID, chat.BranchChanged)
	return a.showBranch(c, e.ID)
}

// showBranch answers a branch change with the whole pane (its stream reconnects and follows the
// branch now on screen); full posts go back to the conversation.
func (a *app) showBranch(c echo.Context, exchangeID int64) error {
	if !isFragment(c) {
		return c.Redirect(http.StatusSeeOther, sessionURL(exchangeID))
	}
	pane, err := a.chatPane(c.Request().Context(), c, exchangeID)
	if err != nil {
		return err
	}
	h := c.Response().Header()
	h.Set("HX-Retarget", "#chat-pane")
	h.Set("HX-Reswap", "outerHTML")
	return render(c, http.StatusOK, views.ChatPaneView(pane))
}

// ownExchange reads conversation :id of the signed-in user or the guest; anyone else's is 404.
func (a *app) ownExchange(c echo.Context) (db.Exchange, error) {
	id, err := pathID(c, "id")
	if err != nil {
		return db.Exchange{}, err
	}
	return a.store.OwnerExchange(c.Request().Context(), chatOwner(c), id)
}

// ownMessage reads the viewer's conversation :id and the message id :mid (checked by the store).
func (a *app) ownMessage(c echo.Context) (db.Exchange, int64, error) {
	e, err := a.ownExchange(c)
	if err != nil {
		return e, 0, err
	}
	mid, err := pathID(c, "mid")
	return e, mid, err
}
