package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"parley/agents"
	"parley/db"
	"parley/fault"
)

// Store is what generation needs from the database.
type Store interface {
	TurnHistory(ctx context.Context, exchangeID, answerID int64, rows, budget int) ([]db.Message, error)
	SetAnswer(ctx context.Context, id int64, content, status string, metadata json.RawMessage) error
	WriteAnswer(ctx context.Context, w db.AnswerWrite) ([]int64, error)
	SearchWorkspace(ctx context.Context, userID int64, query string, excludeExchange int64, limit int) ([]db.SearchHit, error)
	Specialists(ctx context.Context) ([]db.Agent, error)
	HandOff(ctx context.Context, answerID, agentID int64, agentType string, metadata json.RawMessage) error
	RenewLeases(ctx context.Context, held []db.HeldAnswer, ttl time.Duration) ([]int64, error)
	ReapExpired(ctx context.Context, ttl time.Duration) ([]db.Reaped, error)
	UserPage(ctx context.Context, ownerID, id int64) (db.Page, error)
	InsertProposal(ctx context.Context, in db.NewProposal) (db.Proposal, error)
	ImproveTitle(ctx context.Context, exchangeID int64, old, title string) error
	RequestStop(ctx context.Context, exchangeID int64) (bool, error)
	RequestStops(ctx context.Context, exchangeIDs []int64) error
	Unfinished(ctx context.Context, exchangeID int64) (bool, error)
	Ping(ctx context.Context) error
}

// Job is one answer to generate: the pending assistant message AnswerID of exchange ExchangeID,
// owned by UserID (0 for a guest), answered by Agent. Model overrides the provider's configured
// model when not empty (the agent's model, or the one picked for the conversation).
type Job struct {
	UserID     int64
	ExchangeID int64
	AnswerID   int64
	Agent      db.Agent
	// PageID is the page a page chat is about (0 for general chat): a page assistant sees it and
	// proposes edits to it.
	PageID int64

	page  *pageSeen
	Model string
	// Team, when set, are a team's usable members and Agent the description router's pick: a
	// model-backed router may choose another (team_model_route.go).
	Team []db.Agent
	// Specialists, when not nil, are those a router Agent may hand the turn to, read with the
	// agent (db.Store.AgentForTurn); nil: the generator reads them.
	Specialists []db.Agent
	// Lease, when its Holder is set, is the lease (from NewLease) that the stored pending answer
	// is already claimed by (db.NewTurn.Lease): the generation runs under it and claims nothing.
	Lease db.Lease
}

// Generator runs answers in goroutines that do not depend on any browser connection. At most one
// answer per exchange runs at a time. The running answer's text is held in memory, where streams
// on this instance read it at once (WatchLive, Live); it is persisted at most every FlushEvery (the
// first text after 50 ms) and at the end, and each write is published to the Notifier.
type Generator struct {
	Store    Store
	Provider agents.Provider
	Notifier Notifier
	Log      *slog.Logger
	// Timeout bounds one whole answer, tool calls included.
	Timeout time.Duration
	// FlushEvery is the longest time text waits before it is persisted and published, which is
	// how far streams on other instances (and a reload) may lag behind (e.g. 250 ms).
	FlushEvery time.Duration
	// HistoryBudget bounds the earlier turns sent to the model, in estimated tokens (4 bytes each).
	HistoryBudget int
	// ImproveTitles asks the model for a better title after a conversation's first answer (when
	// a real model is configured; title.go).
	ImproveTitles bool
	// Instance names this process among the instances sharing the database (NewInstanceID).
	Instance string
	// Lease is how long an answer stays claimed by this instance without a heartbeat: leases are
	// renewed every Lease/5, and answers whose lease expired are marked interrupted (lease.go).
	Lease time.Duration

	live liveRegistry // the running answers' writers, by exchange id, and their watches

	mu       sync.Mutex
	running  map[int64]*run // by exchange id
	held     map[int64]*run // by answer id, until its final write is done or given up
	attempts int64
	wg       sync.WaitGroup
	closed   bool
	// abandon is closed when Shutdown's deadline passed: writes waiting for the database give up.
	abandon   chan struct{}
	leaseStop chan struct{}
	leaseDone chan struct{}
	// dbFailedAt is when a renewal or reap last failed: the reaper waits a lease after it, so live
	// instances renew the leases an outage let expire before anyone takes them for abandoned.
	dbFailedAt time.Time
}

type run struct {
	answerID int64
	holder   string
	cancel   context.CancelCauseFunc
	done     chan struct{}
}

// errStopped is the cancel cause of a Stop, telling it apart from a timeout or a shutdown.
var errStopped = errors.New("stopped by the person")

// errLeaseLost is the cancel cause of a generation whose answer another generation holds now.
var errLeaseLost = errors.New("the answer is no longer this generation's")

// errShutdown is the cancel cause when the server shuts down, and what Start returns then (503:
// the person sends again, to an instance that is not stopping).
var errShutdown = &fault.Error{Code: fault.Unavailable, Message: "Parley is restarting; send your message again in a moment."}

// ErrBusy is returned by Start when the exchange already has an answer in progress.
var ErrBusy = errors.New("an answer is already being generated in this conversation")

// maxToolRounds bounds the model ↔ tool loop of one answer.
const maxToolRounds = 4

// Start begins generating job's answer in the background and returns at once.
func (g *Generator) Start(job Job) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return errShutdown
	}
	if g.running == nil {
		g.running = map[int64]*run{}
	}
	if r, ok := g.running[job.ExchangeID]; ok && r.answerID != job.AnswerID {
		return ErrBusy
	} else if ok {
		return nil // the same answer is already running (a replayed submit)
	}
	if g.held == nil {
		g.held = map[int64]*run{}
	}
	holder := job.Lease.Holder
	if holder == "" {
		holder = g.newHolderLocked()
	}
	ctx, cancel := context.WithCancelCause(context.Background())
	r := &run{answerID: job.AnswerID, holder: holder, cancel: cancel, done: make(chan struct{})}
	g.running[job.ExchangeID] = r
	g.held[job.AnswerID] = r
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer close(r.done)
		defer cancel(nil)
		defer func() {
			g.mu.Lock()
			if g.held[job.AnswerID] == r {
				delete(g.held, job.AnswerID)
			}
			g.mu.Unlock()
		}()
		release := func() { // before the final write, so a follow-up sent on "completed" is not refused
			g.mu.Lock()
			if g.running[job.ExchangeID] == r {
				delete(g.running, job.ExchangeID)
			}
			g.mu.Unlock()
		}
		g.generate(ctx, job, r.holder, release)
		release()
	}()
	return nil
}

// NewLease names a new generation of this instance and returns its lease, for a pending answer
// stored already claimed (db.NewTurn.Lease) and then started with it (Job.Lease).
func (g *Generator) NewLease() db.Lease {
	g.mu.Lock()
	defer g.mu.Unlock()
	return db.Lease{Holder: g.newHolderLocked(), TTL: g.lease()}
}

// newHolderLocked names a new generation: "<instance id>/<attempt>". g.mu is held.
func (g *Generator) newHolderLocked() string {
	g.attempts++
	return fmt.Sprintf("%s/%d", g.Instance, g.attempts)
}

// Stop cancels the exchange's running answer, which keeps its partial text as cancelled. It
// reports whether an answer was running.
func (g *Generator) Stop(exchangeID int64) bool {
	g.mu.Lock()
	r, ok := g.running[exchangeID]
	g.mu.Unlock()
	if ok {
		r.cancel(errStopped)
		<-r.done
	}
	return ok
}

// cancelHeld cancels the generation holding answer id with cause, if it still runs.
func (g *Generator) cancelHeld(id int64, cause error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if r, ok := g.held[id]; ok {
		r.cancel(cause)
	}
}

// Running reports whether the exchange has an answer in progress.
func (g *Generator) Running(exchangeID int64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.running[exchangeID]
	return ok
}

// Wait blocks until the exchange's running answer (if any) ends or ctx is done.
func (g *Generator) Wait(ctx context.Context, exchangeID int64) {
	g.mu.Lock()
	r, ok := g.running[exchangeID]
	g.mu.Unlock()
	if !ok {
		return
	}
	select {
	case <-r.done:
	case <-ctx.Done():
	}
}

// Shutdown lets running answers finish until ctx ends, then stops them; they are stored as
// interrupted with their partial text. No answer starts afterwards.
func (g *Generator) Shutdown(ctx context.Context) {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	done := make(chan struct{})
	go func() { g.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		g.mu.Lock()
		for _, r := range g.running {
			r.cancel(errShutdown)
		}
		if a := g.abandonChan(); !isClosed(a) {
			close(a)
		}
		g.mu.Unlock()
		<-done
	}
	g.stopLeases()
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// abandonChan is g.abandon, made on first use. g.mu is held.
func (g *Generator) abandonChan() chan struct{} {
	if g.abandon == nil {
		g.abandon = make(chan struct{})
	}
	return g.abandon
}

// generate runs the model ↔ tool loop for one answer and stores the outcome.
func (g *Generator) generate(parent context.Context, job Job, holder string, release func()) {
	started := time.Now()
	ctx, cancel := context.WithTimeout(parent, g.Timeout)
	defer cancel()
	// Writes must land even after ctx ends (a Stop or a timeout keeps the partial text), and only
	// while this generation holds the answer's lease.
	store := db.WithLease(context.WithoutCancel(ctx), db.Lease{Holder: holder, TTL: g.lease(), Claimed: job.Lease.Holder != ""})

	var history []db.Message
	err := g.untilReachable(store, started.Add(g.Timeout), func(ctx context.Context) error {
		var err error
		history, err = g.Store.TurnHistory(ctx, job.ExchangeID, job.AnswerID, historyRows, g.HistoryBudget*4)
		return err
	})
	if err != nil {
		release()
		g.fail(store, job, "The conversation could not be read.", err)
		return
	}
	job.Agent = g.route(store, job, history)
	if len(job.Team) > 0 { // a team's member answers with its own model
		job.Model = job.Agent.Model
	}
	req := agents.Request{Model: job.Model, System: job.Agent.SystemPrompt, Messages: g.history(history, job.AnswerID)}
	if capability(job.Agent, "tools") {
		req.Tools = []agents.Tool{agents.SearchWorkspaceTool}
	}
	req.Think = capability(job.Agent, "reasoning")
	if job.PageID != 0 {
		if err := g.preparePage(store, &job, &req); err != nil {
			release()
			g.fail(store, job, "The page could not be read.", err)
			return
		}
	}
	w := newAnswerWriter(g, job, store, started.Add(g.Timeout))
	g.live.add(job.ExchangeID, w) // until w.finish
	var usage agents.Usage
	var result agents.Result
	var found []agents.SearchResult // what search_workspace calls found, for suggestion cards
	searched := false
	answered := false // some round wrote answer text or called a tool
	for round := 0; ; round++ {
		w.startRound()
		result, err = g.Provider.Stream(ctx, req, w.emit)
		// A truncated answer's calls may be cut short: they are not run.
		more := err == nil && !result.Truncated && len(result.ToolCalls) > 0 && round < maxToolRounds-1
		w.endRound()
		answered = answered || strings.TrimSpace(result.Content) != "" || len(result.ToolCalls) > 0
		if result.Usage != nil {
			usage.PromptTokens += result.Usage.PromptTokens
			usage.CompletionTokens += result.Usage.CompletionTokens
			usage.TotalTokens += result.Usage.TotalTokens
		}
		if !more {
			break
		}
		req.Messages = append(req.Messages, agents.Message{Role: agents.RoleAssistant, Content: result.Content,
			ToolCalls: sentBack(result.ToolCalls), Thinking: result.Thinking, Reasoning: result.Reasoning})
		for _, call := range result.ToolCalls {
			output, results := g.callTool(ctx, job, w, call)
			found = append(found, results...)
			searched = searched || call.Name == agents.SearchWorkspaceTool.Name
			req.Messages = append(req.Messages, agents.Message{Role: agents.RoleTool, Content: output, ToolCallID: call.ID})
		}
		w.resetText()
	}

	model := g.Provider.Model()
	if job.Model != "" && g.Provider.Name() != agents.ProviderOffline {
		model = job.Model
	}
	meta := map[string]any{
		"model":       model,
		"provider":    g.Provider.Name(),
		"duration_ms": time.Since(started).Milliseconds(),
	}
	if usage.TotalTokens > 0 {
		meta["usage"] = map[string]int{"prompt_tokens": usage.PromptTokens, "completion_tokens": usage.CompletionTokens, "total_tokens": usage.TotalTokens}
	}
	if result.FinishReason != "" {
		meta["finish_reason"] = result.FinishReason
	}
	if result.Truncated {
		meta["truncated"] = true // shown as "cut off at the token limit", with Continue
	}
	if p := job.page.proposalMeta(); p != nil {
		meta["proposal"] = p
		meta["edit_mode"] = p["edit_mode"]
	}
	if s := suggestions(found); len(s) > 0 {
		meta["suggestions"] = s
	}
	if g.Provider.Name() == agents.ProviderOffline && searched {
		// The offline agent cannot judge relevance: it found keyword matches, or nothing.
		meta["confidence"] = "low"
		if len(found) > 0 {
			meta["confidence"] = "medium"
		}
	}
	if err == nil && !answered && job.page.proposalMeta() == nil {
		err = emptyAnswer(result)
	}
	status := db.StatusComplete
	if err != nil {
		status, meta["error"] = failure(ctx, err)
	}
	release()
	w.finish(status, meta)
	if status == db.StatusComplete {
		g.maybeImproveTitle(job, history, result.Content)
	}
}

// emptyAnswer is why a complete stream with no answer text and no tool call is stored failed, not
// as a blank answer: a reasoning model that stopped after its reasoning (Qwen3, R1 distills under
// Ollama), a filter that ends the stream with "stop", a server that sends only its end marker.
func emptyAnswer(result agents.Result) error {
	msg := "The model finished without writing any answer. Try again, or rephrase your message."
	if strings.TrimSpace(result.Reasoning) != "" {
		msg = "The model finished its reasoning without writing an answer. Try again, or ask it to answer directly."
	}
	return &agents.UpstreamError{Kind: agents.KindEmptyAnswer, Code: result.FinishReason, Message: msg}
}

// failure maps a stream error to the stored status and a readable reason.
func failure(ctx context.Context, err error) (string, map[string]string) {
	cause := context.Cause(ctx)
	switch {
	case errors.Is(cause, errStopped):
		return db.StatusCancelled, map[string]string{"kind": "cancelled", "message": "Stopped."}
	case errors.Is(cause, errShutdown):
		return db.StatusInterrupted, map[string]string{"kind": "interrupted", "message": "The server restarted while answering."}
	}
	var ue *agents.UpstreamError
	if errors.As(err, &ue) {
		msg := ue.Message
		if ue.Kind == agents.KindContentFilter {
			msg = "The model's content filter stopped this answer. Try rephrasing your message."
		}
		return db.StatusFailed, map[string]string{"kind": string(ue.Kind), "message": msg}
	}
	return db.StatusFailed, map[string]string{"kind": "internal", "message": "The answer failed."}
}

// fail stores an answer as failed (kind "internal", with message) before any streaming happened.
func (g *Generator) fail(ctx context.Context, job Job, message string, cause error) {
	g.Log.Error("generation failed", "exchange", job.ExchangeID, "error", cause)
	meta, _ := json.Marshal(map[string]any{"error": map[string]string{"kind": "internal", "message": message}})
	if err := g.untilReachable(ctx, time.Now().Add(g.Timeout), func(ctx context.Context) error {
		return g.Store.SetAnswer(ctx, job.AnswerID, "", db.StatusFailed, meta)
	}); err != nil {
		g.Log.Error("storing failed answer", "error", err)
	}
	g.Notifier.Publish(job.ExchangeID, job.AnswerID)
}

// historyRows bounds how many of a conversation's latest questions and answers a turn reads
// (TurnHistory), however short they are; HistoryBudget bounds their text.
const historyRows = 1000

// history turns the exchange's earlier turns into model messages: user queries and assistant
// answers (tool items of earlier turns are left out), bounded by HistoryBudget while always keeping
// the first question (with its answer when the budget has room) and the current query. The
// latest turns kept start with a question, and messages of one role in a row (a question whose
// answer failed or was stopped before any text) are sent as one: many models' chat templates
// refuse anything but user and assistant in turn.
func (g *Generator) history(messages []db.Message, answerID int64) []agents.Message {
	var out []agents.Message
	var answered []bool // answered[i]: out[i] is the answer to out[i-1]
	var question int64  // the id of the last question read
	for _, m := range messages {
		if m.ID == answerID {
			break
		}
		switch {
		case m.Role == db.RoleUser:
			out = append(out, agents.Message{Role: agents.RoleUser, Content: m.Content})
			answered = append(answered, false)
			question = m.ID
		case m.Role == db.RoleAssistant && m.Content != "":
			// Reasoning never goes back: answers stored before the tags were read may hold it.
			if answer, _ := agents.SplitReasoning(m.Content); answer != "" {
				follows := len(out) > 0 && out[len(out)-1].Role == agents.RoleUser && m.ParentID != nil && *m.ParentID == question
				out = append(out, agents.Message{Role: agents.RoleAssistant, Content: answer})
				answered = append(answered, follows)
			}
		}
	}
	budget := g.HistoryBudget * 4
	if budget > 0 && len(out) > 2 {
		head := 1
		used := len(out[0].Content) + len(out[len(out)-1].Content)
		if answered[1] && len(out) > 3 && used+len(out[1].Content) <= budget {
			head = 2
			used += len(out[1].Content)
		}
		keepFrom := len(out) - 1
		for keepFrom > head && used+len(out[keepFrom-1].Content) <= budget {
			keepFrom--
			used += len(out[keepFrom].Content)
		}
		// An answer whose question is not sent goes too.
		for keepFrom < len(out)-1 && out[keepFrom].Role != agents.RoleUser && (keepFrom > head || !answered[keepFrom]) {
			keepFrom++
		}
		out = append(out[:head:head], out[keepFrom:]...)
	}
	return inTurn(out)
}

// inTurn merges consecutive messages of one role into one, their texts joined by a blank line.
func inTurn(msgs []agents.Message) []agents.Message {
	out := msgs[:0:0]
	for _, m := range msgs {
		if n := len(out); n > 0 && out[n-1].Role == m.Role {
			out[n-1].Content += "\n\n" + m.Content
			continue
		}
		out = append(out, m)
	}
	return out
}

// route lets a router hand the turn to a specialist (recorded on the answer and published), and
// returns the agent that answers.
func (g *Generator) route(ctx context.Context, job Job, history []db.Message) db.Agent {
	if len(job.Team) > 0 {
		return g.routeTeam(ctx, job, history)
	}
	if job.Agent.AgentType != "router" {
		return job.Agent
	}
	specialists := job.Specialists
	if specialists == nil {
		var err error
		if specialists, err = g.Store.Specialists(ctx); err != nil {
			g.Log.Error("listing specialists", "error", err)
			return job.Agent
		}
	}
	chosen, handoff := Route(job.Agent, specialists, lastQuery(history, job.AnswerID), previousAnswerAgent(history, job.AnswerID))
	if handoff == nil {
		return job.Agent
	}
	return g.handOff(ctx, job, chosen, handoff)
}

// handOff records that chosen answers the turn (handoff_info in the answer's metadata), publishes
// the change and returns chosen; when it cannot be recorded, job.Agent answers.
func (g *Generator) handOff(ctx context.Context, job Job, chosen db.Agent, handoff *Handoff) db.Agent {
	meta, _ := json.Marshal(map[string]any{"handoff_info": handoff})
	if err := g.Store.HandOff(ctx, job.AnswerID, chosen.ID, chosen.AgentType, meta); err != nil {
		g.Log.Error("recording hand-off", "error", err)
		return job.Agent
	}
	g.Notifier.Publish(job.ExchangeID, job.AnswerID)
	return chosen
}

// maxSuggestions bounds the action cards under an answer.
const maxSuggestions = 3

// Suggestion is an action card under an answer (Galaxy's AgentResponse suggestions): a label and
// the in-app URL it opens.
type Suggestion struct {
	Label string `json:"label"`
	URL   string `json:"url"`
}

// suggestions turns the first distinct search results into "Open …" cards.
func suggestions(found []agents.SearchResult) []Suggestion {
	var out []Suggestion
	seen := map[string]bool{}
	for _, r := range found {
		place, _, _ := strings.Cut(r.URL, "#") // one card per page or conversation
		if len(out) == maxSuggestions || r.URL == "" || seen[place] {
			continue
		}
		seen[place] = true
		out = append(out, Suggestion{Label: "Open " + r.Title, URL: r.URL})
	}
	return out
}

// callTool stores the function_call item (at once: it shows running while the tool runs), runs
// the tool, has its outcome and function_call_output item stored with the answer's next write, and
// returns the output sent back to the model, with the search results it found (if any).
func (g *Generator) callTool(ctx context.Context, job Job, w *answerWriter, call agents.ToolCall) (string, []agents.SearchResult) {
	item := w.startCall(db.Message{
		ParentID: &job.AnswerID, Role: db.RoleFunctionCall, Status: db.StatusStreaming, AgentID: &job.Agent.ID,
		AgentType: job.Agent.AgentType, ToolName: call.Name, ToolCallID: call.ID, ToolArguments: call.Arguments,
	})
	started := time.Now()
	output, results, ok := g.runTool(ctx, job, call)
	ms := int(time.Since(started).Milliseconds())
	status := db.StatusComplete
	if !ok {
		status = db.StatusFailed
	}
	w.finishCall(item, status, ms, db.Message{
		ParentID: &job.AnswerID, Role: db.RoleFunctionCallOutput, Status: status, AgentID: &job.Agent.ID,
		AgentType: job.Agent.AgentType, ToolName: call.Name, ToolCallID: call.ID, ToolResult: output, DurationMS: &ms,
	})
	return output, results
}

// runTool executes one tool call and returns its output (JSON), the search results it found, and
// whether it succeeded.
func (g *Generator) runTool(ctx context.Context, job Job, call agents.ToolCall) (string, []agents.SearchResult, bool) {
	if err := call.CheckArguments(); err != nil {
		// Never run a tool on broken arguments: the person and the model see why it did not run.
		b, _ := json.Marshal(map[string]string{"error": err.Error() + ". Call the tool again with one JSON object."})
		return string(b), nil, false
	}
	switch call.Name {
	case agents.SearchWorkspaceTool.Name:
		var args agents.SearchWorkspaceArgs
		if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil || args.Query == "" {
			return `{"error":"search_workspace needs {\"query\": \"keywords\"}"}`, nil, false
		}
		hits, err := g.Store.SearchWorkspace(ctx, job.UserID, args.Query, job.ExchangeID, 5)
		if err != nil {
			g.Log.Error("search_workspace", "error", err)
			return `{"error":"the search failed"}`, nil, false
		}
		res := agents.SearchResults{Results: []agents.SearchResult{}}
		for _, h := range hits {
			r := agents.SearchResult{Title: h.Title, Snippet: h.Snippet, Kind: h.Kind}
			if h.Kind == "page" {
				r.URL = "/pages/" + strconv.FormatInt(h.ID, 10)
			} else {
				r.URL = fmt.Sprintf("/sessions/%d/chat", h.ID)
				if h.MessageID != 0 { // 0: found by its title
					r.URL += fmt.Sprintf("#message-%d", h.MessageID)
				}
				if r.Title == "" {
					r.Title = "Conversation"
				}
			}
			res.Results = append(res.Results, r)
		}
		b, _ := json.Marshal(res)
		return string(b), res.Results, true
	case agents.ReplaceEntireDocumentTool.Name, agents.PatchSectionTool.Name:
		out, ok := g.propose(ctx, job, call)
		return out, nil, ok
	default:
		return fmt.Sprintf(`{"error":"unknown tool %q"}`, call.Name), nil, false
	}
}

// sentBack is the assistant's tool calls as the follow-up request carries them: a call whose
// arguments are not a JSON object goes back as {} (strict servers refuse the request otherwise),
// its tool output saying what was wrong.
func sentBack(calls []agents.ToolCall) []agents.ToolCall {
	out := make([]agents.ToolCall, len(calls))
	for i, c := range calls {
		if c.CheckArguments() != nil {
			c.Arguments = "{}"
		}
		out[i] = c
	}
	return out
}

// capability reads a boolean from the agent's capabilities JSON; a missing key is true.
func capability(a db.Agent, name string) bool {
	var caps map[string]bool
	if err := json.Unmarshal(a.Capabilities, &caps); err != nil {
		return true
	}
	v, ok := caps[name]
	return !ok || v
}
