package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// Switching versions while an answer is being written is refused (Stop would vanish with it).
func TestSwitchIsRefusedWhileAnAnswerIsBeingWritten(t *testing.T) {
	app, c := signedIn(t)
	id, ids := seedConversation(t, app, "ada@example.com", "Busy", time.Now(), "q", "old answer")
	var pending int64
	_ = app.Store.DB.Get(&pending, `INSERT INTO chat_message (exchange_id, parent_id, position, role, status)
		VALUES ($1, $2, 3, 'assistant', 'streaming') RETURNING id`, id, ids[0])
	app.Store.DB.MustExec(`UPDATE chat_exchange SET leaf_message_id = $2 WHERE id = $1`, id, pending)
	res := htmxPost(c, fmt.Sprintf("/sessions/%d/messages/%d/switch", id, pending), url.Values{"to": {fmt.Sprint(ids[1])}})
	if res.Status != http.StatusConflict || !strings.Contains(res.Header.Get("HX-Trigger"), "Stop") {
		t.Fatalf("switch while writing: %d %v", res.Status, res.Header)
	}
	var leaf int64
	_ = app.Store.DB.Get(&leaf, `SELECT leaf_message_id FROM chat_exchange WHERE id = $1`, id)
	if leaf != pending {
		t.Fatal("the refused switch changed the branch on screen")
	}
	app.Store.DB.MustExec(`UPDATE chat_message SET status = 'complete' WHERE id = $1`, pending)
	if res := htmxPost(c, fmt.Sprintf("/sessions/%d/messages/%d/switch", id, pending), url.Values{"to": {fmt.Sprint(ids[1])}}); res.Status != http.StatusOK {
		t.Fatalf("switch once finished: %d", res.Status)
	}
}
