package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"parley/config"
)

// Without JavaScript a refused page chat message (blank, whitespace, too long) answers 422 with the
// editor again, the reason beside the composer and the typed text kept; nothing is stored. (It used
// to map to status 0 and drop the connection.)
func TestPageChatRefusesBadMessagesWithoutJavaScript(t *testing.T) {
	app, c := signedIn(t, func(cfg *config.Config) { cfg.MaxQueryChars = 50 })
	id := newPage(t, c, "Notes", "# Notes\n")
	long := strings.Repeat("é", 51)
	for _, tc := range []struct{ name, query, want string }{
		{"empty", "", "Type a message first"},
		{"whitespace", " \n\t ", "Type a message first"},
		{"too long", long, "the limit is 50"},
	} {
		res := c.PostForm(fmt.Sprintf("/pages/%d/chats", id), url.Values{"query": {tc.query}, "idempotency_key": {"k-" + tc.name}})
		d := doc(t, res.Body)
		if res.Status != http.StatusUnprocessableEntity || !strings.Contains(d.Find("[data-testid=query-error]").Text(), tc.want) ||
			d.Find("textarea#query").Text() != tc.query || d.Find("#page-content").Length() != 1 {
			t.Errorf("%s: %d\n%.3000s", tc.name, res.Status, res.Body)
		}
	}
	if n := count(t, app, "chat_message"); n != 0 {
		t.Fatalf("%d messages stored by refused requests", n)
	}
}
