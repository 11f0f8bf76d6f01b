package handlers_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The Markdown export neutralises a feedback reason (no headings, HTML or links of its own).
func TestMarkdownExportNeutralisesFeedbackReason(t *testing.T) {
	app, c := signedIn(t)
	id, ids := seedConversation(t, app, "ada@example.com", "Export", time.Now(), "q", "fine")
	app.Store.DB.MustExec(`UPDATE chat_message SET feedback = 'down', feedback_reason = $2 WHERE id = $1`, ids[1],
		"meh_\n\n# Injected heading\n<img src=x onerror=alert(1)> [click](javascript:alert(1)) ``` end")
	md := c.Get(fmt.Sprintf("/sessions/%d/export.md", id)).Body
	for _, bad := range []string{"\n# Injected", "<img", "[click](", "\n```"} {
		if strings.Contains(md, bad) {
			t.Fatalf("the export carries %q from a feedback reason:\n%s", bad, md)
		}
	}
	if !strings.Contains(md, "Injected heading") {
		t.Fatalf("the reason's words are lost:\n%s", md)
	}
}
