package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"parley/config"
)

// A deleted agent's identifier may be taken again; the old conversation still shows the deleted
// agent (it refers to it by id) and refuses new messages.
func TestDeletedAgentsIdentifierCanBeReused(t *testing.T) {
	app, owner := signedIn(t)
	old := createAgent(t, owner, agentForm("owl", "name", "Old Owl"))
	ex := exchangeFromPush(t, htmxPost(owner, "/chat/owl/messages", url.Values{"query": {"hi"}, "idempotency_key": {"r1"}}))
	waitAnswer(t, app, ex)
	owner.PostForm(fmt.Sprintf("/agents/%d/delete", old), nil)
	fresh := createAgent(t, owner, agentForm("owl", "name", "New Owl"))
	if fresh == old {
		t.Fatal("the new agent is the old one")
	}
	if res := owner.PostForm("/agents", agentForm("owl")); res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a live identifier taken twice: %d, want 422", res.Status)
	}
	d := doc(t, owner.Get(fmt.Sprintf("/sessions/%d/chat", ex)).Body)
	if d.Find(`[data-testid=agent-name]`).Text() != "Old Owl" || d.Find(`[data-testid=agent-unavailable]`).Length() != 1 {
		t.Fatalf("the old conversation shows %q, want the deleted Old Owl with its banner", d.Find(`[data-testid=agent-name]`).Text())
	}
	if res := htmxPost(owner, fmt.Sprintf("/sessions/%d/messages", ex), url.Values{"query": {"again"}, "idempotency_key": {"r2"}}); res.Status != http.StatusConflict {
		t.Fatalf("a message to the deleted agent's conversation: %d, want 409", res.Status)
	}
	if d := doc(t, owner.Get("/chat/owl").Body); d.Find(`[data-testid=agent-name]`).Text() != "New Owl" {
		t.Fatal("/chat/owl does not open the new agent")
	}
}

// A disabled agent's page without a conversation: the whole composer is off, the banner does not
// speak of a conversation, and there is no New chat.
func TestDisabledAgentPageLocksTheComposer(t *testing.T) {
	app, owner := signedIn(t)
	id := createAgent(t, owner, agentForm("owl"))
	owner.PostForm(fmt.Sprintf("/agents/%d/disable", id), url.Values{"disabled": {"true"}})
	for _, path := range []string{"/chat/owl", "/embed/agent/owl"} {
		d := doc(t, app.Client(t).Get(path).Body)
		banner := d.Find(`[data-testid=agent-unavailable]`).Text()
		if banner == "" || strings.Contains(banner, "read this conversation") {
			t.Fatalf("%s: banner %q", path, banner)
		}
		if d.Find(`textarea#query[disabled]`).Length() != 1 || d.Find(`[data-testid=pane-new-chat]`).Length() != 0 {
			t.Fatalf("%s: the composer's text box is usable or New chat shows", path)
		}
	}
}

// A model outside the agent's allowed list is refused (422, text kept), not silently replaced.
func TestUnknownModelIsRefused(t *testing.T) {
	_, c := signedIn(t)
	id := createAgent(t, c, agentForm("owl", "models", "small-model"))
	res := htmxPost(c, fmt.Sprintf("/agents/%d/messages", id), url.Values{"query": {"keep me"}, "idempotency_key": {"m1"}, "model": {"gpt-9000"}})
	d := doc(t, res.Body)
	if res.Status != http.StatusUnprocessableEntity || d.Find(`textarea[name=query]`).Text() != "keep me" || d.Find(`[data-testid=query-error]`).Length() != 1 {
		t.Fatalf("an unknown model: %d, want 422 keeping the text\n%s", res.Status, res.Body)
	}
	if res := htmxPost(c, fmt.Sprintf("/agents/%d/messages", id), url.Values{"query": {"ok"}, "idempotency_key": {"m2"}, "model": {"small-model"}}); res.Status != http.StatusOK {
		t.Fatalf("an allowed model: %d", res.Status)
	}
	if !strings.Contains(doc(t, c.Get("/agents/new").Body).Find(`[data-testid=model-hint]`).Text(), "offline provider") {
		t.Fatal("the agent form does not explain which model ids the offline provider accepts")
	}
}

// Embed origins must be bare origins; anything else is a field error, not a truncated list.
func TestEmbedOriginsMustBeBareOrigins(t *testing.T) {
	_, c := signedIn(t)
	for _, bad := range []string{"http://a.com; script-src *", "https://a.com/path", "a.com", "https://a.com:x"} {
		res := c.PostForm("/agents", agentForm("owl", "embed_origins", bad))
		if res.Status != http.StatusUnprocessableEntity || doc(t, res.Body).Find(`#embed_origins-error, [id$=embed_origins-error]`).Length() == 0 && !strings.Contains(res.Body, "Embedding:") {
			t.Fatalf("origins %q: %d, want 422 with a field error", bad, res.Status)
		}
	}
}

// Over TLS every widget response keeps the CSRF cookie Partitioned (posts and unlock too).
func TestEmbedPostsKeepTheCSRFCookiePartitioned(t *testing.T) {
	app, ada := signedIn(t, func(c *config.Config) { c.PublicURL = "https://parley.example.com" })
	createAgent(t, ada, agentForm("owl", "password", "open sesame"))
	guest := app.Client(t)
	token := "0123456789abcdef0123456789abcdef"
	for _, path := range []string{"/embed/agent/owl/unlock", "/embed/agent/auto/messages"} {
		form := url.Values{"query": {"hi"}, "idempotency_key": {"k" + fmt.Sprint(len(path))}, "password": {"open sesame"}, "_csrf": {token}}
		req, _ := http.NewRequest(http.MethodPost, guest.URL(path), strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("HX-Request", "true")
		req.AddCookie(&http.Cookie{Name: "parley_csrf", Value: token})
		res := guest.Do(req)
		var csrf *http.Cookie
		for _, line := range res.Header.Values("Set-Cookie") {
			if ck, err := http.ParseSetCookie(line); err == nil && ck.Name == "parley_csrf" {
				csrf = ck
			}
		}
		if res.Status >= 400 || csrf == nil || !csrf.Partitioned {
			t.Fatalf("POST %s: %d, CSRF cookie %+v, want Partitioned", path, res.Status, csrf)
		}
	}
}

// The welcome message is sanitised markdown; a long name is truncated in the header.
func TestWelcomeIsMarkdownAndLongNamesTruncate(t *testing.T) {
	_, guest, _ := publicAgent(t, "welcome_message", "**Hello** <script>alert(1)</script> [docs](https://example.com)",
		"name", strings.Repeat("Very long agent name ", 3))
	for _, path := range []string{"/chat/owl", "/embed/agent/owl"} {
		d := doc(t, guest.Get(path).Body)
		w := d.Find(`[data-testid=welcome-message]`)
		if w.Find(`strong`).Text() != "Hello" || w.Find(`a[href="https://example.com"]`).Length() != 1 || w.Find(`script`).Length() != 0 {
			t.Fatalf("%s: welcome not rendered as sanitised markdown: %s", path, w.Text())
		}
		if !d.Find(`[data-testid=agent-name]`).HasClass("truncate") {
			t.Fatalf("%s: the agent's name in the header is not truncated", path)
		}
	}
}

// The floating chat button stays off pages that are a chat already (it would cover their Send
// button on a phone), and shows on the others.
func TestFloatingWidgetStaysOffChatPages(t *testing.T) {
	_, admin := signedIn(t)
	admin.PostForm("/agents/widget", url.Values{"agent": {"auto"}})
	owl := createAgent(t, admin, agentForm("owl"))
	team := createTeam(t, admin, "Team", "private", owl)
	pg := newPage(t, admin, "Notes", "# Notes\n")
	for _, p := range []string{"/chat", fmt.Sprintf("/agents/%d/chat", owl), fmt.Sprintf("/teams/%d/chat", team), "/chat/owl",
		fmt.Sprintf("/pages/%d/edit", pg)} {
		res := admin.Get(p)
		if res.Status != http.StatusOK || doc(t, res.Body).Find(`#chat-widget`).Length() != 0 {
			t.Fatalf("%s: status %d, or the floating chat button shows on a chat page", p, res.Status)
		}
	}
	for _, p := range []string{"/agents", "/teams", "/pages"} {
		if doc(t, admin.Get(p).Body).Find(`#chat-widget`).Length() != 1 {
			t.Fatalf("%s: no floating chat button", p)
		}
	}
}

// Deleting the floating chat button's agent turns the button off, so whoever takes the identifier
// next does not inherit the instance's button.
func TestDeletingTheWidgetAgentTurnsTheButtonOff(t *testing.T) {
	app, admin := signedIn(t)
	owl := createAgent(t, admin, agentForm("owl"))
	admin.PostForm("/agents/widget", url.Values{"agent": {"owl"}})
	admin.PostForm(fmt.Sprintf("/agents/%d/delete", owl), nil)
	other := app.Client(t)
	other.SignUp("other@example.com", "correct horse")
	createAgent(t, other, agentForm("owl", "name", "Impostor"))
	if doc(t, other.Get("/agents").Body).Find(`#chat-widget`).Length() != 0 {
		t.Fatal("the floating button now opens another user's agent that took the identifier")
	}
}
