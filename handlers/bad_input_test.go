package handlers_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// badInput is one hostile or broken request and what Parley must answer: the status, a message
// a person can act on, and nothing stored.
type badInput struct {
	name   string
	method string
	path   string // {E} the owner's conversation, {M} its answer, {P} the page, {P2} another page, {PR} the proposal
	form   url.Values
	json   string // a JSON body (with ctype, default application/json)
	ctype  string
	status int
	msg    string // part of the message shown (body, HX-Trigger or JSON error)
}

func badInputs() []badInput {
	f := func(kv ...string) url.Values {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return v
	}
	q := func(query string) url.Values { return f("query", query, "idempotency_key", "bad-input") }
	long := strings.Repeat("é", 8001)
	return []badInput{
		// chat composer (htmx)
		{name: "empty message", method: "POST", path: "/chat/messages", form: q(""), status: 422, msg: "Type a message first"},
		{name: "whitespace message", method: "POST", path: "/chat/messages", form: q(" \n\t "), status: 422, msg: "Type a message first"},
		{name: "invisible message", method: "POST", path: "/chat/messages", form: q("\u200b\u2060"), status: 422, msg: "Type a message first"},
		{name: "bidi controls only", method: "POST", path: "/chat/messages", form: q("\u202e\u2066"), status: 422, msg: "Type a message first"},
		{name: "oversize message", method: "POST", path: "/chat/messages", form: q(long), status: 422, msg: "the limit is 8000"},
		{name: "invalid UTF-8 message", method: "POST", path: "/chat/messages", form: q("a\xff\xfeb"), status: 422, msg: "invalid UTF-8"},
		{name: "NUL in message", method: "POST", path: "/chat/messages", form: q("a\x00b"), status: 422, msg: "NUL"},
		{name: "bad idempotency key", method: "POST", path: "/chat/messages", form: f("query", "hi", "idempotency_key", strings.Repeat("k", 300)), status: 400, msg: "idempotency_key"},
		{name: "huge conversation id", method: "POST", path: "/sessions/99999999999999999999999/messages", form: q("hi"), status: 404, msg: "not"},
		{name: "negative conversation id", method: "POST", path: "/sessions/-1/messages", form: q("hi"), status: 404, msg: "not"},
		{name: "non-numeric conversation id", method: "POST", path: "/sessions/abc/messages", form: q("hi"), status: 404, msg: "not"},
		{name: "non-numeric message id", method: "POST", path: "/sessions/{E}/messages/x/regenerate", form: f(), status: 404, msg: "not"},
		// renaming a conversation (htmx)
		{name: "empty title", method: "POST", path: "/sessions/{E}/rename", form: f("title", ""), status: 422, msg: "Type a title"},
		{name: "whitespace title", method: "POST", path: "/sessions/{E}/rename", form: f("title", "   "), status: 422, msg: "Type a title"},
		{name: "multi-line title", method: "POST", path: "/sessions/{E}/rename", form: f("title", "first\nsecond"), status: 422, msg: "one line"},
		{name: "bidi-only title", method: "POST", path: "/sessions/{E}/rename", form: f("title", "\u202e\u2067"), status: 422, msg: "Type a title"},
		{name: "oversize title", method: "POST", path: "/sessions/{E}/rename", form: f("title", strings.Repeat("t", 201)), status: 422, msg: "at most"},
		{name: "invalid UTF-8 title", method: "POST", path: "/sessions/{E}/rename", form: f("title", "a\xffb"), status: 422, msg: "not valid text"},
		{name: "NUL in title", method: "POST", path: "/sessions/{E}/rename", form: f("title", "a\x00b"), status: 422, msg: "not valid text"},
		// pages
		{name: "multi-line page title", method: "POST", path: "/pages", form: f("title", "a\nb", "content", "x"), status: 400, msg: "one line"},
		{name: "NUL in page content", method: "POST", path: "/pages", form: f("title", "T", "content", "a\x00b"), status: 400, msg: "NUL"},
		{name: "save without version", method: "POST", path: "/pages/{P}/save", form: f("title", "T", "content", "x"), status: 400, msg: "version"},
		{name: "save with non-numeric version", method: "POST", path: "/pages/{P}/save", form: f("title", "T", "content", "x", "version", "abc"), status: 400, msg: "version"},
		{name: "save on a stale version", method: "POST", path: "/pages/{P}/save", form: f("title", "T", "content", "x", "version", "99"), status: 409, msg: ""},
		{name: "oversize page", method: "POST", path: "/pages/{P}/save", form: f("title", "T", "content", strings.Repeat("x", 1<<20+1), "version", "1"), status: 413, msg: "larger than 1 MB"},
		{name: "huge page id", method: "GET", path: "/pages/99999999999999999999", status: 404, msg: "Not found"},
		// proposals
		{name: "accept without version", method: "POST", path: "/pages/{P}/proposals/{PR}/accept", form: f("row", "0"), status: 400, msg: "version"},
		{name: "accept on a stale page", method: "POST", path: "/pages/{P}/proposals/{PR}/accept", form: f("version", "99", "row", "0"), status: 409, msg: "changed"},
		{name: "accept at an invalid place", method: "POST", path: "/pages/{P}/proposals/{PR}/accept", form: f("version", "1", "row", "0", "place", "nowhere"), status: 400, msg: "place"},
		{name: "accept under a mismatched page", method: "POST", path: "/pages/{P2}/proposals/{PR}/accept", form: f("version", "1", "row", "0"), status: 404, msg: "not"},
		{name: "non-numeric proposal id", method: "POST", path: "/pages/{P}/proposals/x/accept", form: f("version", "1"), status: 404, msg: "not"},
		// feedback and search
		{name: "unknown rating", method: "POST", path: "/sessions/{E}/messages/{M}/feedback", form: f("rating", "sideways"), status: 400, msg: "rating"},
		{name: "oversize feedback reason", method: "POST", path: "/sessions/{E}/messages/{M}/feedback", form: f("rating", "up", "reason", strings.Repeat("r", 501)), status: 400, msg: "500"},
		{name: "oversize search", method: "GET", path: "/history/search?q=" + strings.Repeat("s", 201), status: 400, msg: "200"},
		// agents
		{name: "bad agent identifier", method: "POST", path: "/agents", form: agentForm("Bad Id!"), status: 422, msg: "dentifier"},
		{name: "unknown agent type in the form", method: "POST", path: "/agents", form: agentForm("typo", "agent_type", "wizard"), status: 422, msg: "ype"},
		// the JSON API
		{name: "JSON sent as text/plain", method: "POST", path: "/api/chat", json: `{"query": "hi"}`, ctype: "text/plain", status: 415, msg: "application/json"},
		{name: "JSON sent as a form", method: "POST", path: "/api/chat", json: `{"query": "hi"}`, ctype: "application/x-www-form-urlencoded", status: 415, msg: "application/json"},
		{name: "missing query", method: "POST", path: "/api/chat", json: `{}`, status: 400, msg: "query"},
		{name: "empty query", method: "POST", path: "/api/chat", json: `{"query": ""}`, status: 400, msg: "Type a message first"},
		{name: "whitespace query", method: "POST", path: "/api/chat", json: `{"query": " \t\n"}`, status: 400, msg: "Type a message first"},
		{name: "NUL escape in query", method: "POST", path: "/api/chat", json: `{"query": "a\u0000b"}`, status: 400, msg: "NUL"},
		{name: "oversize query", method: "POST", path: "/api/chat", json: `{"query": "` + long + `"}`, status: 400, msg: "the limit is 8000"},
		{name: "query of the wrong type", method: "POST", path: "/api/chat", json: `{"query": 5}`, status: 400, msg: "query"},
		{name: "invalid UTF-8 body", method: "POST", path: "/api/chat", json: "{\"query\": \"a\xffb\"}", status: 400, msg: "UTF-8"},
		{name: "lone surrogate", method: "POST", path: "/api/chat", json: `{"query": "\ud800"}`, status: 400, msg: "surrogate"},
		{name: "exchange id of the wrong type", method: "POST", path: "/api/chat", json: `{"query": "hi", "exchange_id": "abc"}`, status: 400, msg: "exchange_id"},
		{name: "huge exchange id", method: "POST", path: "/api/chat", json: `{"query": "hi", "exchange_id": 1e30}`, status: 400, msg: "exchange_id"},
		{name: "negative exchange id", method: "POST", path: "/api/chat", json: `{"query": "hi", "exchange_id": -5}`, status: 404, msg: ""},
		{name: "unknown agent_type", method: "POST", path: "/api/chat?agent_type=wizard", json: `{"query": "hi"}`, status: 400, msg: "agent_type"},
		{name: "page assistant without a page", method: "POST", path: "/api/chat?agent_type=page_assistant", json: `{"query": "hi"}`, status: 400, msg: "page_id"},
		{name: "mismatched page_id", method: "POST", path: "/api/chat", json: `{"query": "hi", "exchange_id": {E}, "page_id": {P}}`, status: 409, msg: "does not match"},
		{name: "feedback out of range", method: "PUT", path: "/api/chat/exchange/{E}/feedback", json: `{"feedback": 7}`, status: 400, msg: "feedback"},
		{name: "feedback of the wrong type", method: "PUT", path: "/api/chat/exchange/{E}/feedback", json: `{"feedback": "yes"}`, status: 400, msg: "feedback"},
		{name: "batch ids of the wrong type", method: "PUT", path: "/api/chat/exchanges/batch/delete", json: `{"ids": "all"}`, status: 400, msg: "ids"},
		{name: "non-numeric exchange id", method: "DELETE", path: "/api/chat/exchange/abc", status: 404, msg: ""},
		{name: "huge exchange id in the path", method: "GET", path: "/api/chat/exchange/99999999999999999999999/messages", status: 404, msg: ""},
	}
}

// Every bad input over the HTML forms and the JSON API gets its status and a message a person can
// act on, and stores nothing (every table the routes write is compared before and after).
func TestBadInputIsRefusedClearlyAndStoresNothing(t *testing.T) {
	w := newWorld(t)
	c := w.owner
	p2 := newPage(t, c, "Other page", "# B\n")
	rows := badInputs()
	if len(rows) < 40 {
		t.Fatalf("%d rows, want at least 40", len(rows))
	}
	fill := strings.NewReplacer("{E}", fmt.Sprint(w.exchange), "{M}", fmt.Sprint(w.answer), "{PR}", fmt.Sprint(w.proposal),
		"{P2}", fmt.Sprint(p2), "{P}", fmt.Sprint(w.page))
	before := w.siteDigest(t)
	for _, row := range rows {
		path := fill.Replace(row.path)
		var req *http.Request
		switch {
		case row.json != "" || strings.HasPrefix(path, "/api/"):
			req, _ = http.NewRequest(row.method, c.URL(path), strings.NewReader(fill.Replace(row.json)))
			ctype := row.ctype
			if ctype == "" && row.json != "" {
				ctype = "application/json"
			}
			if ctype != "" {
				req.Header.Set("Content-Type", ctype)
			}
		case row.method == "GET":
			req, _ = http.NewRequest(row.method, c.URL(path), nil)
		default:
			req, _ = http.NewRequest(row.method, c.URL(path), strings.NewReader(row.form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("HX-Request", "true")
		}
		req.Header.Set("X-CSRF-Token", c.CSRFToken())
		res := c.Do(req)
		shown := res.Body
		if trigger := res.Header.Get("HX-Trigger"); trigger != "" {
			var ev map[string]string
			_ = json.Unmarshal([]byte(trigger), &ev)
			shown += ev["parley:error"]
		}
		if res.Status != row.status || !strings.Contains(shown, row.msg) {
			t.Errorf("%s: %d, want %d with %q\n%.400s", row.name, res.Status, row.status, row.msg, shown)
		}
		if strings.Contains(shown, "Go value") || strings.Contains(shown, "strconv.") || strings.Contains(shown, "pq:") {
			t.Errorf("%s: the message shows internals: %.300s", row.name, shown)
		}
		if after := w.siteDigest(t); after != before {
			t.Fatalf("%s stored something:\n%s", row.name, diffLines(before, after))
		}
	}

	// An avatar image over 64 KB is refused with the reason, and no agent is made.
	img := image.NewRGBA(image.Rect(0, 0, 400, 400))
	for i := range img.Pix {
		img.Pix[i] = byte(rand.IntN(256)) // noise does not compress
	}
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	if res := postAgentWithImage(c, agentForm("bigface"), buf.Bytes()); res.Status != http.StatusUnprocessableEntity || !strings.Contains(res.Body, "KB") {
		t.Errorf("oversize avatar: %d", res.Status)
	}
	if after := w.siteDigest(t); after != before {
		t.Fatalf("the oversize avatar stored something:\n%s", diffLines(before, after))
	}
}
