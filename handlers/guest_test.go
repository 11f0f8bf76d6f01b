package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"parley/config"
	"parley/handlers/handlerstest"
)

// publicAgent starts Parley with a public agent "owl" made by ada (the admin), and returns a guest client.
func publicAgent(t *testing.T, fields ...string) (*handlerstest.App, *handlerstest.Client, int64) {
	t.Helper()
	app, ada := signedIn(t, func(c *config.Config) { c.GuestMessagesPerMinute = 1000 })
	id := createAgent(t, ada, agentForm("owl", fields...))
	return app, app.Client(t), id
}

// guestExchange is the guest's newest exchange (the guest page does not push a URL).
func guestExchange(t *testing.T, app *handlerstest.App) int64 {
	t.Helper()
	var id int64
	if err := app.Store.DB.Get(&id, `SELECT id FROM chat_exchange WHERE guest_session_id IS NOT NULL ORDER BY id DESC LIMIT 1`); err != nil {
		t.Fatal(err)
	}
	return id
}

func TestGuestChatsWithAPublicAgentAndSigningUpAdoptsIt(t *testing.T) {
	app, guest, _ := publicAgent(t)
	page := guest.Get("/chat/owl")
	d := doc(t, page.Body)
	if page.Status != http.StatusOK || d.Find(`#history`).Length() != 0 || d.Find(`[data-testid=welcome-message]`).Length() != 1 {
		t.Fatalf("guest page: status %d; want the agent's welcome and no history sidebar", page.Status)
	}
	if count(t, app, "guest_sessions") != 0 {
		t.Fatal("viewing the page started a guest session; it should start at the first message")
	}
	res := htmxPost(guest, "/chat/owl/messages", url.Values{"query": {"hello owl"}, "idempotency_key": {"g1"}})
	if res.Status != http.StatusOK || res.Header.Get("HX-Push-Url") != "" {
		t.Fatalf("guest send: status %d, push %q", res.Status, res.Header.Get("HX-Push-Url"))
	}
	var guestCookie *http.Cookie
	for _, ck := range res.Header.Values("Set-Cookie") {
		if strings.HasPrefix(ck, "parley_guest=") {
			guestCookie, _ = http.ParseSetCookie(ck)
		}
	}
	if guestCookie == nil || !guestCookie.HttpOnly || guestCookie.SameSite != http.SameSiteLaxMode {
		t.Fatalf("guest cookie %+v; over plain HTTP it is HttpOnly and Lax", guestCookie)
	}
	ex := guestExchange(t, app)
	if m := waitAnswer(t, app, ex); m.Status != "complete" {
		t.Fatalf("guest answer %s", m.Status)
	}
	// A reload resumes the conversation; its stream is the guest's.
	if again := guest.Get("/chat/owl"); !strings.Contains(again.Body, "hello owl") {
		t.Fatal("the conversation is gone after a reload")
	}
	if res := guest.Get(fmt.Sprintf("/sessions/%d/chat", ex)); res.Status == http.StatusOK {
		t.Fatal("a guest opened a /sessions page; guests have no history pages")
	}
	// Someone else (another guest, another user) cannot see or continue it.
	other := app.Client(t)
	htmxPost(other, "/chat/owl/messages", url.Values{"query": {"me too"}, "idempotency_key": {"g2"}})
	for _, p := range []string{fmt.Sprintf("/sessions/%d/events", ex)} {
		if res := other.Get(p); res.Status != http.StatusNotFound {
			t.Fatalf("another guest GET %s: %d, want 404", p, res.Status)
		}
	}
	if res := htmxPost(other, fmt.Sprintf("/sessions/%d/messages", ex), url.Values{"query": {"hijack"}}); res.Status != http.StatusNotFound {
		t.Fatalf("another guest posting into the conversation: %d, want 404", res.Status)
	}
	// Signing up adopts the conversation.
	res = guest.PostForm("/signup", url.Values{"email": {"guest@example.com"}, "password": {"correct horse"}, "next": {"/chat"}})
	if res.Status != http.StatusSeeOther {
		t.Fatalf("sign up: %d", res.Status)
	}
	var owner int64
	if err := app.Store.DB.Get(&owner, `SELECT user_id FROM chat_exchange WHERE id = $1`, ex); err != nil {
		t.Fatalf("the adopted exchange has no user: %v", err)
	}
	if hist := guest.Get(fmt.Sprintf("/sessions/%d/chat", ex)); hist.Status != http.StatusOK || !strings.Contains(hist.Body, "hello owl") ||
		doc(t, hist.Body).Find(`[data-history-item]`).Length() != 1 {
		t.Fatalf("after sign-up the conversation is not in the account's history (status %d)", hist.Status)
	}
}

// Signing in asks before keeping the guest conversations of this browser ("Keep the conversation
// from this browser?") and keeps only those the current guest visit started: an older one left in
// the same guest session (someone else on a shared computer) stays out. Declining keeps none.
func TestSignInAsksBeforeKeepingGuestConversationsOfThisVisit(t *testing.T) {
	app, guest, _ := publicAgent(t)
	htmxPost(guest, "/chat/owl/messages", url.Values{"query": {"remember me"}, "idempotency_key": {"g1"}})
	ex := guestExchange(t, app)
	waitAnswer(t, app, ex)
	var older int64
	if err := app.Store.DB.Get(&older, `INSERT INTO chat_exchange (guest_session_id, agent_id, title, created_at, updated_at)
		SELECT guest_session_id, agent_id, 'left by someone else', now() - interval '2 days', now() - interval '2 days'
		FROM chat_exchange WHERE id = $1 RETURNING id`, ex); err != nil {
		t.Fatal(err)
	}
	owner := func(id int64) string {
		var email string
		_ = app.Store.DB.Get(&email, `SELECT coalesce(u.email, 'guest') FROM chat_exchange e LEFT JOIN users u ON u.id = e.user_id WHERE e.id = $1`, id)
		return email
	}
	res := guest.PostForm("/signin", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}, "next": {"/pages"}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/signin/keep?next=%2Fpages" || owner(ex) != "guest" {
		t.Fatalf("sign-in: %d to %q; the conversation belongs to %s", res.Status, res.Header.Get("Location"), owner(ex))
	}
	ask := guest.Get("/signin/keep?next=%2Fpages")
	if ask.Status != 200 || !strings.Contains(ask.Body, "Keep the conversation from this browser?") {
		t.Fatalf("the question: %d\n%s", ask.Status, ask.Body)
	}
	if res := guest.PostForm("/signin/keep", url.Values{"keep": {"maybe"}}); res.Status != http.StatusBadRequest || owner(ex) != "guest" {
		t.Fatalf("keep=maybe: %d", res.Status)
	}
	res = guest.PostForm("/signin/keep", url.Values{"keep": {"yes"}, "next": {"/pages"}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/pages" || owner(ex) != "ada@example.com" || owner(older) != "guest" {
		t.Fatalf("keep=yes: %d to %q; visit's conversation %s, older one %s", res.Status, res.Header.Get("Location"), owner(ex), owner(older))
	}
	if res := guest.Get("/signin/keep"); res.Status != http.StatusSeeOther {
		t.Fatalf("asked again after answering: %d", res.Status)
	}

	other := app.Client(t)
	htmxPost(other, "/chat/owl/messages", url.Values{"query": {"not mine to keep"}, "idempotency_key": {"g2"}})
	ex2 := guestExchange(t, app)
	waitAnswer(t, app, ex2)
	other.SignIn("ada@example.com", "correct horse")
	if res := other.PostForm("/signin/keep", url.Values{"keep": {"no"}}); res.Status != http.StatusSeeOther || owner(ex2) != "guest" {
		t.Fatalf("keep=no: %d; the conversation belongs to %s", res.Status, owner(ex2))
	}
}

func TestGuestsHaveAStricterRateLimit(t *testing.T) {
	app, ada := signedIn(t, func(c *config.Config) { c.MessagesPerMinute, c.GuestMessagesPerMinute = 100, 2 })
	createAgent(t, ada, agentForm("owl"))
	guest := app.Client(t)
	var last handlerstest.Response
	for i := range 3 {
		last = htmxPost(guest, "/chat/owl/messages", url.Values{"query": {"hi"}, "idempotency_key": {fmt.Sprintf("k%d", i)}})
		if i < 2 {
			waitAnswer(t, app, guestExchange(t, app))
		}
	}
	if last.Status != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" {
		t.Fatalf("third guest message in a minute: %d, want 429 with Retry-After", last.Status)
	}
}

func TestPasswordProtectedAgent(t *testing.T) {
	app, guest, _ := publicAgent(t, "password", "open sesame")
	page := guest.Get("/chat/owl")
	if doc(t, page.Body).Find(`[data-testid=unlock]`).Length() != 1 {
		t.Fatalf("no password prompt (status %d)", page.Status)
	}
	if res := htmxPost(guest, "/chat/owl/messages", url.Values{"query": {"let me in"}}); res.Status != http.StatusForbidden {
		t.Fatalf("a message before the password: %d, want 403", res.Status)
	}
	res := guest.PostForm("/chat/owl/unlock", url.Values{"password": {"wrong"}})
	if res.Status != http.StatusUnauthorized || doc(t, res.Body).Find(`[data-testid=unlock-error]`).Length() != 1 {
		t.Fatalf("wrong password: %d, want 401 with a message", res.Status)
	}
	if res := guest.PostForm("/chat/owl/unlock", url.Values{"password": {"open sesame"}}); res.Status != http.StatusSeeOther {
		t.Fatalf("right password: %d, want 303", res.Status)
	}
	if page := guest.Get("/chat/owl"); doc(t, page.Body).Find(`#composer`).Length() != 1 {
		t.Fatal("the right password is not remembered")
	}
	htmxPost(guest, "/chat/owl/messages", url.Values{"query": {"now?"}, "idempotency_key": {"p1"}})
	waitAnswer(t, app, guestExchange(t, app))
	// Changing the password locks the agent again.
	var id int64
	_ = app.Store.DB.Get(&id, `SELECT id FROM agents WHERE identifier = 'owl'`)
	ada := app.Client(t)
	ada.SignIn("ada@example.com", "correct horse")
	ada.PostForm(fmt.Sprintf("/agents/%d", id), agentForm("owl", "password", "new secret"))
	if page := guest.Get("/chat/owl"); doc(t, page.Body).Find(`[data-testid=unlock]`).Length() != 1 {
		t.Fatal("after a password change the old unlock still works")
	}
}

func TestAgentPasswordAttemptsAreRateLimited(t *testing.T) {
	app, ada := signedIn(t, func(c *config.Config) { c.SignInRate = 3 })
	createAgent(t, ada, agentForm("owl", "password", "open sesame"))
	guest := app.Client(t)
	var res handlerstest.Response
	for range 4 {
		res = guest.PostForm("/chat/owl/unlock", url.Values{"password": {"guess"}})
	}
	if res.Status != http.StatusTooManyRequests {
		t.Fatalf("fourth attempt: %d, want 429", res.Status)
	}
}

func TestEmbedAllowsOnlyItsOriginsToFrameIt(t *testing.T) {
	_, guest, _ := publicAgent(t, "embed_origins", "https://shop.example.com\nhttp://localhost:9999")
	res := guest.Get("/embed/agent/owl")
	csp := res.Header.Get("Content-Security-Policy")
	if res.Status != http.StatusOK || !strings.Contains(csp, "frame-ancestors 'self' https://shop.example.com http://localhost:9999") ||
		res.Header.Get("X-Frame-Options") != "" {
		t.Fatalf("embed: status %d, CSP %q, XFO %q", res.Status, csp, res.Header.Get("X-Frame-Options"))
	}
	if doc(t, res.Body).Find(`header`).Length() != 0 {
		t.Fatal("the widget shows the site header")
	}
	for _, p := range []string{"/chat/owl", "/", "/signin"} {
		r := guest.Get(p)
		if !strings.Contains(r.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") || r.Header.Get("X-Frame-Options") != "DENY" {
			t.Fatalf("%s may be framed: CSP %q", p, r.Header.Get("Content-Security-Policy"))
		}
	}
}

// Over TLS the widget's cookies (guest, CSRF, unlock) work inside a third-party iframe:
// SameSite=None; Secure; Partitioned.
func TestWidgetCookiesOverTLSArePartitioned(t *testing.T) {
	app, _ := signedIn(t, func(c *config.Config) { c.PublicURL = "https://parley.example.com" })
	res := app.Client(t).Get("/embed/agent/auto")
	var csrf *http.Cookie
	for _, line := range res.Header.Values("Set-Cookie") {
		if ck, err := http.ParseSetCookie(line); err == nil && ck.Name == "parley_csrf" {
			csrf = ck
		}
	}
	if csrf == nil || !csrf.Secure || csrf.SameSite != http.SameSiteNoneMode || !csrf.Partitioned {
		t.Fatalf("widget CSRF cookie %+v, want Secure, SameSite=None, Partitioned", csrf)
	}
	// The guest cookie, set at the first message (posted here with the token, as the page would).
	guest := app.Client(t)
	form := url.Values{"query": {"hi"}, "idempotency_key": {"w1"}, "_csrf": {csrf.Value}}
	req, _ := http.NewRequest(http.MethodPost, guest.URL("/embed/agent/auto/messages"), strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("HX-Request", "true")
	req.AddCookie(&http.Cookie{Name: "parley_csrf", Value: csrf.Value})
	res = guest.Do(req)
	var gc *http.Cookie
	for _, line := range res.Header.Values("Set-Cookie") {
		if ck, err := http.ParseSetCookie(line); err == nil && ck.Name == "parley_guest" {
			gc = ck
		}
	}
	if res.Status != http.StatusOK || gc == nil || !gc.Secure || gc.SameSite != http.SameSiteNoneMode || !gc.Partitioned || !gc.HttpOnly {
		t.Fatalf("status %d, guest cookie %+v, want HttpOnly, Secure, SameSite=None, Partitioned", res.Status, gc)
	}
}

// A refused first message keeps the composer posting to the agent, not to general chat.
func TestRefusedFirstMessageKeepsTheAgentsComposer(t *testing.T) {
	_, guest, _ := publicAgent(t)
	res := htmxPost(guest, "/chat/owl/messages", url.Values{"query": {"   "}, "idempotency_key": {"e1"}})
	d := doc(t, res.Body)
	if res.Status != http.StatusUnprocessableEntity || d.Find(`form#composer[hx-post="/chat/owl/messages"]`).Length() != 1 ||
		d.Find(`[data-testid=query-error]`).Length() != 1 {
		t.Fatalf("status %d; want 422 with the error in a composer that still posts to the agent:\n%s", res.Status, res.Body)
	}
}

// A password-protected widget asks for the password inside the frame, and the answer may be framed.
func TestEmbedPasswordPromptMayBeFramed(t *testing.T) {
	_, guest, _ := publicAgent(t, "password", "open sesame", "embed_origins", "https://shop.example.com")
	res := guest.Get("/embed/agent/owl")
	d := doc(t, res.Body)
	if d.Find(`[data-testid=unlock] form[action="/embed/agent/owl/unlock"]`).Length() != 1 || d.Find(`header`).Length() != 0 ||
		!strings.Contains(res.Header.Get("Content-Security-Policy"), "frame-ancestors 'self' https://shop.example.com") {
		t.Fatalf("the widget's password prompt: status %d, CSP %q", res.Status, res.Header.Get("Content-Security-Policy"))
	}
	res = guest.PostForm("/embed/agent/owl/unlock", url.Values{"password": {"nope"}})
	if res.Status != http.StatusUnauthorized || res.Header.Get("X-Frame-Options") != "" {
		t.Fatalf("wrong password in the widget: %d, XFO %q; want 401 shown in the frame", res.Status, res.Header.Get("X-Frame-Options"))
	}
	res = guest.PostForm("/embed/agent/owl/unlock", url.Values{"password": {"open sesame"}})
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/embed/agent/owl" {
		t.Fatalf("right password in the widget: %d → %q", res.Status, res.Header.Get("Location"))
	}
	if d := doc(t, guest.Get("/embed/agent/owl").Body); d.Find(`[data-testid=embed] #composer`).Length() != 1 {
		t.Fatal("after the password the widget shows no composer")
	}
}
