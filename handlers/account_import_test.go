package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"parley/config"
	"parley/db"
	"parley/handlers/handlerstest"
)

// uploadExport posts body as the import form's file, with the CSRF token in the header as htmx
// sends it (so the body is streamed, not parsed by the CSRF check).
func uploadExport(c *handlerstest.Client, name string, body []byte) handlerstest.Response {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", name)
	_, _ = fw.Write(body)
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, c.URL("/account/import"), &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("X-CSRF-Token", c.CSRFToken())
	return c.Do(req)
}

// waitImport waits for the user's latest import to finish and returns it.
func waitImport(t *testing.T, app *handlerstest.App, userID int64) db.Import {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		list, err := app.Store.UserImports(context.Background(), userID, 1)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) == 1 && list[0].Status != db.ImportRunning {
			return list[0]
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("the import did not finish")
	return db.Import{}
}

func userID(t *testing.T, app *handlerstest.App, email string) int64 {
	t.Helper()
	u, err := app.Store.UserByEmail(context.Background(), email)
	if err != nil {
		t.Fatal(err)
	}
	return u.ID
}

// normalised is an export with ids replaced by their order, so two copies compare equal.
func normalised(t *testing.T, body string) string {
	t.Helper()
	var conv struct {
		Title     string               `json:"title"`
		CreatedAt time.Time            `json:"created_at"`
		UpdatedAt time.Time            `json:"updated_at"`
		Agent     json.RawMessage      `json:"agent"`
		Messages  []db.ExportedMessage `json:"messages"`
	}
	if err := json.Unmarshal([]byte(body), &conv); err != nil {
		t.Fatalf("export: %v\n%s", err, body)
	}
	index := map[int64]int64{}
	for i, m := range conv.Messages {
		index[m.ID] = int64(i + 1)
	}
	for i := range conv.Messages {
		m := &conv.Messages[i]
		m.ID = index[m.ID]
		if m.ParentID != nil {
			p := index[*m.ParentID]
			m.ParentID = &p
		}
	}
	out, _ := json.MarshalIndent(conv, "", " ")
	return string(out)
}

// A conversation with tool calls, reasoning, two versions of an answer and feedback, exported as
// JSON and imported by another person, exports again exactly as it was.
func TestParleyJSONExportImportsBackLosslessly(t *testing.T) {
	app, ada := signedIn(t)
	ctx := context.Background()
	id := exchangeFromPush(t, htmxPost(ada, "/chat/messages", url.Values{"query": {"what did I write about gardens?"}, "idempotency_key": {"k1"}}))
	first := waitAnswer(t, app, id)
	if res := htmxPost(ada, fmt.Sprintf("/sessions/%d/messages/%d/regenerate", id, first.ID), url.Values{}); res.Status != http.StatusOK {
		t.Fatalf("regenerate: %d", res.Status)
	}
	waitAnswer(t, app, id)
	if _, err := app.Store.DB.ExecContext(ctx, `UPDATE chat_message SET feedback = 'up', feedback_reason = 'clear ✓' WHERE id = $1`, first.ID); err != nil {
		t.Fatal(err)
	}
	export := ada.Get(fmt.Sprintf("/sessions/%d/export.json", id))
	if export.Status != http.StatusOK || !strings.Contains(export.Body, `"function_call"`) || !strings.Contains(export.Body, `"on_branch": false`) {
		t.Fatalf("export %d: %s", export.Status, export.Body)
	}

	bob := app.Client(t)
	bob.SignUp("bob@example.com", "correct horse")
	if res := uploadExport(bob, "parley-conversation.json", []byte(export.Body)); res.Status != http.StatusSeeOther {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	im := waitImport(t, app, userID(t, app, "bob@example.com"))
	if im.Status != db.ImportDone || im.Imported != 1 || im.Format != "parley" {
		t.Fatalf("import %+v", im)
	}
	var copyID int64
	if err := app.Store.DB.GetContext(ctx, &copyID, `SELECT id FROM chat_exchange WHERE user_id = $1`, userID(t, app, "bob@example.com")); err != nil {
		t.Fatal(err)
	}
	again := bob.Get(fmt.Sprintf("/sessions/%d/export.json", copyID))
	if got, want := normalised(t, again.Body), normalised(t, export.Body); got != want {
		t.Fatalf("round trip changed the conversation:\n%s\nwant:\n%s", got, want)
	}
	page := bob.Get(fmt.Sprintf("/sessions/%d/chat", copyID))
	if page.Status != http.StatusOK || !strings.Contains(page.Body, "2/2") {
		t.Fatalf("the imported conversation does not open on its shown version: %d", page.Status)
	}
	// Uploading it again adds nothing.
	uploadExport(bob, "parley-conversation.json", []byte(export.Body))
	if im := waitImport(t, app, userID(t, app, "bob@example.com")); im.Skipped != 1 || im.Imported != 0 {
		t.Fatalf("second import %+v", im)
	}
}

func TestImportUploadRefusesNoFileAndTooLargeFiles(t *testing.T) {
	app, ada := signedIn(t, func(c *config.Config) { c.ImportMaxBytes = 4096 })
	res := uploadExport(ada, "big.json", bytes.Repeat([]byte(" "), 8192))
	if res.Status != http.StatusRequestEntityTooLarge || !strings.Contains(res.Body, "larger than 0 MB") && !strings.Contains(res.Body, "PARLEY_IMPORT_MAX_BYTES") {
		t.Fatalf("too large: %d %s", res.Status, res.Body)
	}
	res = uploadExport(ada, "empty.json", nil)
	if res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "is empty") {
		t.Fatalf("empty: %d", res.Status)
	}
	if n := count(t, app, "chat_import"); n != 0 {
		t.Fatalf("%d imports recorded for refused uploads", n)
	}
	// Another person's import is not found.
	body, _ := os.ReadFile("../imports/testdata/foreign.json")
	uploadExport(ada, "foreign.json", body)
	im := waitImport(t, app, userID(t, app, "ada@example.com"))
	if im.Status != db.ImportFailed || !strings.Contains(im.Error, "not from ChatGPT") {
		t.Fatalf("foreign: %+v", im)
	}
	bob := app.Client(t)
	bob.SignUp("bob@example.com", "correct horse")
	if res := bob.Get(fmt.Sprintf("/account/import/%d", im.ID)); res.Status != http.StatusNotFound {
		t.Fatalf("someone else's import: %d", res.Status)
	}
	if res := ada.Get("/account/import"); !strings.Contains(res.Body, "not from ChatGPT") {
		t.Fatal("the failed import's reason is not on the page")
	}
}

// An imported ChatGPT conversation opens on the branch that was current, with its other version
// one click away, and takes a follow-up like any other conversation.
func TestImportedConversationOpensAndContinues(t *testing.T) {
	app, ada := signedIn(t)
	body, _ := os.ReadFile("../imports/testdata/chatgpt-conversations.json")
	uploadExport(ada, "conversations.json", body)
	if im := waitImport(t, app, userID(t, app, "ada@example.com")); im.Imported != 2 {
		t.Fatalf("import %+v", im)
	}
	var id int64
	if err := app.Store.DB.Get(&id, `SELECT id FROM chat_exchange WHERE title = 'Branches, tools and a picture'`); err != nil {
		t.Fatal(err)
	}
	page := ada.Get(fmt.Sprintf("/sessions/%d/chat", id))
	if page.Status != http.StatusOK || !strings.Contains(page.Body, "The mean height is") || !strings.Contains(page.Body, "2/2") ||
		strings.Contains(page.Body, "Usually 1.5 to 3 metres.") {
		t.Fatalf("imported conversation page: %d", page.Status)
	}
	if res := htmxPost(ada, fmt.Sprintf("/sessions/%d/messages", id), url.Values{"query": {"and daisies?"}, "idempotency_key": {"k-follow"}}); res.Status != http.StatusOK {
		t.Fatalf("follow-up: %d %s", res.Status, res.Body)
	}
	answer := waitAnswer(t, app, id)
	msgs, _ := app.Store.ExchangeMessages(context.Background(), id)
	got := contents(msgs)
	if msgs[len(msgs)-1].ID != answer.ID || answer.Status != db.StatusComplete ||
		!strings.Contains(got, "a:The mean height is **2.8 m**. Your photo shows a sunflower field. | u:and daisies? | a:") {
		t.Fatalf("follow-up not on the imported branch: %s", got)
	}
}

// Without JavaScript the form posts its CSRF token as a field: the upload works the same.
func TestImportUploadWithoutJavaScriptWorks(t *testing.T) {
	app, ada := signedIn(t)
	body, _ := os.ReadFile("../imports/testdata/librechat-conversation.json")
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	_ = mw.WriteField("_csrf", ada.CSRFToken())
	fw, _ := mw.CreateFormFile("file", `C:\Users\ada\librechat.json`)
	_, _ = fw.Write(body)
	_ = mw.Close()
	req, _ := http.NewRequest(http.MethodPost, ada.URL("/account/import"), &buf)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if res := ada.Do(req); res.Status != http.StatusSeeOther {
		t.Fatalf("upload: %d %s", res.Status, res.Body)
	}
	im := waitImport(t, app, userID(t, app, "ada@example.com"))
	if im.Status != db.ImportDone || im.Imported != 1 || im.FileName != "librechat.json" {
		t.Fatalf("import %+v", im)
	}
	if page := ada.Get("/account/import"); !strings.Contains(page.Body, "Imported 1 conversation (8 messages).") {
		t.Fatalf("page does not show the result:\n%s", page.Body)
	}
}
