package agents_test

import (
	"encoding/json"
	"testing"

	"parley/agents"
)

// The offline agent searches whatever the person asks it to find: words that are usually noise
// ("hello", "say") become the query when nothing else is left, and a bare greeting stays one.
func TestOfflineStopWordsNeverSwallowASearchRequest(t *testing.T) {
	for _, tc := range []struct{ text, query string }{
		{"find hello", "hello"},
		{"What did I say about hello?", "hello"},
		{"Find good morning", "good morning"},
		{"search for mentions", "mentions"},
		{"find my notes about tide pools", "notes tide pools"},
		{"What do my notes say about tide pools?", "notes tide pools"},
		{"hello?", ""},
		{"hello", ""},
		{"find it", ""},
	} {
		t.Run(tc.text, func(t *testing.T) {
			res, _ := offlineStream(t, agents.NewOffline(0), userAsks(tc.text))
			got := ""
			if len(res.ToolCalls) == 1 {
				var args agents.SearchWorkspaceArgs
				if err := json.Unmarshal([]byte(res.ToolCalls[0].Arguments), &args); err != nil {
					t.Fatal(err)
				}
				got = args.Query
			} else if len(res.ToolCalls) > 1 {
				t.Fatalf("%d tool calls", len(res.ToolCalls))
			}
			if got != tc.query {
				t.Errorf("searched for %q, want %q (reply %.80q)", got, tc.query, res.Content)
			}
		})
	}
}
