package handlers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"parley/handlers/handlerstest"
)

// BenchmarkImportChatGPTExport times what a person waits for after pressing Import: the upload
// over HTTP (with the session cookie and CSRF header) of a ChatGPT export holding 20 conversations
// of 500 messages (10,000 in all, about 2 MB), until the page's import row says done. Each
// iteration imports into a new account, so nothing is skipped. It reports ms per import and
// stored messages per second.
func BenchmarkImportChatGPTExport(b *testing.B) {
	app := handlerstest.Start(b)
	body := chatGPTExport(b, 20, 250)
	b.ResetTimer()
	var total time.Duration
	for i := 0; b.Loop(); i++ {
		c := app.Client(b)
		email := fmt.Sprintf("bench%d@example.com", i)
		b.StopTimer()
		c.SignUp(email, "correct horse")
		u, _ := app.Store.UserByEmail(context.Background(), email)
		b.StartTimer()
		start := time.Now()
		if res := uploadExport(c, "conversations.json", body); res.Status != http.StatusSeeOther {
			b.Fatalf("upload: %d", res.Status)
		}
		for {
			list, err := app.Store.UserImports(context.Background(), u.ID, 1)
			if err != nil {
				b.Fatal(err)
			}
			if len(list) == 1 && list[0].Status != "running" {
				if list[0].Messages != 10000 {
					b.Fatalf("import %+v", list[0])
				}
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		total += time.Since(start)
	}
	per := total / time.Duration(b.N)
	b.ReportMetric(float64(per.Milliseconds()), "ms/import")
	b.ReportMetric(10000/per.Seconds(), "messages/s")
}

// chatGPTExport makes a conversations.json of n conversations with turns questions and answers each.
func chatGPTExport(b *testing.B, n, turns int) []byte {
	var convs []any
	for c := range n {
		mapping := map[string]any{"root": map[string]any{"id": "root", "message": nil, "parent": nil, "children": []string{"n1"}}}
		parent := "root"
		for i := 1; i <= 2*turns; i++ {
			id := fmt.Sprintf("n%d", i)
			role, text := "user", fmt.Sprintf("question %d of conversation %d: how do I prune roses in late winter?", i, c)
			if i%2 == 0 {
				role, text = "assistant", fmt.Sprintf("answer %d: cut just above an outward-facing bud, remove dead wood, and open the centre.", i)
			}
			children := []string{}
			if i < 2*turns {
				children = []string{fmt.Sprintf("n%d", i+1)}
			}
			mapping[id] = map[string]any{"id": id, "parent": parent, "children": children, "message": map[string]any{
				"id": id, "author": map[string]any{"role": role}, "create_time": 1700000000 + i, "recipient": "all",
				"content": map[string]any{"content_type": "text", "parts": []string{text}}}}
			parent = id
		}
		convs = append(convs, map[string]any{"title": fmt.Sprintf("Roses %d", c), "create_time": 1700000000,
			"mapping": mapping, "current_node": parent, "conversation_id": fmt.Sprintf("bench-%d", c)})
	}
	out, err := json.Marshal(convs)
	if err != nil {
		b.Fatal(err)
	}
	return out
}
