package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// bigSectionedPage is a markdown page of about n bytes: a title and sections of prose.
func bigSectionedPage(n int) string {
	var b strings.Builder
	b.WriteString("# Handbook\n\nThe team's handbook.\n")
	for i := 1; b.Len() < n; i++ {
		fmt.Fprintf(&b, "\n## Chapter %d\n\n", i)
		for j := 0; j < 6; j++ {
			fmt.Fprintf(&b, "Paragraph %d of chapter %d says what the team does and why it does it that way. ", j, i)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// The editor page of a 1 MB page whose chats hold two whole-page rewrites stays within ~2× the
// page: the rewrites' documents (in their tool calls) are not rendered into it, and open on
// request; opening the proposal shows its diff.
func TestEditorPageSizeStaysNearThePageWhateverRewritesItsChatsHold(t *testing.T) {
	app, c := signedIn(t)
	content := bigSectionedPage(930_000) // its table of contents keeps the rewrite under the 1 MB limit
	id := newPage(t, c, "Handbook", content)
	eid, first := askPage(t, app, c, id, "add a table of contents")
	proposalOf(t, first)
	if res := htmxPost(c, fmt.Sprintf("/pages/%d/chats/%d/messages", id, eid), url.Values{"query": {"add a table of contents"}, "idempotency_key": {"toc-2"}}); res.Status != http.StatusOK {
		t.Fatalf("second request: %d %s", res.Status, res.Body)
	}
	answer := waitAnswer(t, app, eid)
	pid := proposalOf(t, answer)

	ed := c.Get(fmt.Sprintf("/pages/%d/edit?chat=%d", id, eid))
	if ed.Status != http.StatusOK {
		t.Fatalf("editor: %d", ed.Status)
	}
	t.Logf("editor page: %d bytes for a %d-byte page", len(ed.Body), len(content))
	if len(ed.Body) > 2_200_000 {
		t.Errorf("the editor page is %d bytes for a %d-byte page", len(ed.Body), len(content))
	}
	if !strings.Contains(ed.Body, `data-testid="tool-call"`) || !strings.Contains(ed.Body, `data-testid="tool-arguments-more"`) {
		t.Fatalf("the rewrite's tool call does not offer its whole arguments")
	}
	var callID int64
	if err := app.Store.DB.Get(&callID, `SELECT id FROM chat_message WHERE exchange_id = $1 AND role = 'function_call' ORDER BY id LIMIT 1`, eid); err != nil {
		t.Fatal(err)
	}
	full := htmxGet(c, fmt.Sprintf("/sessions/%d/messages/%d/arguments", eid, callID))
	if full.Status != http.StatusOK || !strings.Contains(full.Body, "Paragraph 5 of chapter 1800 says") {
		t.Errorf("the whole arguments: %d, %d bytes", full.Status, len(full.Body))
	}
	if r := htmxGet(c, fmt.Sprintf("/sessions/%d/messages/%d/arguments", eid, answer.ID)); r.Status != http.StatusNotFound {
		t.Errorf("arguments of an answer (no tool call): %d", r.Status)
	}
	panel := c.Get(fmt.Sprintf("/pages/%d/proposals/%d", id, pid))
	if panel.Status != http.StatusOK || !strings.Contains(panel.Body, `data-kind="insert">+ - [Chapter 1](#h-chapter-1)`) {
		t.Errorf("the proposal's diff: %d, %.300s", panel.Status, panel.Body)
	}
	if len(panel.Body) > len(content)/2 { // its diff, not the document
		t.Errorf("the proposal of a table of contents is %d bytes", len(panel.Body))
	}
}
