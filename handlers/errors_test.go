package handlers

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/labstack/echo/v4"

	"parley/fault"
)

// wantStatus pins the fault table: each code's HTTP status, written out so a change is deliberate.
var wantStatus = map[fault.Code]int{
	fault.Invalid: 400, fault.Unauthorized: 401, fault.Forbidden: 403, fault.NotFound: 404,
	fault.NotAllowed: 405, fault.Conflict: 409, fault.TooLarge: 413, fault.UnsupportedMedia: 415,
	fault.Unprocessable: 422, fault.RateLimited: 429, fault.Unavailable: 503, fault.Internal: 500,
}

// errorServer is echo with Parley's error handler and panic recovery, serving /fail/<code> (a
// handler returning that fault) and the panicking routes the tests call.
func errorServer(t *testing.T) *echo.Echo {
	a := &app{log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	e := echo.New()
	e.HTTPErrorHandler = a.handleError
	e.Use(a.recoverPanics)
	fail := func(c echo.Context) error {
		return &fault.Error{Code: fault.Code(c.Param("code")), Message: "The reason for " + c.Param("code") + "."}
	}
	e.GET("/fail/:code", fail)
	e.GET("/api/fail/:code", fail)
	e.GET("/panic", func(echo.Context) error { panic("boom") })
	e.GET("/api/panic", func(echo.Context) error { panic("boom") })
	e.GET("/status0", func(c echo.Context) error { return c.HTMLBlob(0, []byte("never")) })
	return e
}

// Every fault code answers its status from the one table through the HTML page, the htmx fragment
// (HX-Trigger with the message, nothing swapped) and the JSON body; a code outside the table is a
// 500, never status 0.
func TestEveryFaultCodeHasAStatusInEveryRenderer(t *testing.T) {
	e := errorServer(t)
	if len(fault.Codes) != len(wantStatus) {
		t.Fatalf("fault.Codes has %d codes, the test knows %d", len(fault.Codes), len(wantStatus))
	}
	codes := append([]fault.Code{"no_such_code"}, fault.Codes...)
	for _, code := range codes {
		want, ok := wantStatus[code]
		if !ok {
			want = http.StatusInternalServerError
		}
		if got := statusOf(code); got != want {
			t.Errorf("statusOf(%s) = %d, want %d", code, got, want)
		}
		shown := "The reason for " + string(code) + "."
		if want == http.StatusInternalServerError {
			shown = "Something went wrong on our side"
		}
		for _, mode := range []string{"html", "htmx", "json"} {
			path := "/fail/" + string(code)
			req := httptest.NewRequest("GET", path, nil)
			switch mode {
			case "htmx":
				req.Header.Set("HX-Request", "true")
			case "json":
				req = httptest.NewRequest("GET", "/api"+path, nil)
			}
			rec := httptest.NewRecorder()
			e.ServeHTTP(rec, req)
			body := rec.Body.String()
			if rec.Code != want {
				t.Errorf("%s %s: status %d, want %d", mode, code, rec.Code, want)
			}
			switch mode {
			case "html":
				if !strings.Contains(body, "<html") || !strings.Contains(body, shown) {
					t.Errorf("html %s: %s", code, body)
				}
			case "htmx":
				if rec.Header().Get("HX-Reswap") != "none" || !strings.Contains(rec.Header().Get("HX-Trigger"), shown) {
					t.Errorf("htmx %s: headers %v", code, rec.Header())
				}
			case "json":
				var b apiError
				if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil || b.ErrCode != want ||
					!strings.Contains(b.Error.Message, shown) || b.Error.Code == "" {
					t.Errorf("json %s: %s", code, body)
				}
			}
		}
	}
	for status, want := range map[int]fault.Code{422: fault.Unprocessable, 415: fault.UnsupportedMedia, 418: fault.Invalid, 502: fault.Internal, 0: fault.Internal} {
		if got := codeOf(status); got != want {
			t.Errorf("codeOf(%d) = %s, want %s", status, got, want)
		}
	}
}

// A panicking handler, or one writing status 0, still answers a proper 500 page (or JSON body under
// /api/), never a dropped connection.
func TestPanickingHandlerAnswersA500(t *testing.T) {
	e := errorServer(t)
	for _, path := range []string{"/panic", "/status0", "/api/panic"} {
		rec := httptest.NewRecorder()
		e.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		body := rec.Body.String()
		if rec.Code != http.StatusInternalServerError || !strings.Contains(body, "Something went wrong on our side") ||
			strings.Contains(body, "boom") || strings.Contains(body, "never") {
			t.Errorf("%s: %d %s", path, rec.Code, body)
		}
		if strings.HasPrefix(path, "/api/") != strings.HasPrefix(rec.Header().Get("Content-Type"), "application/json") {
			t.Errorf("%s: Content-Type %s", path, rec.Header().Get("Content-Type"))
		}
	}
}
