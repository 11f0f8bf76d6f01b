package handlers_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"parley/handlers/handlerstest"
)

func TestShareShowsTheSnapshotToSignedOutVisitorsUntilRevoked(t *testing.T) {
	app, c := signedIn(t)
	id, _ := seedConversation(t, app, "ada@example.com", "Shared chat", time.Now(), "what is a snapshot?", "A **frozen** copy.")
	if res := c.PostForm(fmt.Sprintf("/sessions/%d/share", id), url.Values{}); res.Status != http.StatusSeeOther {
		t.Fatalf("create share: %d", res.Status)
	}
	link, ok := doc(t, c.Get(fmt.Sprintf("/sessions/%d/share", id)).Body).Find("[data-testid=share-url]").Attr("value")
	if !ok {
		t.Fatal("no share link listed")
	}
	u, _ := url.Parse(link)
	// A later message never appears in the snapshot.
	var next int
	_ = app.Store.DB.Get(&next, `SELECT max(position) + 1 FROM chat_message WHERE exchange_id = $1`, id)
	app.Store.DB.MustExec(`INSERT INTO chat_message (exchange_id, position, role, content) VALUES ($1, $2, 'user', 'a later secret')`, id, next)

	anon := app.Client(t)
	res := anon.Get(u.Path)
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "<strong>frozen</strong>") || !strings.Contains(res.Body, "what is a snapshot?") {
		t.Fatalf("signed-out visitor: %d %s", res.Status, res.Body)
	}
	if strings.Contains(res.Body, "a later secret") || strings.Contains(res.Body, "ada@example.com") {
		t.Fatal("the snapshot shows a later message or the owner's account")
	}
	if res := anon.Get("/share/" + strings.Repeat("A", 43)); res.Status != http.StatusNotFound {
		t.Fatalf("unknown token: %d", res.Status)
	}
	if res := anon.Get("/share/short"); res.Status != http.StatusNotFound {
		t.Fatalf("malformed token: %d", res.Status)
	}

	var sid int64
	_ = app.Store.DB.Get(&sid, `SELECT id FROM chat_share WHERE exchange_id = $1`, id)
	other := app.Client(t)
	other.SignUp("bob@example.com", "correct horse")
	if res := other.PostForm(fmt.Sprintf("/sessions/%d/share/%d/revoke", id, sid), url.Values{}); res.Status != http.StatusNotFound {
		t.Fatalf("a stranger revokes: %d", res.Status)
	}
	if res := c.PostForm(fmt.Sprintf("/sessions/%d/share/%d/revoke", id, sid), url.Values{}); res.Status != http.StatusSeeOther {
		t.Fatalf("revoke: %d", res.Status)
	}
	if res := anon.Get(u.Path); res.Status != http.StatusNotFound {
		t.Fatalf("revoked link: %d", res.Status)
	}
}

func TestExportHoldsEveryKindMetadataAndFeedback(t *testing.T) {
	app, c := signedIn(t)
	id, ids := seedConversation(t, app, "ada@example.com", "Export me", time.Now(), "find my notes", "Here they are.")
	app.Store.DB.MustExec(`UPDATE chat_message SET feedback = 'up', feedback_reason = 'spot on', metadata = '{"model":"m1"}' WHERE id = $1`, ids[1])
	for _, item := range []struct{ role, content, tool, args, result string }{
		{"reasoning", "Thinking about notes", "", "", ""},
		{"function_call", "", "search_workspace", `{"query":"notes"}`, ""},
		{"function_call_output", "", "search_workspace", "", `{"results":[]}`},
	} {
		app.Store.DB.MustExec(`INSERT INTO chat_message (exchange_id, parent_id, position, role, content, tool_name, tool_arguments, tool_result, duration_ms)
			VALUES ($1, $2, 2, $3, $4, $5, $6, $7, 12)`, id, ids[1], item.role, item.content, item.tool, item.args, item.result)
	}
	res := c.Get(fmt.Sprintf("/sessions/%d/export.json", id))
	if res.Status != http.StatusOK || !strings.Contains(res.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("json export: %d %v", res.Status, res.Header)
	}
	var conv struct {
		Title    string
		Messages []struct {
			Role           string
			Feedback       *string
			FeedbackReason string `json:"feedback_reason"`
			Metadata       map[string]any
			OnBranch       bool `json:"on_branch"`
		}
	}
	if err := json.Unmarshal([]byte(res.Body), &conv); err != nil {
		t.Fatal(err)
	}
	roles := map[string]bool{}
	for _, m := range conv.Messages {
		roles[m.Role] = m.OnBranch
		if m.Role == "assistant" && (m.Feedback == nil || *m.Feedback != "up" || m.FeedbackReason != "spot on" || m.Metadata["model"] != "m1") {
			t.Fatalf("assistant export lacks feedback or metadata: %+v", m)
		}
	}
	if len(roles) != 5 || conv.Title != "Export me" {
		t.Fatalf("exported kinds %v, title %q", roles, conv.Title)
	}
	md := c.Get(fmt.Sprintf("/sessions/%d/export.md", id))
	for _, want := range []string{"# Export me", "find my notes", "Here they are.", "Feedback: up — spot on", "> **Reasoning**", "Tool call: `search_workspace`", `{"results":[]}`} {
		if !strings.Contains(md.Body, want) {
			t.Fatalf("markdown export lacks %q:\n%s", want, md.Body)
		}
	}
}

// A second user and a signed-out client get 404 on every route about someone's conversation.
func TestHistoryRoutesAnswer404ToStrangersAndSignedOutClients(t *testing.T) {
	app, c := signedIn(t)
	id, ids := seedConversation(t, app, "ada@example.com", "Private", time.Now(), "secret question", "secret answer")
	c.PostForm(fmt.Sprintf("/sessions/%d/share", id), url.Values{})
	var sid int64
	_ = app.Store.DB.Get(&sid, `SELECT id FROM chat_share WHERE exchange_id = $1`, id)
	bob := app.Client(t)
	bob.SignUp("bob@example.com", "correct horse")
	anon := app.Client(t)
	gets := []string{
		"/sessions/%d/chat", "/sessions/%d/item", "/sessions/%d/rename", "/sessions/%d/messages?before=2",
		"/sessions/%d/export.md", "/sessions/%d/export.json", "/sessions/%d/share",
	}
	posts := []struct {
		path string
		form url.Values
	}{
		{"/sessions/%d/rename", url.Values{"title": {"mine now"}}},
		{"/sessions/%d/delete", url.Values{}},
		{fmt.Sprintf("/sessions/%%d/messages/%d/regenerate", ids[1]), url.Values{}},
		{fmt.Sprintf("/sessions/%%d/messages/%d/edit", ids[0]), url.Values{"query": {"hi"}}},
		{fmt.Sprintf("/sessions/%%d/messages/%d/switch", ids[1]), url.Values{"to": {fmt.Sprint(ids[1])}}},
		{"/sessions/%d/share", url.Values{}},
		{fmt.Sprintf("/sessions/%%d/share/%d/revoke", sid), url.Values{}},
	}
	for name, client := range map[string]*handlerstest.Client{"second user": bob, "signed out": anon} {
		for _, g := range gets {
			if res := client.Get(fmt.Sprintf(g, id)); res.Status != http.StatusNotFound {
				t.Errorf("%s GET %s: %d", name, fmt.Sprintf(g, id), res.Status)
			}
		}
		for _, p := range posts {
			if res := client.PostForm(fmt.Sprintf(p.path, id), p.form); res.Status != http.StatusNotFound {
				t.Errorf("%s POST %s: %d", name, fmt.Sprintf(p.path, id), res.Status)
			}
		}
	}
	// Batch routes act on the viewer's own conversations only.
	for _, path := range []string{"/history/delete", "/history/restore", "/history/trash/restore", "/history/trash/purge"} {
		if res := bob.PostForm(path, url.Values{"ids": {fmt.Sprint(id)}}); res.Status != http.StatusNotFound {
			t.Errorf("second user POST %s: %d", path, res.Status)
		}
	}
	if res := htmxGet(bob, "/history/search?q=secret"); strings.Contains(res.Body, "secret") && strings.Contains(res.Body, "search-hit") {
		t.Error("the second user's search finds the first user's conversation")
	}
	var deleted int
	_ = app.Store.DB.Get(&deleted, `SELECT count(*) FROM chat_exchange WHERE id = $1 AND deleted_at IS NULL AND title = 'Private'`, id)
	if deleted != 1 {
		t.Fatal("someone else changed the conversation")
	}
}
