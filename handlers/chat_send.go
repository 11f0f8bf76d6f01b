package handlers

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/a-h/templ"
	"github.com/labstack/echo/v4"

	"parley/chat"
	"parley/db"
	"parley/fault"
	"parley/views"
)

// submitMessage stores a user message and an assistant placeholder (creating the exchange on the
// first message), starts generating the answer and answers at once: in an open conversation with a
// fresh composer plus the two new messages out of band (O(1), whatever the conversation's length;
// the open stream takes it from there), for a new conversation with the whole pane and its stream.
// Bad input answers with the composer showing the error and keeping the text, storing nothing.
// Without htmx (no JavaScript) it waits for the answer and redirects to the conversation.
func (a *app) submitMessage(c echo.Context) error {
	ctx := c.Request().Context()
	owner := chatOwner(c)
	var exchange *db.Exchange // nil: the first message of a new conversation
	var exchangeID int64
	if c.Param("id") != "" && c.Get(newChatKey) == nil {
		id, err := pathID(c, "id")
		if err != nil {
			return err
		}
		e, err := a.store.OwnerExchange(ctx, owner, id)
		if err != nil {
			return err
		}
		exchange, exchangeID = &e, id
	}
	query := c.FormValue("query")
	refuse := func(status int, msg string, retryAfter int) error {
		if isFragment(c) {
			composer := a.composer(c, exchangeID, status == http.StatusConflict || a.generator.Running(exchangeID))
			composer.Query, composer.QueryError, composer.RetryAfter = query, msg, retryAfter
			return render(c, status, views.Composer(composer))
		}
		pane, err := a.chatPane(ctx, c, exchangeID)
		if err != nil {
			return err
		}
		pane.Query, pane.QueryError, pane.RetryAfter = query, msg, retryAfter
		return a.renderChatPageWith(c, pane, status)
	}
	if err := chat.CheckQuery(query, a.cfg.MaxQueryChars); err != nil {
		return refuse(http.StatusUnprocessableEntity, fault.As(err).Message, 0)
	}
	key := c.FormValue("idempotency_key")
	if !validKey(key) {
		return refuse(http.StatusBadRequest, "This form is damaged (bad idempotency_key). Reload the page and send again.", 0)
	}
	plan, err := a.turnAgent(c, exchange, query)
	if f := fault.As(err); f != nil && f.Code == fault.Invalid {
		return refuse(http.StatusUnprocessableEntity, f.Message, 0)
	}
	if err != nil {
		return err
	}
	agent := plan.Agent
	limitedFor := func(wait time.Duration) error {
		secs := int(wait.Seconds() + 0.999)
		c.Response().Header().Set("Retry-After", strconv.Itoa(secs))
		return refuse(http.StatusTooManyRequests, "", secs)
	}
	var rate *db.RateCheck     // the message limit, taken by the statement that stores the turn
	if owner == (db.Owner{}) { // a guest's first message: limited before a guest session is made for it
		if wait, ok := a.allowChatMessage(c, owner); !ok {
			return limitedFor(wait)
		}
		if owner.GuestID, err = a.ensureGuest(c); err != nil {
			return err
		}
	} else {
		check := a.limits.messageCheck(owner.UserID, c.RealIP())
		rate = &check
	}
	turn, err := a.beginTurn(ctx, db.NewTurn{
		UserID: owner.UserID, GuestID: owner.GuestID, ExchangeID: exchangeID, AgentID: agent.ID, AgentType: agent.AgentType,
		TeamID: plan.TeamID, Model: plan.Model, AnswerMetadata: plan.Meta,
		Title: chat.TitleFrom(query), Query: query, IdempotencyKey: key, Rate: rate,
	}, chat.Job{UserID: owner.UserID, Agent: agent, Model: plan.Model, Team: plan.Team, Specialists: plan.Specialists})
	if errors.Is(err, db.ErrBusy) {
		return refuse(http.StatusConflict, db.ErrBusy.Message, 0)
	}
	if limited := (*db.RateLimitedError)(nil); errors.As(err, &limited) {
		return limitedFor(limited.Wait)
	}
	if err != nil {
		return err
	}
	url := sessionURL(turn.Exchange.ID)
	if plan.Home != "" { // guests and the widget have no /sessions page: they return to the agent's
		url = plan.Home
	}
	if !isFragment(c) {
		waitCtx, cancel := context.WithTimeout(ctx, a.cfg.AnswerTimeout+5*time.Second)
		defer cancel()
		a.generator.Wait(waitCtx, turn.Exchange.ID)
		return c.Redirect(http.StatusSeeOther, url)
	}
	// The conversation goes to the top of the sidebar with its new turn count.
	item := views.HistoryInsert(views.HistoryItem{ID: turn.Exchange.ID, Title: turn.Exchange.Title,
		Avatar: agent.Avatar, Turns: turn.Turns, At: turn.Exchange.UpdatedAt, Active: true})
	if exchangeID == 0 {
		pane, err := a.chatPane(ctx, c, turn.Exchange.ID)
		if err != nil {
			return err
		}
		h := c.Response().Header()
		if plan.Home == "" {
			h.Set("HX-Push-Url", url) // a new conversation has its own address
		}
		h.Set("HX-Retarget", "#chat-pane")
		h.Set("HX-Reswap", "outerHTML")
		if owner.IsGuest() {
			return render(c, http.StatusOK, views.ChatPaneView(pane))
		}
		return render(c, http.StatusOK, templ.Join(views.ChatPaneView(pane), item))
	}
	agents := map[int64]db.Agent{agent.ID: agent}
	turnViews := messageViews([]db.Message{turn.User, turn.Assistant}, agents)
	composer := a.composer(c, exchangeID, true)
	composer.Embed = plan.Embed
	return render(c, http.StatusOK, templ.Join(
		views.Composer(composer),
		views.MessagesInsert("beforeend:#message-list", turnViews, exchangeID),
		views.ChatStatus(true, true),
		item))
}

// beginTurn stores a turn (StartTurn: the query and a pending answer claimed by a new generation's
// lease, in a new exchange when in.ExchangeID is 0) and starts generating the answer as job, whose ExchangeID and AnswerID it
// fills in, unless the idempotency key replays a stored turn; then it tells open streams. The
// HTML composer and the JSON API both start turns here. The caller has validated the query and
// checked the exchange (or page) is the owner's.
func (a *app) beginTurn(ctx context.Context, in db.NewTurn, job chat.Job) (db.Turn, error) {
	a.generator.WaitStored(ctx, in.ExchangeID) // an answer shown finished may still be on its way to the database
	in.Lease = a.generator.NewLease()          // the answer is stored claimed: the generation's first write claims nothing
	turn, err := a.store.StartTurn(ctx, in)
	if err != nil {
		return turn, err
	}
	if !turn.Replayed {
		job.ExchangeID, job.AnswerID, job.PageID, job.Lease = turn.Exchange.ID, turn.Assistant.ID, pageOf(turn.Exchange), in.Lease
		if err := a.startAnswer(ctx, job); err != nil {
			return turn, err
		}
	}
	a.notifier.Publish(turn.Exchange.ID, turn.User.ID)
	return turn, nil
}

// composer is the view model of an empty composer for the conversation (0: a new one, posting
// where the agent, team or widget page says, see newChat).
func (a *app) composer(c echo.Context, exchangeID int64, busy bool) views.ChatPane {
	p := views.ChatPane{ExchangeID: exchangeID, Busy: busy, IdempotencyKey: newIdempotencyKey(),
		MaxQueryChars: a.cfg.MaxQueryChars, CSRF: page(c, "", "").CSRF}
	if s := scopeOf(c); s != nil {
		p.NewURL, p.Embed = s.PostURL, s.Embed
	}
	return p
}

// exchangeAgent is the agent of an exchange, or the default agent for a new one (nil) or one whose
// agent row is gone, with the specialists it may hand the turn to when it is a router (read in the
// same statement, so the generator need not read them again). A disabled or deleted agent is
// errAgentUnavailable.
func (a *app) exchangeAgent(ctx context.Context, e *db.Exchange) (db.Agent, []db.Agent, error) {
	if e != nil && e.AgentID != nil {
		ag, specialists, err := a.store.AgentForTurn(ctx, *e.AgentID, "")
		switch {
		case err == nil && (ag.DisabledAt != nil || ag.DeletedAt != nil):
			return ag, nil, errAgentUnavailable
		case !errors.Is(err, db.ErrNotFound):
			return ag, specialists, err
		}
	}
	return a.store.AgentForTurn(ctx, 0, defaultAgent)
}

// startAnswer starts generating a stored pending answer. If it cannot start, the answer is stored
// as failed (with Retry), never left pending.
func (a *app) startAnswer(ctx context.Context, job chat.Job) error {
	err := a.generator.Start(job)
	if err == nil {
		return nil
	}
	meta := []byte(`{"error": {"kind": "internal", "message": "The answer could not be started. Retry it."}}`)
	if ferr := a.store.SetAnswer(context.WithoutCancel(ctx), job.AnswerID, "", db.StatusFailed, meta); ferr != nil {
		return errors.Join(err, ferr)
	}
	a.notifier.Publish(job.ExchangeID, job.AnswerID)
	return err
}

// submitStop stops the conversation's running answer; it keeps its partial text as cancelled.
// It returns once the answer is stored stopped, whichever instance generates it.
func (a *app) submitStop(c echo.Context) error {
	e, err := a.ownExchange(c)
	if err != nil {
		return err
	}
	if err := a.generator.StopAnywhere(c.Request().Context(), e.ID); err != nil {
		return err
	}
	if !isFragment(c) {
		return c.Redirect(http.StatusSeeOther, sessionURL(e.ID))
	}
	return c.NoContent(http.StatusNoContent)
}

// submitRetry generates a failed, stopped or interrupted answer again (its old text is kept in
// the message's metadata). htmx requests get 204: the open stream shows the new attempt.
func (a *app) submitRetry(c echo.Context) error {
	e, mid, err := a.ownMessage(c) // ownership first: someone else's conversation is 404 whatever its state
	if err != nil {
		return err
	}
	if _, err := a.restartAnswer(c, chatOwner(c), e, mid); err != nil {
		return err
	}
	if !isFragment(c) {
		return c.Redirect(http.StatusSeeOther, sessionURL(e.ID))
	}
	return c.NoContent(http.StatusNoContent) // the stream shows the new attempt; the composer keeps its text
}

// restartAnswer generates a failed, stopped or interrupted answer of the owner's exchange e again
// in place (the Retry button) and returns it, pending again.
func (a *app) restartAnswer(c echo.Context, owner db.Owner, e db.Exchange, answerID int64) (db.Message, error) {
	ctx := c.Request().Context()
	if a.generator.Running(e.ID) {
		return db.Message{}, db.ErrBusy
	}
	a.generator.WaitStored(ctx, e.ID) // a failure shown from memory may still be on its way to the database
	agent, err := a.retryAgent(c, &e, answerID)
	if err != nil {
		return db.Message{}, err
	}
	if err := a.takeMessageSlot(c, owner); err != nil {
		return db.Message{}, err
	}
	m, err := a.store.RestartOwnedAnswer(ctx, owner, e.ID, answerID)
	if err != nil {
		return m, err
	}
	if err := a.startAnswer(ctx, chat.Job{UserID: owner.UserID, ExchangeID: e.ID, AnswerID: m.ID, Agent: agent, Model: e.Model, PageID: pageOf(e)}); err != nil {
		return m, err
	}
	a.notifier.Publish(e.ID, m.ID)
	return m, nil
}

// submitToolsToggle stores the Tools toggle of the chat page (app.js posts it).
func (a *app) submitToolsToggle(c echo.Context) error {
	show, err := strconv.ParseBool(c.FormValue("show"))
	if err != nil {
		return fault.Field("show", "show must be true or false.")
	}
	if err := a.store.SetShowTools(c.Request().Context(), viewer(c).ID, show); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// Bounds of the page editor's side panel width a person may store (CSS pixels): 18rem, and wider
// than any screen; the browser narrows a stored width to 75% of the editor it shows.
const (
	minPageSideWidth = 288
	maxPageSideWidth = 8192
)

// submitPageSideWidth stores the width of the page editor's side panel (width, CSS pixels; page.js
// posts it after a drag or a key press on the split handle), so every browser of the person opens
// the editor with it.
func (a *app) submitPageSideWidth(c echo.Context) error {
	width, err := strconv.Atoi(c.FormValue("width"))
	if err != nil || width < minPageSideWidth || width > maxPageSideWidth {
		return fault.Field("width", "width must be a whole number of pixels from "+
			strconv.Itoa(minPageSideWidth)+" to "+strconv.Itoa(maxPageSideWidth)+".")
	}
	if err := a.store.SetPageSideWidth(c.Request().Context(), viewer(c).ID, width); err != nil {
		return err
	}
	return c.NoContent(http.StatusNoContent)
}

// validKey accepts an empty idempotency key or up to 64 characters of [A-Za-z0-9_-].
func validKey(k string) bool {
	if len(k) > 64 {
		return false
	}
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}
