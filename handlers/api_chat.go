package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"parley/chat"
	"parley/db"
	"parley/fault"
)

// chatPayload is POST /api/chat's body (Galaxy's ChatPayload) with integer ids. Context is
// accepted for Galaxy clients and not used. IdempotencyKey (optional, up to 64 of [A-Za-z0-9_-])
// makes a retried request store one turn.
type chatPayload struct {
	Query          *string         `json:"query"`
	Context        json.RawMessage `json:"context"`
	ExchangeID     *int64          `json:"exchange_id"`
	PageID         *int64          `json:"page_id"`
	Regenerate     bool            `json:"regenerate"`
	IdempotencyKey string          `json:"idempotency_key"`
}

// statusClientClosed is the status logged for a request whose client hung up before the answer.
const statusClientClosed = 499

// apiTurn is a turn a JSON request started: its exchange, the user's query and the answer.
type apiTurn struct {
	ExchangeID, QueryID, AnswerID int64
	Started                       time.Time
}

// startAPITurn validates a POST /api/chat or /api/chat/stream request and starts its turn. Every
// check comes before any model call: the exchange is the caller's (404), a page_id matches the
// exchange's page (409) or, for a new exchange, is the caller's page (404), the query is valid
// (400), the rate limit allows it (429). regenerate answers the question of the exchange's latest
// answer (on the branch on screen) again as a new version beside it, whatever that answer's state;
// nothing is overwritten. The query can also come as ?query=,
// and ?agent_type= picks the agent of a new exchange (default: auto, or for a page chat the
// page's assistant). Follow-ups keep the exchange's agent or team.
func (a *app) startAPITurn(c echo.Context) (apiTurn, error) {
	ctx := c.Request().Context()
	u := viewer(c)
	t := apiTurn{Started: time.Now()}
	var in chatPayload
	if _, err := readJSON(c, &in, true); err != nil {
		return t, err
	}
	if in.Context != nil && string(in.Context) != "null" && in.Context[0] != '"' {
		return t, fault.Field("context", "context must be a string.")
	}
	var exchange *db.Exchange
	switch {
	case in.ExchangeID != nil:
		if *in.ExchangeID <= 0 {
			return t, db.ErrNotFound
		}
		e, err := a.store.OwnerExchange(ctx, db.Owner{UserID: u.ID}, *in.ExchangeID)
		if err != nil {
			return t, err
		}
		if in.PageID != nil && (e.PageID == nil || *e.PageID != *in.PageID) {
			return t, &fault.Error{Code: fault.Conflict, Field: "page_id",
				Message: "page_id does not match the exchange: " + exchangeScope(e) + ". Leave page_id out, or start a new exchange."}
		}
		exchange = &e
	case in.PageID != nil:
		if *in.PageID <= 0 {
			return t, db.ErrNotFound
		}
		if _, err := a.store.UserPage(ctx, u.ID, *in.PageID); err != nil {
			return t, err
		}
	}
	if exchange == nil && in.PageID == nil && c.QueryParam("agent_type") == "page_assistant" {
		return t, fault.Field("agent_type", "page_assistant needs a page_id: it answers about, and edits, one page.")
	}
	if in.Regenerate {
		return a.regenerateAPITurn(c, u.ID, exchange, t)
	}
	query := c.QueryParam("query")
	if in.Query != nil {
		query = *in.Query
	}
	if err := chat.CheckQuery(query, a.cfg.MaxQueryChars); err != nil {
		return t, err
	}
	if !validKey(in.IdempotencyKey) {
		return t, fault.Field("idempotency_key", "idempotency_key must be at most 64 of A-Z, a-z, 0-9, - and _.")
	}
	if exchange != nil && in.IdempotencyKey == "" && a.generator.Running(exchange.ID) {
		return t, db.ErrBusy // before the rate limit: a refused message costs no slot, nor does a replay
	}
	var exchangeID int64
	if exchange != nil {
		exchangeID = exchange.ID
	}
	replay := false
	if in.IdempotencyKey != "" {
		var err error
		if replay, err = a.store.KeyUsed(ctx, db.Owner{UserID: u.ID}, exchangeID, in.IdempotencyKey, query); err != nil {
			return t, err
		}
	}
	if !replay {
		if err := a.takeMessageSlot(c, db.Owner{UserID: u.ID}); err != nil {
			return t, err
		}
	}
	var pageID int64
	if exchange == nil {
		// A new exchange talks to the agent of ?agent_type= (a page chat, by default, to the page's
		// assistant, as in the page editor), set as the agent pages' scope does.
		var agent db.Agent
		var err error
		if in.PageID != nil && c.QueryParam("agent_type") == "" {
			pageID = *in.PageID
			agent, err = a.pageExchangeAgent(ctx, nil)
		} else {
			if in.PageID != nil {
				pageID = *in.PageID
			}
			agent, err = a.agentForType(ctx, c.QueryParam("agent_type"))
		}
		if err != nil {
			return t, err
		}
		c.Set(newChatKey, &newChat{Agent: agent})
	}
	plan, err := a.turnAgent(c, exchange, query) // access, teams and models as on the chat page
	if err != nil {
		return t, err
	}
	turn, err := a.beginTurn(ctx, db.NewTurn{
		UserID: u.ID, ExchangeID: exchangeID, PageID: pageID, AgentID: plan.Agent.ID, AgentType: plan.Agent.AgentType,
		TeamID: plan.TeamID, Model: plan.Model, AnswerMetadata: plan.Meta,
		Title: chat.TitleFrom(query), Query: query, IdempotencyKey: in.IdempotencyKey,
	}, chat.Job{UserID: u.ID, Agent: plan.Agent, Model: plan.Model, Team: plan.Team, Specialists: plan.Specialists})
	if err != nil {
		return t, err
	}
	t.ExchangeID, t.QueryID, t.AnswerID = turn.Exchange.ID, turn.User.ID, turn.Assistant.ID
	return t, nil
}

// regenerateAPITurn answers the latest answer's question of exchange (which must be given) again, as
// a new version beside it (see regenerateAnswer); the old answer stays.
func (a *app) regenerateAPITurn(c echo.Context, userID int64, exchange *db.Exchange, t apiTurn) (apiTurn, error) {
	if exchange == nil {
		return t, fault.Field("exchange_id", "regenerate needs the exchange_id whose latest answer to generate again.")
	}
	latest, err := a.store.LatestAnswer(c.Request().Context(), userID, exchange.ID)
	if err != nil {
		return t, err
	}
	if latest.Status == db.StatusPending || latest.Status == db.StatusStreaming {
		return t, db.ErrBusy
	}
	m, err := a.regenerateAnswer(c, db.Owner{UserID: userID}, *exchange, latest.ID)
	if err != nil {
		return t, err
	}
	t.ExchangeID, t.AnswerID = exchange.ID, m.ID
	if m.ParentID != nil {
		t.QueryID = *m.ParentID
	}
	return t, nil
}

// exchangeScope describes an exchange's scope for an error message.
func exchangeScope(e db.Exchange) string {
	if e.PageID == nil {
		return "it is a general conversation"
	}
	return "it is about page " + strconv.FormatInt(*e.PageID, 10)
}

// agentForType is the agent that answers a new exchange asked for with ?agent_type=: auto (or
// empty, or router) is the default router; another type is the first usable public agent of it.
func (a *app) agentForType(ctx context.Context, agentType string) (db.Agent, error) {
	if agentType == "" || agentType == "auto" || agentType == "router" {
		return a.store.AgentByIdentifier(ctx, defaultAgent)
	}
	specialists, err := a.store.Specialists(ctx)
	if err != nil {
		return db.Agent{}, err
	}
	for _, s := range specialists {
		if s.AgentType == agentType {
			return s, nil
		}
	}
	return db.Agent{}, fault.Field("agent_type", "No agent has agent_type "+strconv.Quote(agentType)+"; use auto or an existing agent type.")
}

// apiChat is POST /api/chat: it starts the turn, waits for the answer and returns it as Galaxy's
// ChatResponse. The answer is generated by a server goroutine: a client that goes away does not
// stop it, and the turn is stored either way. Only a complete answer is 200: a failed one is 502
// with the reason, a stopped one (Stop, or the exchange deleted) 409 "cancelled", one cut off by a
// server restart 503 "interrupted", one still being written after the answer timeout 504; each
// with error_code set to the status, an error object, and the partial text in response.
func (a *app) apiChat(c echo.Context) error {
	t, err := a.startAPITurn(c)
	if err != nil {
		return err
	}
	ctx := c.Request().Context()
	waitCtx, cancel := context.WithTimeout(ctx, a.cfg.AnswerTimeout+5*time.Second)
	defer cancel()
	a.generator.Wait(waitCtx, t.ExchangeID)
	if ctx.Err() != nil {
		// The client hung up: nobody reads an answer, and it is not a server error. The log and
		// metrics say 499 (nginx's "client closed request").
		return c.NoContent(statusClientClosed)
	}
	res, err := a.chatResult(ctx, t)
	if err != nil {
		return err
	}
	status := http.StatusOK
	if res.ErrorCode != 0 {
		status = res.ErrorCode
	}
	return c.JSON(status, res)
}

// chatResult reads a turn's answer as a ChatResponse.
func (a *app) chatResult(ctx context.Context, t apiTurn) (chatResponse, error) {
	res := chatResponse{ExchangeID: t.ExchangeID, QueryID: t.QueryID, MessageID: t.AnswerID}
	msgs, err := a.store.ExchangeTail(ctx, t.ExchangeID, []int64{t.QueryID, t.AnswerID}) // the answer's items come before it
	if err != nil {
		return res, err
	}
	var answer *db.Message
	reasoning := ""
	for i, m := range msgs {
		switch {
		case m.ID == t.AnswerID:
			answer = &msgs[i]
		case m.Role == db.RoleReasoning && m.ParentID != nil && *m.ParentID == t.AnswerID:
			reasoning += m.Content
		}
	}
	if answer == nil {
		return res, errors.New("api: the answer of the turn is gone")
	}
	res.Response, res.Status = answer.Content, answer.Status
	res.AgentResponse = newAgentResponse(answer.Content, answer.AgentType, answer.Metadata, reasoning)
	res.ProcessingTime = time.Since(t.Started).Seconds()
	var meta messageMeta
	_ = json.Unmarshal(answer.Metadata, &meta)
	switch answer.Status {
	case db.StatusFailed:
		res.ErrorCode, res.ErrorMessage = http.StatusBadGateway, "The model failed to answer."
		if meta.Error != nil && meta.Error.Message != "" {
			res.ErrorMessage = meta.Error.Message
		}
		res.Error = &apiErrorBody{Code: "upstream", Message: res.ErrorMessage}
	case db.StatusCancelled:
		res.ErrorCode, res.ErrorMessage = http.StatusConflict, "The answer was stopped (or its exchange deleted) before it was complete; its partial text is in response. Regenerate it to try again."
		res.Error = &apiErrorBody{Code: "cancelled", Message: res.ErrorMessage}
	case db.StatusInterrupted:
		res.ErrorCode, res.ErrorMessage = http.StatusServiceUnavailable, "The server restarted while writing the answer; its partial text is in response. Regenerate it to try again."
		res.Error = &apiErrorBody{Code: "interrupted", Message: res.ErrorMessage}
	case db.StatusPending, db.StatusStreaming:
		res.ErrorCode, res.ErrorMessage = http.StatusGatewayTimeout, "The answer is still being written; read it later from the exchange's messages."
		res.Error = &apiErrorBody{Code: "timeout", Message: res.ErrorMessage}
	}
	return res, nil
}
