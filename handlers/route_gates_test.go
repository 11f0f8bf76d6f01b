package handlers_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"parley/handlers/handlerstest"
)

// routeClass says who may call a route. Every route echo has registered must have one (the
// route gates below fail on an unclassified route), so a new route cannot skip the isolation and
// CSRF checks.
type routeClass string

const (
	public  routeClass = "public"  // anyone, signed in or not
	account routeClass = "account" // signed in; acts on the caller's own data, names no one's object
	owner   routeClass = "owner"   // addresses an object (in the path or the body) only its owner may touch
	admin   routeClass = "admin"   // administrators only
	guest   routeClass = "guest"   // a public agent's link: anyone, guests included; a private agent's is 404
)

// routeClasses classifies every route, by "METHOD path" as echo registered it.
var routeClasses = map[string]routeClass{
	"GET /": public, "GET /signin": public, "POST /signin": public, "GET /signup": public, "POST /signup": public,
	"POST /signout": public, "GET /healthz": public, "GET /readyz": public, "GET /metrics": public,
	"GET /static/*": public, "GET /static/css/chroma.css": public, "GET /api/openapi.json": public,
	"GET /share/:token": public, "GET /avatars/:hash": public,

	"GET /signin/keep": account, "POST /signin/keep": account,
	"GET /chat": account, "GET /chat/new": account, "POST /chat/messages": account, "POST /preferences/tools": account,
	"POST /preferences/page-side-width": account,
	"GET /history":                      account, "POST /history/clear": account, "GET /history/trash": account, "GET /history/search": account,
	"POST /history/trash/restore-all": account, "POST /history/trash/empty": account,
	"GET /pages": account, "GET /pages/new": account, "POST /pages": account,
	"GET /agents": account, "GET /agents/new": account, "POST /agents": account,
	"GET /teams": account, "GET /teams/new": account, "POST /teams": account,
	"GET /account": account, "POST /account/api-keys": account, "GET /account/import": account, "POST /account/import": account,
	"POST /api/chat/stream": account, "GET /api/chat/history": account, "DELETE /api/chat/history": account,

	"GET /sessions/:id/chat": owner, "POST /sessions/:id/messages": owner, "GET /sessions/:id/events": owner,
	"POST /sessions/:id/stop": owner, "POST /sessions/:id/messages/:mid/retry": owner,
	"GET /sessions/:id/item": owner, "GET /sessions/:id/rename": owner, "POST /sessions/:id/rename": owner,
	"POST /sessions/:id/delete": owner, "GET /sessions/:id/messages": owner, "GET /sessions/:id/messages/:mid/arguments": owner,
	"POST /sessions/:id/messages/:mid/regenerate": owner, "POST /sessions/:id/messages/:mid/edit": owner,
	"POST /sessions/:id/messages/:mid/switch": owner, "POST /sessions/:id/messages/:mid/feedback": owner,
	"GET /sessions/:id/export.md": owner, "GET /sessions/:id/export.json": owner,
	"GET /sessions/:id/share": owner, "POST /sessions/:id/share": owner, "POST /sessions/:id/share/:sid/revoke": owner,
	"POST /history/delete": owner, "POST /history/restore": owner, "POST /history/trash/restore": owner,
	"POST /history/trash/purge": owner,
	"GET /pages/:id":            owner, "GET /pages/:id/edit": owner, "POST /pages/:id/save": owner, "POST /pages/:id/preview": owner,
	"POST /pages/:id/trash": owner, "POST /pages/:id/restore": owner, "POST /pages/:id/purge": owner,
	"GET /pages/:id/sync": owner, "GET /pages/:id/events": owner, "GET /pages/:id/revisions": owner, "GET /pages/:id/revisions/:rid": owner, "GET /pages/:id/revisions/compare": owner, "POST /pages/:id/revisions/:rid/restore": owner,
	"GET /pages/:id/proposals/:pid": owner, "POST /pages/:id/proposals/:pid/accept": owner,
	"POST /pages/:id/proposals/:pid/reject": owner, "POST /pages/:id/proposals/:pid/undo": owner,
	"GET /pages/:id/chats/new": owner, "GET /pages/:id/chats/:eid": owner, "POST /pages/:id/chats": owner,
	"POST /pages/:id/chats/:eid/messages": owner, "POST /pages/:id/chats/delete": owner,
	"POST /pages/:id/chats/restore": owner,
	"GET /agents/:id/edit":          owner, "POST /agents/:id": owner, "POST /agents/:id/disable": owner,
	"POST /agents/:id/delete": owner, "GET /agents/:id/chat": owner, "POST /agents/:id/messages": owner,
	"GET /teams/:id/edit": owner, "POST /teams/:id": owner, "POST /teams/:id/delete": owner,
	"GET /teams/:id/chat": owner, "POST /teams/:id/messages": owner,
	"POST /account/api-keys/:id/revoke": owner, "GET /account/import/:id": owner,
	"POST /api/chat": owner, "GET /api/chat/page/:page_id/history": owner, "GET /api/chat/exchange/:id/messages": owner,
	"PUT /api/chat/exchange/:id/feedback": owner, "PUT /api/chat/exchange/:id/messages/:message_id/feedback": owner,
	"DELETE /api/chat/exchange/:id": owner, "PUT /api/chat/exchanges/batch/delete": owner,

	"GET /admin/feedback.csv": admin, "GET /admin/feedback.json": admin, "POST /agents/widget": admin,

	"GET /chat/:identifier": guest, "GET /chat/agent/:identifier": guest, "POST /chat/:identifier/messages": guest,
	"POST /chat/:identifier/unlock": guest, "GET /embed/agent/:identifier": guest,
	"POST /embed/agent/:identifier/messages": guest, "POST /embed/agent/:identifier/unlock": guest,
}

// world is a Parley with three accounts and a guest: root (the administrator, who made the public
// agent "owl"), owner (whose objects the gates attack) and mallory (the attacker, with an API key),
// plus a guest who chatted with owl.
type world struct {
	app                   *handlerstest.App
	root, owner, mallory  *handlerstest.Client
	guest, anon           *handlerstest.Client
	ownerID               int64
	malloryKey            string
	exchange, ask, answer int64 // owner's general conversation, its question and answer
	page, pageChat        int64 // owner's page and a conversation about it
	proposal, revision    int64
	agent, team, share    int64 // owner's private agent "secretagent", team, share link
	apiKey                int64
	version               int // owner's page version
}

func newWorld(t *testing.T) *world {
	t.Helper()
	w := &world{app: handlerstest.Start(t)}
	app := w.app
	w.root, w.owner, w.mallory, w.guest, w.anon = app.Client(t), app.Client(t), app.Client(t), app.Client(t), app.Client(t)
	w.root.SignUp("root@example.com", "correct horse")
	createAgent(t, w.root, agentForm("owl"))
	w.owner.SignUp("owner@example.com", "correct horse")
	w.mallory.SignUp("mallory@example.com", "correct horse")
	w.malloryKey = createKey(t, w.mallory, "mallory's key")
	_ = app.Store.DB.Get(&w.ownerID, `SELECT id FROM users WHERE email = 'owner@example.com'`)

	var ids []int64
	w.exchange, ids = seedConversation(t, app, "owner@example.com", "Owner's secrets", time.Now(), "my secret question", "the secret answer")
	w.ask, w.answer = ids[0], ids[1]
	w.page = newPage(t, w.owner, "Owner's page", "# A\n\nalpha\n")
	pageChat, m := askPage(t, app, w.owner, w.page, "append Done. to section A")
	w.pageChat, w.proposal = pageChat, proposalOf(t, m)
	_ = app.Store.DB.Get(&w.revision, `SELECT min(id) FROM page_revisions WHERE page_id = $1`, w.page)
	_ = app.Store.DB.Get(&w.version, `SELECT version FROM pages WHERE id = $1`, w.page)
	w.agent = createAgent(t, w.owner, agentForm("secretagent", "visibility", "private"))
	w.team = createTeam(t, w.owner, "Owner's team", "private", w.agent)
	if res := w.owner.PostForm(fmt.Sprintf("/sessions/%d/share", w.exchange), nil); res.Status != http.StatusSeeOther {
		t.Fatalf("share: %d", res.Status)
	}
	_ = app.Store.DB.Get(&w.share, `SELECT id FROM chat_share WHERE exchange_id = $1`, w.exchange)
	createKey(t, w.owner, "owner's key")
	_ = app.Store.DB.Get(&w.apiKey, `SELECT id FROM api_keys WHERE user_id = $1`, w.ownerID)

	htmxPost(w.guest, "/chat/owl/messages", url.Values{"query": {"hello owl"}, "idempotency_key": {"guest-1"}})
	waitAnswer(t, app, guestExchange(t, app))
	w.anon.Get("/")
	return w
}

// param is the value a path parameter takes in a request at one of the owner's objects.
func (w *world) fill(path string) string {
	objects := map[string]int64{"sessions": w.exchange, "pages": w.page, "agents": w.agent, "teams": w.team,
		"api-keys": w.apiKey, "exchange": w.exchange}
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if !strings.HasPrefix(p, ":") {
			continue
		}
		var v any
		switch p {
		case ":id":
			v = objects[parts[i-1]]
		case ":mid", ":message_id":
			v = w.answer
			if strings.HasSuffix(path, "/edit") {
				v = w.ask
			}
		case ":eid":
			v = w.pageChat
		case ":pid":
			v = w.proposal
		case ":rid":
			v = w.revision
		case ":sid":
			v = w.share
		case ":page_id":
			v = w.page
		case ":identifier":
			v = "secretagent"
		case ":token", ":hash":
			v = "x"
		}
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, "/")
}

// form is a body that would pass validation on every form route, so only the ownership check can
// refuse it: it names the owner's objects and carries plausible values.
func (w *world) form(n int) url.Values {
	f := agentForm("taken-over", "visibility", "public")
	for k, v := range map[string]string{
		"query": "take this over", "idempotency_key": fmt.Sprintf("gate-%d", n), "title": "Pwned", "content": "# pwned\n",
		"version": fmt.Sprint(w.version), "rating": "up", "reason": "pwned", "to": fmt.Sprint(w.ask),
		"id": fmt.Sprint(w.exchange), "ids": fmt.Sprint(w.exchange), "disabled": "true", "row": "0", "keep": "yes", "agent": "secretagent", "password": "x",
	} {
		f.Set(k, v)
	}
	f.Set(fmt.Sprintf("position_%d", w.agent), "1")
	return f
}

// jsonBody is the same for the JSON API.
func (w *world) jsonBody() string {
	return fmt.Sprintf(`{"query": "take this over", "exchange_id": %d, "page_id": %d, "feedback": 1, "ids": [%d]}`,
		w.exchange, w.page, w.exchange)
}

// call sends one request as c (nil: no cookies) with an optional API key, CSRF token and extra
// headers (empty: a body with nothing but the token), and returns the status and the Location
// header. A response that streams is cut after 3 s.
func (w *world) call(t *testing.T, c *handlerstest.Client, key, token, method, path string, n int, header map[string]string, empty bool) (int, string) {
	t.Helper()
	var body io.Reader
	ctype := ""
	switch {
	case empty && token != "":
		body, ctype = strings.NewReader(url.Values{"_csrf": {token}}.Encode()), "application/x-www-form-urlencoded"
		if strings.HasPrefix(path, "/api/") {
			body, ctype = strings.NewReader(""), "application/json"
		}
	case method != http.MethodGet:
		if strings.HasPrefix(path, "/api/") {
			body, ctype = strings.NewReader(w.jsonBody()), "application/json"
		} else {
			f := w.form(n)
			if token != "" {
				f.Set("_csrf", token)
			}
			body, ctype = strings.NewReader(f.Encode()), "application/x-www-form-urlencoded"
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, w.app.URL+path, body)
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if key != "" {
		req.Header.Set("X-Api-Key", key)
	}
	if token != "" {
		req.Header.Set("X-CSRF-Token", token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	client := http.DefaultClient
	if c != nil {
		client = c.Client
	}
	noRedirect := *client
	noRedirect.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := noRedirect.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body) // a stream that stays open ends at the timeout
	return res.StatusCode, res.Header.Get("Location")
}

// ownerDigest fingerprints everything the owner has (conversations and messages, pages and their
// revisions and proposals, agents, teams, share links, API keys, the account) and the site
// settings; volatile columns (last use, session expiry) are left out.
func (w *world) ownerDigest(t *testing.T) string {
	t.Helper()
	var digest []string
	for _, q := range []string{
		`SELECT e::text FROM chat_exchange e WHERE user_id = $1 ORDER BY id`,
		`SELECT m::text FROM chat_message m JOIN chat_exchange e ON e.id = m.exchange_id WHERE e.user_id = $1 ORDER BY m.id`,
		`SELECT p::text FROM pages p WHERE owner_id = $1 ORDER BY id`,
		`SELECT r::text FROM page_revisions r JOIN pages p ON p.id = r.page_id WHERE p.owner_id = $1 ORDER BY r.id`,
		`SELECT x::text FROM page_edit_proposal x JOIN pages p ON p.id = x.page_id WHERE p.owner_id = $1 ORDER BY x.id`,
		`SELECT a::text FROM agents a WHERE owner_id = $1 ORDER BY id`,
		`SELECT t::text FROM teams t WHERE owner_id = $1 ORDER BY id`,
		`SELECT m::text FROM team_members m JOIN teams t ON t.id = m.team_id WHERE t.owner_id = $1 ORDER BY m::text`,
		`SELECT s::text FROM chat_share s WHERE user_id = $1 ORDER BY id`,
		`SELECT concat_ws('|', id, name, prefix, encode(key_hash, 'hex'), revoked_at) FROM api_keys WHERE user_id = $1 ORDER BY id`,
		`SELECT concat_ws('|', id, email, display_name, password_hash, is_admin, preferences) FROM users WHERE id = $1`,
		`SELECT s::text FROM app_settings s WHERE $1 > 0 ORDER BY name`,
	} {
		var rows []string
		if err := w.app.Store.DB.Select(&rows, q, w.ownerID); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		digest = append(digest, strings.Join(rows, "\n"))
	}
	return strings.Join(digest, "\n--\n")
}

// siteDigest fingerprints every row the routes can change, whoever owns it.
func (w *world) siteDigest(t *testing.T) string {
	t.Helper()
	var digest []string
	for _, table := range []string{"users", "chat_exchange", "chat_message", "pages", "page_revisions", "page_edit_proposal",
		"agents", "teams", "team_members", "chat_share", "app_settings"} {
		var rows []string
		if err := w.app.Store.DB.Select(&rows, `SELECT t::text FROM `+table+` t ORDER BY t::text`); err != nil {
			t.Fatal(err)
		}
		digest = append(digest, strings.Join(rows, "\n"))
	}
	var keys []string
	_ = w.app.Store.DB.Select(&keys, `SELECT concat_ws('|', id, user_id, name, revoked_at) FROM api_keys ORDER BY id`)
	return strings.Join(append(digest, strings.Join(keys, "\n")), "\n--\n")
}

// routes lists echo's registered routes as "METHOD path", sorted.
func routes(app *handlerstest.App) []string {
	var out []string
	for _, r := range app.Parley.Routes() {
		out = append(out, r.Method+" "+r.Path)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// Every registered route has a class, and every class names a registered route: a new route
// without one fails here until someone decides who may call it.
func TestEveryRouteIsClassified(t *testing.T) {
	app := handlerstest.Start(t)
	registered := routes(app)
	for _, r := range registered {
		if _, ok := routeClasses[r]; !ok {
			t.Errorf("route %s has no class in routeClasses (public, account, owner, admin or guest)", r)
		}
	}
	for r := range routeClasses {
		if !slices.Contains(registered, r) {
			t.Errorf("routeClasses lists %s, which is not registered", r)
		}
	}
}

// refusedAnonymously reports whether a caller without a session was turned away: 401, 404, or for a
// page load a redirect to sign in.
func refusedAnonymously(status int, location string) bool {
	return status == http.StatusUnauthorized || status == http.StatusNotFound ||
		status == http.StatusSeeOther && strings.HasPrefix(location, "/signin") ||
		status == http.StatusFound && strings.HasPrefix(location, "/signin")
}

// Each owner-scoped route, aimed at the owner's object, is 404 to another user (also with an empty
// body: ownership comes before validation) and to that user's API key, and 401/404 (or a sign-in redirect) to a guest and to no one, and changes nothing of
// the owner's. Guest routes at the owner's private agent are 404 to all of them; account routes
// called by them leave the owner's data alone; admin routes are 404 to non-administrators.
func TestOwnerScopedRoutesAreInvisibleToEveryoneElse(t *testing.T) {
	w := newWorld(t)
	before := w.ownerDigest(t)
	type identity struct {
		name     string
		c        *handlerstest.Client
		key      string
		signedIn bool // a signed-in account (or its key): the answer must be 404, not a sign-in prompt
		empty    bool // send an empty body: ownership is checked before validation, so still 404
	}
	ids := []identity{{"another user", w.mallory, "", true, false}, {"another user's API key", nil, w.malloryKey, true, false},
		{"another user with an empty body", w.mallory, "", true, true},
		{"a guest", w.guest, "", false, false}, {"anonymous", w.anon, "", false, false}}
	n, cells := 0, 0
	for _, r := range routes(w.app) {
		class := routeClasses[r]
		if class == public || class == "" {
			continue
		}
		method, path, _ := strings.Cut(r, " ")
		target := w.fill(path)
		for _, id := range ids {
			if id.key != "" && !strings.HasPrefix(path, "/api/") {
				continue // keys count only under /api (elsewhere the call is anonymous, covered above)
			}
			if id.key == "" && id.c == nil || id.empty && (method == http.MethodGet || class != owner || !strings.Contains(path, ":")) {
				// the empty-body cell is for routes naming their object in the path (a body-addressed
				// route with an empty body names nothing: 400 is right)
				continue
			}
			n++
			token := ""
			if id.c != nil {
				token = id.c.CSRFToken()
			}
			status, location := w.call(t, id.c, id.key, token, method, target, n, nil, id.empty)
			cells++
			ok := true
			switch {
			case class == account && id.signedIn:
				ok = status < 500 // their own data; the digest below checks the owner's stayed put
			case class == account, class == admin && !id.signedIn:
				ok = refusedAnonymously(status, location)
			case id.signedIn:
				ok = status == http.StatusNotFound
			default:
				ok = refusedAnonymously(status, location)
			}
			if !ok {
				t.Errorf("%s %s (%s route) as %s: %d %s", method, target, class, id.name, status, location)
			}
			if after := w.ownerDigest(t); after != before {
				t.Fatalf("%s %s as %s changed the owner's data:\n%s", method, target, id.name, diffLines(before, after))
			}
		}
	}
	if cells < 200 {
		t.Fatalf("only %d cells ran", cells)
	}
	t.Logf("%d route × identity cells", cells)
}

// Every state-changing route refuses a forged request: no token, a wrong token, a cross-site
// request (Fetch Metadata) even with the token, and a same-site one without it; nothing changes.
func TestStateChangingRoutesRefuseForgedRequests(t *testing.T) {
	w := newWorld(t)
	before := w.siteDigest(t)
	forgeries := []struct {
		name   string
		token  func(c *handlerstest.Client) string
		header map[string]string
	}{
		{"no token", func(*handlerstest.Client) string { return "" }, nil},
		{"a wrong token", func(*handlerstest.Client) string { return "forged-token-0123456789abcdef" }, nil},
		{"cross-site with the token", (*handlerstest.Client).CSRFToken, map[string]string{"Sec-Fetch-Site": "cross-site", "Origin": "https://evil.example"}},
		{"same-site without the token", func(*handlerstest.Client) string { return "" }, map[string]string{"Sec-Fetch-Site": "same-site"}},
	}
	n, cells := 0, 0
	for _, r := range routes(w.app) {
		method, path, _ := strings.Cut(r, " ")
		if method == http.MethodGet || method == http.MethodHead {
			continue
		}
		actor := w.owner // the legitimate caller whose cookie a forged request would ride on
		switch routeClasses[r] {
		case admin:
			actor = w.root
		case public, guest:
			actor = w.guest
		}
		target := w.fill(path)
		if routeClasses[r] == guest {
			target = strings.Replace(target, "secretagent", "owl", 1)
		}
		for _, f := range forgeries {
			n++
			status, _ := w.call(t, actor, "", f.token(actor), method, target, n, f.header, false)
			cells++
			if status != http.StatusForbidden {
				t.Errorf("%s %s, %s: %d, want 403", method, target, f.name, status)
			}
		}
		if after := w.siteDigest(t); after != before {
			t.Fatalf("forged %s %s changed data:\n%s", method, target, diffLines(before, after))
		}
	}
	if cells < 200 {
		t.Fatalf("only %d cells ran", cells)
	}
	t.Logf("%d route × forgery cells", cells)
}

// diffLines shows the lines of after that are not in before (and the other way round).
func diffLines(before, after string) string {
	b, a := strings.Split(before, "\n"), strings.Split(after, "\n")
	var out []string
	for _, l := range a {
		if !slices.Contains(b, l) {
			out = append(out, "+ "+l)
		}
	}
	for _, l := range b {
		if !slices.Contains(a, l) {
			out = append(out, "- "+l)
		}
	}
	return strings.Join(out, "\n")
}
