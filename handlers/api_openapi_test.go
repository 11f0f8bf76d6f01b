package handlers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"parley/handlers/handlerstest"
)

// shapeChecker validates API responses against the served OpenAPI document.
type shapeChecker struct {
	t      *testing.T
	router routers.Router
	seen   map[string]bool // "METHOD path status" checked
}

func newShapeChecker(t *testing.T, app *handlerstest.App) *shapeChecker {
	t.Helper()
	res := app.Client(t).Get("/api/openapi.json")
	doc, err := openapi3.NewLoader().LoadFromData([]byte(res.Body))
	if err != nil {
		t.Fatalf("loading openapi.json: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json is not a valid OpenAPI document: %v", err)
	}
	// A relative server URL ("/") is the origin serving the document, as a client resolves it.
	for _, srv := range doc.Servers {
		if strings.HasPrefix(srv.URL, "/") {
			srv.URL = "http://parley" + strings.TrimSuffix(srv.URL, "/")
		}
	}
	// Responses may carry no field the document does not describe.
	closed := false
	for _, ref := range doc.Components.Schemas {
		if ref.Value.Type.Is("object") && len(ref.Value.Properties) > 0 {
			ref.Value.AdditionalProperties = openapi3.AdditionalProperties{Has: &closed}
		}
	}
	// An event stream's body is its events: each message event must be a MessageItem, the
	// result a ChatResponse, done {}.
	openapi3filter.RegisterBodyDecoder("text/event-stream", func(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
		b, err := io.ReadAll(body)
		if err != nil {
			return nil, err
		}
		for _, block := range strings.Split(strings.TrimSpace(string(b)), "\n\n") {
			var name, data string
			for _, line := range strings.Split(block, "\n") {
				if v, ok := strings.CutPrefix(line, "event: "); ok {
					name = v
				} else if v, ok := strings.CutPrefix(line, "data: "); ok {
					data += v
				}
			}
			if name == "" {
				continue // a comment
			}
			schema := map[string]string{"result": "ChatResponse", "done": ""}[name]
			if _, known := map[string]string{"result": "", "done": ""}[name]; !known {
				schema = "MessageItem"
			}
			var v any
			if err := json.Unmarshal([]byte(data), &v); err != nil {
				return nil, fmt.Errorf("event %s: %v", name, err)
			}
			if schema == "" {
				if m, ok := v.(map[string]any); !ok || len(m) != 0 {
					return nil, fmt.Errorf("event %s carries %s, want {}", name, data)
				}
				continue
			}
			if err := doc.Components.Schemas[schema].Value.VisitJSON(v); err != nil {
				return nil, fmt.Errorf("event %s is not a %s: %v", name, schema, err)
			}
		}
		return string(b), nil
	})
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &shapeChecker{t: t, router: router, seen: map[string]bool{}}
}

// call makes the request with api and checks the response's status is described for its route and
// its body matches the schema given for that status.
func (s *shapeChecker) call(api apiClient, method, path, body string) handlerstest.Response {
	s.t.Helper()
	res := api.do(method, path, body)
	req, _ := http.NewRequest(method, "http://parley"+path, strings.NewReader(body))
	route, params, err := s.router.FindRoute(req)
	if err != nil {
		s.t.Fatalf("%s %s: no route in openapi.json: %v", method, path, err)
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 res.Status,
		Header:                 res.Header,
		Body:                   io.NopCloser(bytes.NewReader([]byte(res.Body))),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		s.t.Errorf("%s %s → %d does not match openapi.json: %v\n%.400s", method, path, res.Status, err, res.Body)
	}
	s.seen[fmt.Sprintf("%s %s %d", method, route.Path, res.Status)] = true
	return res
}

// Real responses of every route, successes and errors, match the OpenAPI document's schemas.
func TestAPIResponsesMatchTheOpenAPIDocument(t *testing.T) {
	up := fakeModel(t, "Shaped ", "answer.")
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	s := newShapeChecker(t, app)
	api := cookieAPI(t, c)
	anon := apiClient{t: t, c: app.Client(t), csrf: true}
	var page int64
	_ = app.Store.DB.Get(&page, `INSERT INTO pages (owner_id, title) SELECT id, 'P' FROM users RETURNING id`)

	var first chatResponse
	res := s.call(api, "POST", "/api/chat", `{"query": "hello"}`)
	decodeJSON(t, res, &first)
	e, m := first.ExchangeID, first.MessageID
	s.call(api, "POST", "/api/chat?agent_type=page_assistant", fmt.Sprintf(`{"query": "on the page", "page_id": %d}`, page))
	s.call(api, "POST", "/api/chat", `{"query": ""}`)
	s.call(api, "POST", "/api/chat", `{"query": "x", "exchange_id": 999999}`)
	s.call(api, "POST", "/api/chat", fmt.Sprintf(`{"query": "x", "exchange_id": %d, "page_id": %d}`, e, page))
	s.call(anon, "POST", "/api/chat", `{"query": "x"}`)
	s.call(api, "POST", "/api/chat/stream", `{"query": "streamed"}`)
	s.call(api, "POST", "/api/chat/stream", `{"query": " "}`)
	s.call(api, "GET", "/api/chat/history?limit=5", "")
	s.call(api, "GET", "/api/chat/history?limit=500", "")
	s.call(anon, "GET", "/api/chat/history", "")
	s.call(api, "GET", fmt.Sprintf("/api/chat/page/%d/history", page), "")
	s.call(api, "GET", "/api/chat/page/999999/history", "")
	s.call(api, "GET", fmt.Sprintf("/api/chat/exchange/%d/messages", e), "")
	s.call(api, "GET", "/api/chat/exchange/999999/messages", "")
	s.call(api, "PUT", fmt.Sprintf("/api/chat/exchange/%d/messages/%d/feedback", e, m), `{"feedback": 1, "reason": "good"}`)
	s.call(api, "PUT", fmt.Sprintf("/api/chat/exchange/%d/messages/%d/feedback", e, m), `7`)
	s.call(api, "PUT", fmt.Sprintf("/api/chat/exchange/%d/feedback", e), `null`)
	s.call(api, "PUT", fmt.Sprintf("/api/chat/exchange/%d/feedback", e), `1`)
	s.call(apiClient{t: t, c: c}, "PUT", fmt.Sprintf("/api/chat/exchange/%d/feedback", e), `1`) // no CSRF token: 403
	s.call(api, "PUT", "/api/chat/exchanges/batch/delete", `{"ids": []}`)
	s.call(api, "PUT", "/api/chat/exchanges/batch/delete", `{"ids": [999999]}`)
	s.call(api, "DELETE", fmt.Sprintf("/api/chat/exchange/%d", e), "")
	s.call(api, "DELETE", fmt.Sprintf("/api/chat/exchange/%d", e), "")
	s.call(api, "DELETE", "/api/chat/history", "")
	s.call(anon, "GET", "/api/openapi.json", "")
	for _, want := range []string{"POST /api/chat 200", "POST /api/chat 409", "GET /api/chat/history 400", "DELETE /api/chat/exchange/{id} 404", "POST /api/chat/stream 200"} {
		if !s.seen[want] {
			t.Errorf("not checked: %s", want)
		}
	}
}

func decodeJSON(t *testing.T, res handlerstest.Response, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(res.Body), v); err != nil {
		t.Fatalf("%v\n%s", err, res.Body)
	}
}
