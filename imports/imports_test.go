package imports_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"parley/db"
	"parley/db/dbtest"
	"parley/imports"
)

// importFile runs a whole import of file for a new user of store and returns the user and result.
func importFile(t *testing.T, store *db.Store, userID int64, file string) (db.Import, error) {
	t.Helper()
	ctx := context.Background()
	st, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	im, err := store.CreateImport(ctx, userID, filepath.Base(file), st.Size())
	if err != nil {
		t.Fatal(err)
	}
	return imports.Run(ctx, store, im, file)
}

func newUser(t *testing.T, store *db.Store, email string) db.User {
	t.Helper()
	u, err := store.CreateUser(context.Background(), email, "Tester", "")
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// conversations returns the user's exchanges by title with every message (all versions).
func conversations(t *testing.T, store *db.Store, userID int64) map[string][]db.ExportedMessage {
	t.Helper()
	ctx := context.Background()
	var rows []struct {
		ID    int64  `db:"id"`
		Title string `db:"title"`
	}
	if err := store.DB.SelectContext(ctx, &rows, `SELECT id, title FROM chat_exchange WHERE user_id = $1`, userID); err != nil {
		t.Fatal(err)
	}
	out := map[string][]db.ExportedMessage{}
	for _, r := range rows {
		msgs, err := store.ExportMessages(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		out[r.Title] = msgs
	}
	return out
}

// onBranch is the branch on screen as "role: content" lines (tool items by name).
func onBranch(msgs []db.ExportedMessage) []string {
	var out []string
	for _, m := range msgs {
		if !m.OnBranch {
			continue
		}
		switch m.Role {
		case db.RoleFunctionCall:
			out = append(out, "call "+m.ToolName+": "+m.ToolArguments)
		case db.RoleFunctionCallOutput:
			out = append(out, "output "+m.ToolName+": "+m.ToolResult)
		default:
			out = append(out, m.Role+": "+m.Content)
		}
	}
	return out
}

func versions(msgs []db.ExportedMessage, role string) int {
	n := 0
	for _, m := range msgs {
		if m.Role == role {
			n++
		}
	}
	return n
}

func TestChatGPTExportKeepsEveryVersionAndShowsTheCurrentBranch(t *testing.T) {
	store := dbtest.Open(t)
	u := newUser(t, store, "ada@example.com")
	im, err := importFile(t, store, u.ID, "testdata/chatgpt-conversations.json")
	if err != nil {
		t.Fatal(err)
	}
	if im.Format != imports.ChatGPT || im.Conversations != 2 || im.Imported != 2 || im.Skipped != 0 {
		t.Fatalf("import %+v", im)
	}
	convs := conversations(t, store, u.ID)
	tools := convs["Branches, tools and a picture"]
	if tools == nil {
		t.Fatalf("titles %v", convs)
	}
	got := strings.Join(onBranch(tools), "\n")
	want := strings.Join([]string{
		"user: How tall do sunflowers grow? 🌻",
		"assistant: Most varieties reach 1.5–3 m; giant ones pass 4 m.",
		"user: *[image, 1024×768 — file-service://file-Sunflower123; the file stays in the ChatGPT export, it was not imported]*\n\n" +
			"Compute the mean height of these: 2.1, 2.9, 3.4 — and what is in my photo?",
		"call python: ```\nheights = [2.1, 2.9, 3.4]\nprint(sum(heights) / len(heights))\n```",
		"output python: 2.8",
		"assistant: The mean height is **2.8 m**. Your photo shows a sunflower field.",
	}, "\n")
	if got != want {
		t.Fatalf("branch on screen:\n%s\nwant:\n%s", got, want)
	}
	if n := versions(tools, db.RoleAssistant); n != 3 {
		t.Fatalf("%d answers, want 3 (two versions of the first)", n)
	}
	var meta map[string]any
	_ = json.Unmarshal(tools[0].Metadata, &meta)
	if meta["system_prompt"] != "I am a gardener.\n\nAnswer briefly." {
		t.Fatalf("custom instructions not kept on the first message: %v", meta)
	}
	if at := tools[0].CreatedAt.Unix(); at != 1717000010 {
		t.Fatalf("first message created %d, want 1717000010", at)
	}

	edited := convs["Перевод и 日本語 — an edited question"]
	if got := strings.Join(onBranch(edited), "\n"); got != "user: Translate 'good morning' into Russian\nassistant: Доброе утро" {
		t.Fatalf("current_node r1 should be shown, got\n%s", got)
	}
	if n := versions(edited, db.RoleUser); n != 2 {
		t.Fatalf("%d user messages, want the edited question's 2 versions", n)
	}
	hits, err := store.SearchConversations(context.Background(), u.ID, "sunflower field", 10)
	if err != nil || len(hits) != 1 {
		t.Fatalf("search after import: %v %v", hits, err)
	}
}

func TestImportingTheSameFileTwiceAddsNothing(t *testing.T) {
	store := dbtest.Open(t)
	u := newUser(t, store, "ada@example.com")
	for _, f := range []string{"chatgpt-conversations.json", "openwebui-chat-export.json", "librechat-conversation.json"} {
		if _, err := importFile(t, store, u.ID, "testdata/"+f); err != nil {
			t.Fatal(f, err)
		}
	}
	var before int
	_ = store.DB.Get(&before, `SELECT count(*) FROM chat_message`)
	for _, f := range []string{"chatgpt-conversations.json", "openwebui-chat-export.json", "librechat-conversation.json"} {
		im, err := importFile(t, store, u.ID, "testdata/"+f)
		if err != nil {
			t.Fatal(f, err)
		}
		if im.Imported != 0 || im.Skipped != im.Conversations || im.Conversations == 0 {
			t.Fatalf("%s again: %+v", f, im)
		}
	}
	var after, exchanges int
	_ = store.DB.Get(&after, `SELECT count(*) FROM chat_message`)
	_ = store.DB.Get(&exchanges, `SELECT count(*) FROM chat_exchange`)
	if after != before || exchanges != 4 {
		t.Fatalf("messages %d → %d, exchanges %d (want 4)", before, after, exchanges)
	}
	// Another person importing the same file gets their own copy.
	other := newUser(t, store, "bob@example.com")
	if im, err := importFile(t, store, other.ID, "testdata/chatgpt-conversations.json"); err != nil || im.Imported != 2 {
		t.Fatalf("other user: %+v %v", im, err)
	}
}

func TestOpenWebUIExportKeepsToolCallsReasoningAndVersions(t *testing.T) {
	store := dbtest.Open(t)
	u := newUser(t, store, "ada@example.com")
	im, err := importFile(t, store, u.ID, "testdata/openwebui-chat-export.json")
	if err != nil || im.Format != imports.OpenWebUI || im.Imported != 1 {
		t.Fatalf("%+v %v", im, err)
	}
	msgs := conversations(t, store, u.ID)["Weather tool and a regenerated answer ☔"]
	got := strings.Join(onBranch(msgs), "\n")
	want := "user: Will it rain in Zürich tomorrow?\n\n*[image attached: sky.png — not imported]*\n" +
		"assistant: Probably — take an umbrella.\nuser: Danke!\nassistant: Gern geschehen."
	if got != want {
		t.Fatalf("branch on screen:\n%s\nwant:\n%s", got, want)
	}
	var all []string
	for _, m := range msgs {
		if !m.OnBranch {
			all = append(all, m.Role+": "+m.Content+m.ToolName+m.ToolArguments+m.ToolResult)
		}
	}
	wantHidden := "reasoning: The user wants a forecast; call the weather tool.\n" +
		"function_call: get_weather{\"city\": \"Zürich\"}\nfunction_call_output: get_weather{\"rain\": 0.8}\n" +
		"assistant: Yes: an 80 % chance of rain."
	if strings.Join(all, "\n") != wantHidden {
		t.Fatalf("other version:\n%s\nwant:\n%s", strings.Join(all, "\n"), wantHidden)
	}
}

func TestLibreChatExportKeepsAgentPartsAndBranches(t *testing.T) {
	store := dbtest.Open(t)
	u := newUser(t, store, "ada@example.com")
	im, err := importFile(t, store, u.ID, "testdata/librechat-conversation.json")
	if err != nil || im.Format != imports.LibreChat || im.Imported != 1 {
		t.Fatalf("%+v %v", im, err)
	}
	msgs := conversations(t, store, u.ID)["Agent with a search tool — Ωmega"]
	got := strings.Join(onBranch(msgs), "\n")
	want := "user: Find the population of Reykjavík\n\n*[file attached: notes.pdf — not imported]*\n" +
		"assistant: Roughly 140 000 people live in Reykjavík.\nuser: And the whole of Iceland?\nassistant: About 390,000."
	if got != want {
		t.Fatalf("branch on screen (the latest message's):\n%s\nwant:\n%s", got, want)
	}
	if versions(msgs, db.RoleFunctionCall) != 1 || versions(msgs, db.RoleReasoning) != 1 || versions(msgs, db.RoleAssistant) != 3 {
		t.Fatalf("messages %v", msgs)
	}
}

func TestBadOrForeignFilesAreRefusedAndStoreNothing(t *testing.T) {
	store := dbtest.Open(t)
	u := newUser(t, store, "ada@example.com")
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// A good conversation first, then a broken one: checking the whole file first stores neither.
	good, _ := os.ReadFile("testdata/chatgpt-conversations.json")
	var list []json.RawMessage
	_ = json.Unmarshal(good, &list)
	brokenTree := `{"title": "Broken", "mapping": {"a": {"id": "a", "message": null, "parent": "missing", "children": []}}, "current_node": "a", "id": "x"}`
	cases := []struct{ name, file, want string }{
		{"cut short", "testdata/chatgpt-truncated.json", "cut short"},
		{"foreign", "testdata/foreign.json", "not from ChatGPT, Open WebUI, LibreChat or Parley: it has the fields created, items, name"},
		{"not JSON", write("notes.txt", "hello, world"), "not a JSON export"},
		{"empty", write("empty.json", "  \n"), "The file is empty."},
		{"empty list", write("none.json", "[]"), "no conversations"},
		{"broken tree after a good one", write("mixed.json", "["+string(list[0])+","+brokenTree+"]"),
			`ChatGPT conversation 2 ("Broken"): node a has parent missing, which is not in the mapping`},
		{"zip without conversations", writeZip(t, dir, "export.zip", "chat.html", "<html></html>"), "The zip holds no conversations.json (it has: chat.html)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			im, err := importFile(t, store, u.ID, c.file)
			if err == nil || !strings.Contains(im.Error, c.want) {
				t.Fatalf("error %v, import %+v; want %q", err, im, c.want)
			}
			saved, _ := store.UserImport(context.Background(), u.ID, im.ID)
			if saved.Status != db.ImportFailed || saved.Error != im.Error {
				t.Fatalf("stored import %+v", saved)
			}
		})
	}
	var n int
	_ = store.DB.Get(&n, `SELECT count(*) FROM chat_exchange`)
	if n != 0 {
		t.Fatalf("%d conversations stored from bad files", n)
	}
}

func TestChatGPTZipImportsItsConversationsJSON(t *testing.T) {
	store := dbtest.Open(t)
	u := newUser(t, store, "ada@example.com")
	body, _ := os.ReadFile("testdata/chatgpt-conversations.json")
	zip := writeZip(t, t.TempDir(), "export.zip", "chat.html", "<html></html>", "conversations.json", string(body))
	im, err := importFile(t, store, u.ID, zip)
	if err != nil || im.Imported != 2 || im.BytesTotal != int64(len(body)) || im.BytesRead != int64(len(body)) {
		t.Fatalf("%+v %v", im, err)
	}
}

func TestAFiveThousandMessageConversationImportsWhole(t *testing.T) {
	store := dbtest.Open(t)
	u := newUser(t, store, "ada@example.com")
	file := bigChatGPTExport(t, 2500)
	im, err := importFile(t, store, u.ID, file)
	if err != nil || im.Imported != 1 || im.Messages != 5000 {
		t.Fatalf("%+v %v", im, err)
	}
	msgs := conversations(t, store, u.ID)["Long one"]
	if len(msgs) != 5000 || msgs[4999].Content != "answer 2500 ünïcödé" || msgs[4999].Position != 5000 {
		t.Fatalf("%d messages, last %+v", len(msgs), msgs[len(msgs)-1])
	}
	hits, err := store.SearchConversations(context.Background(), u.ID, `"question 1234"`, 5)
	if err != nil || len(hits) != 1 {
		t.Fatalf("search %v %v", hits, err)
	}
}

// bigChatGPTExport writes a ChatGPT conversations.json with one conversation of turns questions
// and answers (2×turns messages) in one line, and returns its path.
func bigChatGPTExport(t testing.TB, turns int) string {
	t.Helper()
	mapping := map[string]any{"root": map[string]any{"id": "root", "message": nil, "parent": nil, "children": []string{"n1"}}}
	parent := "root"
	for i := 1; i <= 2*turns; i++ {
		id := fmt.Sprintf("n%d", i)
		role, text := "user", fmt.Sprintf("question %d about gardens", (i+1)/2)
		if i%2 == 0 {
			role, text = "assistant", fmt.Sprintf("answer %d ünïcödé", i/2)
		}
		children := []string{}
		if i < 2*turns {
			children = []string{fmt.Sprintf("n%d", i+1)}
		}
		mapping[id] = map[string]any{"id": id, "parent": parent, "children": children, "message": map[string]any{
			"id": id, "author": map[string]any{"role": role}, "create_time": 1700000000 + i,
			"content": map[string]any{"content_type": "text", "parts": []string{text}}, "recipient": "all", "metadata": map[string]any{}}}
		parent = id
	}
	conv := []any{map[string]any{"title": "Long one", "create_time": 1700000000, "update_time": 1700009999,
		"mapping": mapping, "current_node": parent, "conversation_id": "long-1", "id": "long-1"}}
	b, err := json.Marshal(conv)
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "conversations.json")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestAConversationWhoseMessagesFormACycleIsRefused(t *testing.T) {
	// m2 and m3 are each other's parent: a cycle hanging beside the real first message m1.
	chat := `{"id": "c1", "title": "Loop", "chat": {"history": {"currentId": "m1", "messages": {
		"m1": {"id": "m1", "parentId": null, "childrenIds": [], "role": "user", "content": "hi", "timestamp": 1719000000},
		"m2": {"id": "m2", "parentId": "m3", "childrenIds": [], "role": "assistant", "content": "a", "timestamp": 1719000001},
		"m3": {"id": "m3", "parentId": "m2", "childrenIds": [], "role": "user", "content": "b", "timestamp": 1719000002}}}},
		"created_at": 1719000000, "updated_at": 1719000002}`
	calls := 0
	_, err := imports.Read(strings.NewReader(chat), func(db.ImportedExchange) error { calls++; return nil })
	if err == nil || !strings.Contains(err.Error(), "is its own ancestor (the tree has a cycle)") || calls != 0 {
		t.Fatalf("error %v after %d conversation(s); want the cycle named", err, calls)
	}
}

func TestAParleyExportWhoseMessagesFormACycleIsRefused(t *testing.T) {
	// Messages 2 and 3 are each other's parent, beside the real first message 1.
	export := `{"id": 7, "title": "Loop", "created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-02T03:04:05Z",
		"exported_at": "2026-01-03T00:00:00Z", "messages": [
		{"id": 1, "parent_id": null, "position": 1, "role": "user", "content": "hi", "status": "complete", "created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-02T03:04:05Z"},
		{"id": 2, "parent_id": 3, "position": 2, "role": "assistant", "content": "a", "status": "complete", "created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-02T03:04:05Z"},
		{"id": 3, "parent_id": 2, "position": 3, "role": "user", "content": "b", "status": "complete", "created_at": "2026-01-02T03:04:05Z", "updated_at": "2026-01-02T03:04:05Z"}]}`
	calls := 0
	_, err := imports.Read(strings.NewReader(export), func(db.ImportedExchange) error { calls++; return nil })
	if err == nil || !strings.Contains(err.Error(), "message 2 is its own ancestor") || calls != 0 {
		t.Fatalf("error %v after %d conversation(s); want the cycle named", err, calls)
	}
}
