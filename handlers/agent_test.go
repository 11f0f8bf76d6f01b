package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"parley/handlers/handlerstest"
)

// agentForm is a valid agent form; overrides replace fields.
func agentForm(identifier string, overrides ...string) url.Values {
	f := url.Values{
		"identifier": {identifier}, "name": {"Helper " + identifier}, "description": {"Answers questions"},
		"avatar": {"🦉"}, "agent_type": {"general"}, "model": {""}, "system_prompt": {"You are terse."},
		"welcome_message": {"Welcome to " + identifier + "!"}, "visibility": {"public"}, "accent": {"rose"},
		"tools": {"true"}, "show_reasoning": {"true"},
	}
	for i := 0; i+1 < len(overrides); i += 2 {
		f.Set(overrides[i], overrides[i+1])
	}
	return f
}

// createAgent posts the agent form and returns the new agent's id.
func createAgent(t *testing.T, c *handlerstest.Client, form url.Values) int64 {
	t.Helper()
	res := c.PostForm("/agents", form)
	var id int64
	if _, err := fmt.Sscanf(res.Header.Get("Location"), "/agents/%d/edit", &id); res.Status != http.StatusSeeOther || err != nil {
		t.Fatalf("create agent: status %d, location %q\n%s", res.Status, res.Header.Get("Location"), res.Body)
	}
	return id
}

func TestAgentFormValidatesAndStoresNothingOnBadInput(t *testing.T) {
	app, c := signedIn(t)
	before := count(t, app, "agents")
	cases := []struct {
		name, field, value, errField string
	}{
		{"bad identifier", "identifier", "Bad Slug!", "identifier"},
		{"reserved identifier", "identifier", "new", "identifier"},
		{"empty name", "name", "  ", "name"},
		{"unknown type", "agent_type", "wizard", "agent_type"},
		{"bad visibility", "visibility", "secret", "visibility"},
		{"markup avatar", "avatar", "<b>", "avatar"},
		{"model with spaces", "model", "gpt 4", "model"},
		{"embed origin with a path", "embed_origins", "https://example.com/page", "embed_origins"},
		{"short password", "password", "abc", "password"},
		{"unknown accent", "accent", "plaid", "accent"},
		{"invalid UTF-8", "description", "bad \xff bytes", ""},
	}
	for _, tc := range cases {
		res := c.PostForm("/agents", agentForm("good-one", tc.field, tc.value))
		if res.Status != http.StatusUnprocessableEntity {
			t.Fatalf("%s: status %d, want 422", tc.name, res.Status)
		}
		if tc.errField != "" && doc(t, res.Body).Find(`[data-testid=`+tc.errField+`-error]`).Length() != 1 {
			t.Fatalf("%s: no error beside the %s field", tc.name, tc.errField)
		}
	}
	if n := count(t, app, "agents"); n != before {
		t.Fatalf("bad forms stored %d agents", n-before)
	}
	createAgent(t, c, agentForm("good-one"))
	res := c.PostForm("/agents", agentForm("good-one"))
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "already taken") {
		t.Fatalf("a taken identifier: status %d, want 422 with the reason", res.Status)
	}
}

func TestAgentCRUD(t *testing.T) {
	app, c := signedIn(t)
	id := createAgent(t, c, agentForm("owl", "password", "hoot-hoot"))
	edit := c.Get(fmt.Sprintf("/agents/%d/edit", id))
	d := doc(t, edit.Body)
	if edit.Status != http.StatusOK || d.Find(`#name`).AttrOr("value", "") != "Helper owl" {
		t.Fatalf("edit page: status %d", edit.Status)
	}
	snippet := d.Find(`[data-testid=embed-snippet]`).Text()
	if !strings.Contains(snippet, `<iframe src="http://127.0.0.1/embed/agent/owl"`) {
		t.Fatalf("embed snippet %q", snippet)
	}
	res := c.PostForm(fmt.Sprintf("/agents/%d", id), agentForm("owl-2", "name", "Wise Owl"))
	if res.Status != http.StatusSeeOther {
		t.Fatalf("update: status %d\n%s", res.Status, res.Body)
	}
	var name, identifier string
	var hasPassword bool
	if err := app.Store.DB.QueryRow(`SELECT name, identifier, password_hash IS NOT NULL FROM agents WHERE id = $1`, id).Scan(&name, &identifier, &hasPassword); err != nil {
		t.Fatal(err)
	}
	if name != "Wise Owl" || identifier != "owl-2" || !hasPassword {
		t.Fatalf("after update: %q %q password %v; the password must be kept when the field is empty", name, identifier, hasPassword)
	}
	if list := c.Get("/agents"); !strings.Contains(list.Body, "Wise Owl") {
		t.Fatal("the list does not show the agent")
	}
	if res := c.PostForm(fmt.Sprintf("/agents/%d/disable", id), url.Values{"disabled": {"true"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("disable: %d", res.Status)
	}
	page := c.Get("/chat/owl-2")
	if page.Status != http.StatusOK || doc(t, page.Body).Find(`[data-testid=agent-unavailable]`).Length() != 1 ||
		doc(t, page.Body).Find(`#send[disabled]`).Length() != 1 {
		t.Fatalf("a disabled agent's page: status %d, want the banner and a disabled composer", page.Status)
	}
	res = htmxPost(c, "/chat/owl-2/messages", url.Values{"query": {"hello"}, "idempotency_key": {"k1"}})
	if res.Status != http.StatusConflict {
		t.Fatalf("a message to a disabled agent: status %d, want 409", res.Status)
	}
	if res := c.PostForm(fmt.Sprintf("/agents/%d/delete", id), nil); res.Status != http.StatusSeeOther {
		t.Fatalf("delete: %d", res.Status)
	}
	if res := c.Get("/chat/owl-2"); res.Status != http.StatusNotFound {
		t.Fatalf("a deleted agent's link: %d, want 404", res.Status)
	}
}

// An agent's chat uses its system prompt, welcome message and model; a signed-in user may pick
// another model among those the agent allows, per conversation.
func TestAgentChatUsesItsPromptWelcomeAndModel(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply { return handlerstest.Reply{Deltas: []string{"Hoot."}} })
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	id := createAgent(t, c, agentForm("owl", "model", "owl-large", "models", "owl-small\nowl-tiny", "tools", ""))
	page := c.Get(fmt.Sprintf("/agents/%d/chat", id))
	d := doc(t, page.Body)
	if !strings.Contains(d.Find(`[data-testid=welcome-message]`).Text(), "Welcome to owl!") {
		t.Fatal("the welcome message is not shown")
	}
	if d.Find(`#chat-pane[data-theme=rose]`).Length() != 1 {
		t.Fatal("the agent's theme is not applied")
	}
	if got := d.Find(`[data-testid=model-select] option`).Length(); got != 3 {
		t.Fatalf("the model choice offers %d models, want 3", got)
	}
	res := htmxPost(c, fmt.Sprintf("/agents/%d/messages", id), url.Values{"query": {"who are you"}, "idempotency_key": {"m1"}, "model": {"owl-small"}})
	ex := exchangeFromPush(t, res)
	if m := waitAnswer(t, app, ex); m.Content != "Hoot." {
		t.Fatalf("answer %q (%s)", m.Content, m.Status)
	}
	req := up.LastRequest()
	msgs, _ := req["messages"].([]any)
	first, _ := msgs[0].(map[string]any)
	if req["model"] != "owl-small" || first["role"] != "system" || first["content"] != "You are terse." {
		t.Fatalf("upstream got model %v and first message %v", req["model"], first)
	}
	// A model the agent does not allow is ignored: the conversation keeps its model.
	htmxPost(c, fmt.Sprintf("/sessions/%d/messages", ex), url.Values{"query": {"again"}, "idempotency_key": {"m2"}, "model": {"gpt-evil"}})
	waitAnswer(t, app, ex)
	if got := up.LastRequest()["model"]; got != "owl-small" {
		t.Fatalf("second turn used model %v, want the conversation's owl-small", got)
	}
}

// Every agent and team route answers 404 to a user who does not own the object (and is no admin),
// exactly like a missing one, and changes nothing.
func TestAgentAndTeamRoutesAreOwnerScoped(t *testing.T) {
	app := handlerstest.Start(t)
	admin := app.Client(t)
	admin.SignUp("admin@example.com", "correct horse") // the first account is the admin
	owner := app.Client(t)
	owner.SignUp("owner@example.com", "correct horse")
	other := app.Client(t)
	other.SignUp("other@example.com", "correct horse")
	id := createAgent(t, owner, agentForm("secret-owl", "visibility", "private"))
	team := createTeam(t, owner, "Owls", "private", id)

	gets := []string{
		fmt.Sprintf("/agents/%d/edit", id), fmt.Sprintf("/agents/%d/chat", id), "/chat/secret-owl", "/chat/agent/secret-owl",
		"/embed/agent/secret-owl", fmt.Sprintf("/teams/%d/edit", team), fmt.Sprintf("/teams/%d/chat", team),
	}
	for _, p := range gets {
		if res := other.Get(p); res.Status != http.StatusNotFound {
			t.Errorf("GET %s by another user: %d, want 404", p, res.Status)
		}
		if res := owner.Get(p); res.Status != http.StatusOK {
			t.Errorf("GET %s by the owner: %d, want 200", p, res.Status)
		}
		if res := admin.Get(p); res.Status != http.StatusOK {
			t.Errorf("GET %s by an admin: %d, want 200", p, res.Status)
		}
	}
	posts := map[string]url.Values{
		fmt.Sprintf("/agents/%d", id):           agentForm("stolen"),
		fmt.Sprintf("/agents/%d/disable", id):   {"disabled": {"true"}},
		fmt.Sprintf("/agents/%d/delete", id):    {},
		fmt.Sprintf("/agents/%d/messages", id):  {"query": {"hi"}},
		"/chat/secret-owl/messages":             {"query": {"hi"}},
		"/chat/secret-owl/unlock":               {"password": {"x"}},
		"/embed/agent/secret-owl/messages":      {"query": {"hi"}},
		fmt.Sprintf("/teams/%d", team):          {"name": {"Mine"}, "visibility": {"private"}, fmt.Sprintf("position_%d", id): {"1"}},
		fmt.Sprintf("/teams/%d/delete", team):   {},
		fmt.Sprintf("/teams/%d/messages", team): {"query": {"hi"}},
	}
	for p, form := range posts {
		if res := other.PostForm(p, form); res.Status != http.StatusNotFound {
			t.Errorf("POST %s by another user: %d, want 404", p, res.Status)
		}
	}
	if res := other.Get("/agents"); strings.Contains(res.Body, "secret-owl") {
		t.Error("another user's list shows a private agent")
	}
	guest := app.Client(t)
	for _, p := range []string{"/chat/secret-owl", "/chat/agent/secret-owl", "/embed/agent/secret-owl"} {
		if res := guest.Get(p); res.Status != http.StatusNotFound {
			t.Errorf("GET %s by a guest: %d, want 404", p, res.Status)
		}
	}
	var n int
	_ = app.Store.DB.Get(&n, `SELECT count(*) FROM agents WHERE identifier = 'secret-owl' AND disabled_at IS NULL AND deleted_at IS NULL`)
	if n != 1 || count(t, app, "chat_exchange") != 0 || count(t, app, "teams") != 1 {
		t.Fatal("another user's requests changed something")
	}
}

// Every state-changing agent and team route refuses a post without the CSRF token.
func TestAgentAndTeamPostsNeedCSRF(t *testing.T) {
	app, c := signedIn(t)
	id := createAgent(t, c, agentForm("owl", "password", "hoot-hoot"))
	team := createTeam(t, c, "Owls", "private", id)
	paths := []string{"/agents", fmt.Sprintf("/agents/%d", id), fmt.Sprintf("/agents/%d/disable", id),
		fmt.Sprintf("/agents/%d/delete", id), fmt.Sprintf("/agents/%d/messages", id), "/agents/widget",
		"/chat/owl/messages", "/chat/owl/unlock", "/embed/agent/owl/messages", "/embed/agent/owl/unlock",
		"/teams", fmt.Sprintf("/teams/%d", team), fmt.Sprintf("/teams/%d/delete", team), fmt.Sprintf("/teams/%d/messages", team)}
	for _, p := range paths {
		if res := c.PostFormRaw(p, url.Values{"query": {"hi"}, "disabled": {"true"}, "password": {"hoot-hoot"}}); res.Status != http.StatusForbidden {
			t.Errorf("POST %s without a CSRF token: %d, want 403", p, res.Status)
		}
	}
	if count(t, app, "chat_exchange") != 0 || count(t, app, "teams") != 1 {
		t.Fatal("a post without a CSRF token changed something")
	}
}

// The floating chat button is an admin setting shown on signed-in pages.
func TestFloatingWidgetIsAnAdminSetting(t *testing.T) {
	app := handlerstest.Start(t)
	admin := app.Client(t)
	admin.SignUp("admin@example.com", "correct horse")
	user := app.Client(t)
	user.SignUp("user@example.com", "correct horse")
	if res := user.PostForm("/agents/widget", url.Values{"agent": {"auto"}}); res.Status != http.StatusNotFound {
		t.Fatalf("a non-admin setting the widget: %d, want 404", res.Status)
	}
	if res := admin.PostForm("/agents/widget", url.Values{"agent": {"nope"}}); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("an unknown agent: %d, want 422", res.Status)
	}
	if res := admin.PostForm("/agents/widget", url.Values{"agent": {"auto"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("setting the widget: %d", res.Status)
	}
	d := doc(t, user.Get("/agents").Body)
	if d.Find(`#chat-widget[data-embed-url="/embed/agent/auto"]`).Length() != 1 {
		t.Fatal("no floating chat button on a signed-in page")
	}
	if doc(t, app.Client(t).Get("/").Body).Find(`#chat-widget`).Length() != 0 {
		t.Fatal("the floating button shows to a signed-out visitor")
	}
}

// A conversation whose agent was deleted stays readable, with a banner and a disabled composer.
func TestConversationWithADeletedAgentShowsABanner(t *testing.T) {
	app, owner := signedIn(t)
	id := createAgent(t, owner, agentForm("owl"))
	user := app.Client(t)
	user.SignUp("user@example.com", "correct horse")
	ex := exchangeFromPush(t, htmxPost(user, "/chat/owl/messages", url.Values{"query": {"hi"}, "idempotency_key": {"d1"}}))
	waitAnswer(t, app, ex)
	owner.PostForm(fmt.Sprintf("/agents/%d/delete", id), nil)
	page := user.Get(fmt.Sprintf("/sessions/%d/chat", ex))
	d := doc(t, page.Body)
	if page.Status != http.StatusOK || d.Find(`[data-testid=agent-unavailable]`).Length() != 1 || d.Find(`#send[disabled][data-locked]`).Length() != 1 ||
		d.Find(`[data-testid=user-text]`).Length() != 1 {
		t.Fatalf("status %d; want the conversation with a banner and a locked composer", page.Status)
	}
	if res := htmxPost(user, fmt.Sprintf("/sessions/%d/messages", ex), url.Values{"query": {"still there?"}, "idempotency_key": {"d2"}}); res.Status != http.StatusConflict {
		t.Fatalf("a message to a deleted agent: %d, want 409", res.Status)
	}
}

// Built-in agents can be edited by an admin but keep what Parley finds them by, and stay enabled.
func TestBuiltinAgentsKeepTheirIdentityAndStayEnabled(t *testing.T) {
	app, admin := signedIn(t)
	var id int64
	_ = app.Store.DB.Get(&id, `SELECT id FROM agents WHERE identifier = 'auto'`)
	res := admin.PostForm(fmt.Sprintf("/agents/%d", id), agentForm("renamed", "name", "Helper", "agent_type", "general",
		"visibility", "private", "password", "secret"))
	if res.Status != http.StatusSeeOther {
		t.Fatalf("editing a built-in agent: %d\n%s", res.Status, res.Body)
	}
	var identifier, agentType, visibility, name string
	var hasPassword bool
	_ = app.Store.DB.QueryRow(`SELECT identifier, agent_type, visibility, name, password_hash IS NOT NULL FROM agents WHERE id = $1`, id).
		Scan(&identifier, &agentType, &visibility, &name, &hasPassword)
	if identifier != "auto" || agentType != "router" || visibility != "public" || hasPassword || name != "Helper" {
		t.Fatalf("after the edit: %s %s %s %q password %v", identifier, agentType, visibility, name, hasPassword)
	}
	for _, p := range []string{fmt.Sprintf("/agents/%d/disable", id), fmt.Sprintf("/agents/%d/delete", id)} {
		if res := admin.PostForm(p, url.Values{"disabled": {"true"}}); res.Status != http.StatusConflict {
			t.Fatalf("POST %s on a built-in agent: %d, want 409", p, res.Status)
		}
	}
	if res := admin.Get("/chat"); res.Status != http.StatusOK {
		t.Fatalf("general chat after editing Auto: %d", res.Status)
	}
}
