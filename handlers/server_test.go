package handlers_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"parley/handlers/handlerstest"
)

func TestHealthReadinessAndMetrics(t *testing.T) {
	app := handlerstest.Start(t)
	c := app.Client(t)
	if res := c.Get("/healthz"); res.Status != http.StatusOK {
		t.Fatalf("/healthz %d", res.Status)
	}
	res := c.Get("/readyz")
	if res.Status != http.StatusOK || !strings.Contains(res.Body, "ready") {
		t.Fatalf("/readyz %d %s", res.Status, res.Body)
	}
	if _, err := app.Store.DB.Exec(`DELETE FROM goose_db_version WHERE version_id > 0`); err != nil {
		t.Fatal(err)
	}
	if res := c.Get("/readyz"); res.Status != http.StatusServiceUnavailable {
		t.Fatalf("/readyz with migrations pending: %d, want 503", res.Status)
	}
	res = c.Get("/metrics")
	if res.Status != http.StatusOK || !strings.Contains(res.Body, `parley_http_requests_total{method="GET",route="/readyz",status="200"}`) {
		t.Fatalf("/metrics lacks request counts:\n%.500s", res.Body)
	}
}

func TestSecurityHeadersForbidInlineScriptAndFraming(t *testing.T) {
	app := handlerstest.Start(t)
	res := app.Client(t).Get("/")
	csp := res.Header.Get("Content-Security-Policy")
	for _, want := range []string{"script-src 'self'", "frame-ancestors 'none'", "object-src 'none'"} {
		if !strings.Contains(csp, want) {
			t.Fatalf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") {
		t.Fatalf("CSP allows unsafe sources: %q", csp)
	}
	if strings.Contains(res.Body, "<script>") || strings.Contains(res.Body, "onclick=") {
		t.Fatal("page has an inline script or handler")
	}
	if res.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatal("no nosniff header")
	}
}

func TestErrorsAreHTMLForBrowsersAndJSONUnderAPI(t *testing.T) {
	app := handlerstest.Start(t)
	c := app.Client(t)
	res := c.Get("/no/such/page")
	if res.Status != http.StatusNotFound || !strings.Contains(res.Header.Get("Content-Type"), "text/html") ||
		!strings.Contains(res.Body, "Not found") {
		t.Fatalf("HTML 404: %d %s", res.Status, res.Header.Get("Content-Type"))
	}
	res = c.Get("/api/no/such")
	if res.Status != http.StatusNotFound || !strings.Contains(res.Header.Get("Content-Type"), "application/json") {
		t.Fatalf("API 404: %d %s", res.Status, res.Header.Get("Content-Type"))
	}
	var body struct {
		Error struct{ Code, Message string }
	}
	if err := json.Unmarshal([]byte(res.Body), &body); err != nil || body.Error.Code != "not_found" || body.Error.Message == "" {
		t.Fatalf("API error body %q (%v)", res.Body, err)
	}
}

func TestOversizeBodyIsRefused(t *testing.T) {
	app := handlerstest.Start(t)
	c := app.Client(t)
	big := strings.Repeat("x", int(app.Config.MaxBodyBytes)+1)
	res := c.PostForm("/signin", url.Values{"email": {big}, "password": {"x"}})
	if res.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", res.Status)
	}
}

func TestStaticFilesAreServedWithVersionedCaching(t *testing.T) {
	app := handlerstest.Start(t)
	c := app.Client(t)
	for _, name := range []string{"vendor/htmx.min.js", "vendor/sse.js", "js/app.js", "css/app.css"} {
		res := c.Get("/static/" + name + "?v=1")
		if res.Status != http.StatusOK || len(res.Body) == 0 {
			t.Fatalf("%s: %d (run `make assets`)", name, res.Status)
		}
		if !strings.Contains(res.Header.Get("Cache-Control"), "immutable") {
			t.Fatalf("%s: Cache-Control %q", name, res.Header.Get("Cache-Control"))
		}
	}
	home := c.Get("/").Body
	if !strings.Contains(home, "/static/vendor/htmx.min.js?v=") {
		t.Fatal("layout does not link htmx with a version")
	}
}

func TestSignedOutVisitorsAreSentToSignIn(t *testing.T) {
	app := handlerstest.Start(t)
	res := app.Client(t).Get("/pages")
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/signin?next=/pages" {
		t.Fatalf("%d %s", res.Status, res.Header.Get("Location"))
	}
}

func TestCodeHighlightingStylesheetIsServed(t *testing.T) {
	app := handlerstest.Start(t)
	res := app.Client(t).Get("/static/css/chroma.css")
	if res.Status != http.StatusOK || !strings.Contains(res.Body, ".chroma") || !strings.Contains(res.Body, "prefers-color-scheme: dark") {
		t.Fatalf("chroma.css: %d, %.200s", res.Status, res.Body)
	}
	if !strings.Contains(app.Client(t).Get("/").Body, `href="/static/css/chroma.css"`) {
		t.Fatal("the layout does not link the highlighting stylesheet")
	}
}
