// Package handlerstest starts the whole Parley app for tests: a fresh database (dbtest), the real
// echo server on httptest, HTTP clients with cookie jars, and a headless Chromium (browser.go).
package handlerstest

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"parley/config"
	"parley/db"
	"parley/db/dbtest"
	"parley/handlers"
)

// App is a running Parley on a fresh database.
type App struct {
	URL    string
	Store  *db.Store
	Config config.Config
	Server *httptest.Server
	Parley *handlers.Server
}

// Start runs Parley for this test. Options may change the configuration before it starts.
func Start(t testing.TB, options ...func(*config.Config)) *App {
	t.Helper()
	cfg := config.Config{
		DatabaseURL:       dbtest.URL(t),
		Addr:              "127.0.0.1:0",
		PublicURL:         "http://127.0.0.1",
		SessionTTL:        time.Hour,
		MaxBodyBytes:      1 << 20,
		SignInRate:        1000,
		LogLevel:          "error",
		LogFormat:         "text",
		ShutdownTimeout:   time.Second,
		MaxQueryChars:     8000,
		MessagesPerMinute: 1000,
		AnswerTimeout:     30 * time.Second,
		SearchTimeout:     2 * time.Second,
		ImportMaxBytes:    64 << 20,
		PasswordSignIn:    true,

		UpstreamFirstByteTimeout: 10 * time.Second,
		UpstreamIdleTimeout:      10 * time.Second,
		MaxStreams:               10000,
		MaxStreamsPerPerson:      32,
		StreamHeartbeat:          15 * time.Second,
	}
	for _, o := range options {
		o(&cfg)
	}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	store, err := db.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	store.SearchTimeout = cfg.SearchTimeout
	store.SetPrepared(cfg.DBPrepared)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	if testing.Verbose() {
		logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn}))
	}
	e, err := handlers.New(ctx, handlers.Deps{Config: cfg, Store: store, Logger: logger, BcryptCost: bcrypt.MinCost})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(e)
	t.Cleanup(func() {
		e.CloseStreams()
		srv.CloseClientConnections()
		srv.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		e.StopGenerating(ctx)
	})
	return &App{URL: srv.URL, Store: store, Config: cfg, Server: srv, Parley: e}
}

type testWriter struct{ t testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Client is an HTTP client with its own cookie jar, like one browser profile without fetch
// metadata (so CSRF tokens are checked).
type Client struct {
	*http.Client
	app *App
	t   testing.TB
}

// Client returns a new client that does not follow redirects (tests look at them).
func (a *App) Client(t testing.TB) *Client {
	jar, _ := cookiejar.New(nil)
	return &Client{
		Client: &http.Client{
			Jar:           jar,
			Timeout:       30 * time.Second,
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		app: a,
		t:   t,
	}
}

// Response is a read response: status, headers and body text.
type Response struct {
	Status int
	Header http.Header
	Body   string
}

// Get fetches a path and reads the whole response.
func (c *Client) Get(path string) Response {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, c.app.URL+path, nil)
	return c.Do(req)
}

// Do sends a request and reads the whole response.
func (c *Client) Do(req *http.Request) Response {
	c.t.Helper()
	res, err := c.Client.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL.Path, err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatalf("%s %s: reading body: %v", req.Method, req.URL.Path, err)
	}
	return Response{Status: res.StatusCode, Header: res.Header, Body: string(body)}
}

// CSRFToken returns the token from the CSRF cookie, fetching "/" first if there is none yet.
func (c *Client) CSRFToken() string {
	c.t.Helper()
	u, _ := url.Parse(c.app.URL)
	for range 2 {
		for _, ck := range c.Jar.Cookies(u) {
			if ck.Name == "parley_csrf" {
				return ck.Value
			}
		}
		c.Get("/")
	}
	c.t.Fatal("no CSRF cookie after GET /")
	return ""
}

// PostForm posts a form with the CSRF token in its _csrf field.
func (c *Client) PostForm(path string, form url.Values) Response {
	c.t.Helper()
	form = cloneValues(form)
	form.Set("_csrf", c.CSRFToken())
	return c.PostFormRaw(path, form)
}

// PostFormRaw posts a form exactly as given (no CSRF token added).
func (c *Client) PostFormRaw(path string, form url.Values) Response {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.app.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.Do(req)
}

// SignUp creates an account through the form and leaves the client signed in.
func (c *Client) SignUp(email, password string) {
	c.t.Helper()
	res := c.PostForm("/signup", url.Values{"email": {email}, "password": {password}, "display_name": {""}})
	if res.Status != http.StatusSeeOther {
		c.t.Fatalf("sign up %s: status %d, want 303\n%s", email, res.Status, res.Body)
	}
}

// SignIn signs in through the form.
func (c *Client) SignIn(email, password string) {
	c.t.Helper()
	res := c.PostForm("/signin", url.Values{"email": {email}, "password": {password}})
	if res.Status != http.StatusSeeOther {
		c.t.Fatalf("sign in %s: status %d, want 303\n%s", email, res.Status, res.Body)
	}
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = append([]string(nil), vs...)
	}
	return out
}

// URL is the absolute URL of a path on the app.
func (c *Client) URL(path string) string { return c.app.URL + path }
