package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"parley/config"
)

// A share link holds the questions and answers on the branch on screen only: no reasoning, tool
// calls or tool results (which may quote the owner's other conversations).
func TestShareLeavesOutReasoningAndToolItems(t *testing.T) {
	app, c := signedIn(t)
	id, ids := seedConversation(t, app, "ada@example.com", "Shared chat", time.Now(), "find my notes", "Here they are.")
	for _, item := range []struct{ role, content, tool, args, result string }{
		{"reasoning", "Private musing", "", "", ""},
		{"function_call", "", "search_workspace", `{"query":"tax plans"}`, ""},
		{"function_call_output", "", "search_workspace", "", `{"results":[{"title":"My divorce lawyer","url":"/sessions/9"}]}`},
	} {
		app.Store.DB.MustExec(`INSERT INTO chat_message (exchange_id, parent_id, position, role, content, tool_name, tool_arguments, tool_result, status)
			VALUES ($1, $2, 2, $3, $4, $5, $6, $7, 'complete')`, id, ids[1], item.role, item.content, item.tool, item.args, item.result)
	}
	if res := c.PostForm(fmt.Sprintf("/sessions/%d/share", id), nil); res.Status != http.StatusSeeOther {
		t.Fatalf("create share: %d", res.Status)
	}
	var snap string
	_ = app.Store.DB.Get(&snap, `SELECT snapshot::text FROM chat_share WHERE exchange_id = $1`, id)
	for _, secret := range []string{"Private musing", "tax plans", "divorce", "search_workspace"} {
		if strings.Contains(snap, secret) {
			t.Fatalf("the snapshot holds %q: %s", secret, snap)
		}
	}
	page := c.Get(fmt.Sprintf("/sessions/%d/share", id))
	if !strings.Contains(page.Body, "tool calls") {
		t.Fatal("the share dialog does not say what is shared")
	}
	// A snapshot stored before this rule still shows only questions and answers.
	app.Store.DB.MustExec(`UPDATE chat_share SET snapshot = '[{"role":"user","content":"q","status":"complete"},{"role":"function_call_output","tool_result":"My divorce lawyer","status":"complete"}]' WHERE exchange_id = $1`, id)
	link, _ := doc(t, c.Get(fmt.Sprintf("/sessions/%d/share", id)).Body).Find("[data-testid=share-url]").Attr("value")
	if res := app.Client(t).Get(link[strings.Index(link, "/share/"):]); res.Status != http.StatusOK || strings.Contains(res.Body, "divorce") {
		t.Fatalf("an old snapshot shows a tool result: %d", res.Status)
	}
}

// Share links are built from PARLEY_PUBLIC_URL, never from the request's Host or X-Forwarded-Proto.
func TestShareURLUsesThePublicURL(t *testing.T) {
	app, c := signedIn(t, func(cfg *config.Config) { cfg.PublicURL = "https://chat.example.org/" })
	id, _ := seedConversation(t, app, "ada@example.com", "Shared", time.Now(), "q", "a")
	c.PostForm(fmt.Sprintf("/sessions/%d/share", id), nil)
	req := c.Get(fmt.Sprintf("/sessions/%d/share", id))
	link, _ := doc(t, req.Body).Find("[data-testid=share-url]").Attr("value")
	if !strings.HasPrefix(link, "https://chat.example.org/share/") {
		t.Fatalf("share link %q is not under the public URL", link)
	}
}
