// Package handlers is Parley's HTTP layer on echo v4: routes, middleware and one thin handler per
// user action (auth_signin.go, health.go, …). Handlers read input, call a domain package or the
// store, and render a view model; SQL and business rules live elsewhere.
package handlers

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/labstack/echo/v4"
	"github.com/labstack/echo/v4/middleware"

	"parley/accounts"
	"parley/agents"
	"parley/chat"
	"parley/config"
	"parley/db"
	"parley/imports"
	"parley/markdown"
	"parley/static"
)

// Deps is what the HTTP layer is built from.
type Deps struct {
	Config config.Config
	Store  *db.Store
	Logger *slog.Logger
	// BcryptCost overrides the password hashing cost (tests use the minimum); 0 is the default.
	BcryptCost int
}

// app holds the handlers' shared dependencies.
type app struct {
	cfg       config.Config
	store     *db.Store
	log       *slog.Logger
	accounts  *accounts.Service
	cookies   *sessionCookies
	limits    *limits
	notifier  *chat.PostgresNotifier
	generator *chat.Generator
	// closing is closed at shutdown: open streams end so the server can stop.
	closing   chan struct{}
	closeOnce sync.Once
	// streams counts the open SSE streams, bounded per instance and per person.
	streams *streamCaps
	// heartbeat wakes every idle stream to send its keep-alive comment (stream_idle.go).
	heartbeat *heartbeat
	// widget caches the floating chat button setting (agent_widget.go).
	widget widgetCache
	// imports runs uploaded exports in the background (account_import.go).
	imports *imports.Runner
	// oidc signs people in through an OpenID Connect provider; nil when none is configured.
	oidc *accounts.OIDC
	// stopPurge stops the loop that deletes expired sessions.
	stopPurge func()
}

// Server is the HTTP handler plus the answer generator it runs. At shutdown call CloseStreams
// (e.g. through http.Server.RegisterOnShutdown), then StopGenerating.
type Server struct {
	*echo.Echo
	app *app
}

// CloseStreams ends every open SSE stream; browsers reconnect to whichever instance serves next.
func (s *Server) CloseStreams() { s.app.closeOnce.Do(func() { close(s.app.closing) }) }

// StopGenerating lets running answers finish until ctx ends, then stores them as interrupted, and
// stops the change notifier and the purge of expired sessions.
func (s *Server) StopGenerating(ctx context.Context) {
	s.app.stopPurge()
	s.app.imports.Shutdown(ctx)
	s.app.generator.Shutdown(ctx)
	s.app.notifier.Close()
}

// New builds the echo server with every route and middleware, and the model provider the
// configuration names. It reads or creates the cookie keys in the database when
// PARLEY_SESSION_KEY is unset.
func New(ctx context.Context, d Deps) (*Server, error) {
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	cookies, err := newCookieStore(ctx, d.Config, d.Store)
	if err != nil {
		return nil, err
	}
	provider, err := agents.New(providerConfig(d.Config))
	if err != nil {
		return nil, err
	}
	markdown.AllowImageHosts(d.Config.ImageHosts)
	// Change notices reach this instance's streams at once and the other instances' through
	// PostgreSQL LISTEN/NOTIFY (a connection of its own, PARLEY_LISTEN_DATABASE_URL).
	instance := chat.NewInstanceID()
	notifier := chat.NewPostgresNotifier(d.Config.ListenURL(), d.Store, instance, d.Logger)
	a := &app{
		cfg:      d.Config,
		store:    d.Store,
		log:      d.Logger,
		accounts: &accounts.Service{Store: d.Store, SessionTTL: d.Config.SessionTTL, Cost: d.BcryptCost},
		cookies:  cookies,
		limits:   newLimits(d.Config, d.Store, d.Logger),
		notifier: notifier,
		closing:  make(chan struct{}),
		imports:  &imports.Runner{Store: d.Store, Log: d.Logger},
		streams:  newStreamCaps(d.Config.MaxStreams, d.Config.MaxStreamsPerPerson),
		generator: &chat.Generator{
			Store: d.Store, Provider: provider, Notifier: notifier, Log: d.Logger,
			Timeout: d.Config.AnswerTimeout, FlushEvery: durableEvery, HistoryBudget: d.Config.HistoryTokens,
			ImproveTitles: d.Config.ImproveTitles && provider.Name() != agents.ProviderOffline,
			Instance:      instance, Lease: d.Config.LeaseTimeout,
		},
	}
	a.heartbeat = newHeartbeat(d.Config.StreamHeartbeat, a.closing)
	go a.limits.forgetFullBuckets(10*time.Minute, a.closing)
	a.generator.KeepLeases() // reaps answers of instances that died (this one's last run included)
	a.stopPurge = a.accounts.PurgeSessions(accounts.PurgeSessionsEvery, func(err error) {
		if !db.Unreachable(err) {
			a.log.Warn("deleting expired sessions", "error", err)
		}
	})

	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	e.HTTPErrorHandler = a.handleError
	if d.Config.TrustProxy {
		e.IPExtractor = echo.ExtractIPFromXFFHeader()
	} else {
		e.IPExtractor = echo.ExtractIPDirect()
	}

	e.Pre(middleware.RemoveTrailingSlashWithConfig(middleware.TrailingSlashConfig{RedirectCode: http.StatusMovedPermanently}))
	e.Use(middleware.RequestID())
	e.Use(a.requestLogger())
	e.Use(a.recoverPanics)
	e.Use(metricsMiddleware())
	e.Use(securityHeaders(d.Config.ImageHosts))
	e.Use(a.loadViewer) // first, so that every error page (413, CSRF) shows the right header
	e.Use(bodyLimit(d.Config.MaxBodyBytes, d.Config.ImportMaxBytes))
	e.Use(a.partitionCSRF)
	e.Use(dropQueryCSRF)
	e.Use(middleware.CSRFWithConfig(middleware.CSRFConfig{
		TokenLookup:    "header:X-CSRF-Token,form:_csrf",
		CookieName:     csrfCookie,
		CookiePath:     "/",
		CookieHTTPOnly: true,
		CookieSecure:   d.Config.Secure(),
		CookieSameSite: csrfSameSite(d.Config),
		ContextKey:     csrfKey,
		Skipper:        csrfExempt, // static files, and API requests authenticated by an x-api-key

		ErrorHandler: func(err error, c echo.Context) error {
			return errForbiddenCSRF
		},
	}))
	e.Use(a.signOnOptions)
	e.Use(noStorePrivate)
	e.Use(a.loadWidget)

	e.GET("/static/css/chroma.css", chromaCSS())
	e.GET("/static/*", staticHandler())
	e.GET("/healthz", a.healthz)
	e.GET("/readyz", a.readyz)
	e.GET("/metrics", metricsHandler())

	e.GET("/", a.showHome)
	e.GET("/signup", a.showSignUp)
	e.POST("/signup", a.submitSignUp, a.limits.signInByIP)
	e.GET("/signin", a.showSignIn)
	e.POST("/signin", a.submitSignIn) // limited per IP and account in one check (allowSignIn)
	e.POST("/signout", a.submitSignOut)
	e.GET("/signin/keep", a.showKeepGuest, a.requireViewer)
	e.POST("/signin/keep", a.submitKeepGuest, a.requireViewer)
	a.oidcRoutes(e)

	// Per-route middleware, not a Group: echo routes unmatched paths through a group's middleware,
	// which would turn every 404 into a sign-in redirect.
	e.GET("/chat", a.showChat, a.requireViewer)
	e.GET("/chat/new", a.showNewChat, a.requireViewer)
	e.POST("/chat/messages", a.submitMessage, a.requireViewer)
	e.GET("/sessions/:id/chat", a.showSession, a.requireOwner)
	// Guests chat with public agents through the same conversation routes (owner-scoped).
	e.POST("/sessions/:id/messages", a.submitMessage, a.requireChatter)
	e.GET("/sessions/:id/events", a.streamEvents, a.requireChatter)
	e.POST("/sessions/:id/stop", a.submitStop, a.requireChatter)
	e.POST("/sessions/:id/messages/:mid/retry", a.submitRetry, a.requireChatter)
	e.POST("/preferences/tools", a.submitToolsToggle, a.requireViewer)
	e.POST("/preferences/page-side-width", a.submitPageSideWidth, a.requireViewer)
	// Each area registers its routes in its own routes_*.go file.
	a.pageRoutes(e)
	a.historyRoutes(e)
	a.apiRoutes(e)
	a.agentRoutes(e)
	return &Server{Echo: e, app: a}, nil
}

// providerConfig picks the model provider's settings out of the configuration.
func providerConfig(cfg config.Config) agents.Config {
	pc := agents.Config{Kind: cfg.ProviderKind(), OfflineDelay: cfg.OfflineDelay,
		FirstByteTimeout: cfg.UpstreamFirstByteTimeout, IdleTimeout: cfg.UpstreamIdleTimeout}
	switch pc.Kind {
	case agents.ProviderOpenAI:
		pc.BaseURL, pc.APIKey, pc.Model = cfg.OpenAIBaseURL, cfg.OpenAIAPIKey, cfg.OpenAIModel
	case agents.ProviderAnthropic:
		pc.BaseURL, pc.APIKey, pc.Model = cfg.AnthropicBaseURL, cfg.AnthropicAPIKey, cfg.AnthropicModel
		pc.ThinkingBudget = cfg.AnthropicThinkingBudget
	}
	return pc
}

// staticHandler serves the embedded static tree. Versioned URLs (?v=) are cached for a year.
func staticHandler() echo.HandlerFunc {
	files := http.StripPrefix("/static/", http.FileServerFS(static.FS))
	return func(c echo.Context) error {
		if c.QueryParam("v") != "" {
			c.Response().Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			c.Response().Header().Set("Cache-Control", "no-cache")
		}
		files.ServeHTTP(c.Response(), c.Request())
		return nil
	}
}

// chromaCSS serves the code-highlighting stylesheet (light, and dark under prefers-color-scheme),
// made once from the markdown package's chroma style; ETag lets browsers revalidate cheaply.
func chromaCSS() echo.HandlerFunc {
	css := []byte(markdown.ChromaCSS())
	sum := sha256.Sum256(css)
	etag := `"` + hex.EncodeToString(sum[:8]) + `"`
	return func(c echo.Context) error {
		h := c.Response().Header()
		h.Set("Cache-Control", "no-cache")
		h.Set("ETag", etag)
		if c.Request().Header.Get("If-None-Match") == etag {
			return c.NoContent(http.StatusNotModified)
		}
		return c.Blob(http.StatusOK, "text/css; charset=utf-8", css)
	}
}

// requestLogger logs one structured line per request: method, path (without the query string),
// status, latency, request id.
func (a *app) requestLogger() echo.MiddlewareFunc {
	return middleware.RequestLoggerWithConfig(middleware.RequestLoggerConfig{
		LogStatus: true, LogURIPath: true, LogMethod: true, LogLatency: true, LogRequestID: true, LogError: true,
		HandleError: true,
		Skipper:     func(c echo.Context) bool { return strings.HasPrefix(c.Path(), "/static/") },
		LogValuesFunc: func(c echo.Context, v middleware.RequestLoggerValues) error {
			level := slog.LevelInfo
			if v.Status >= 500 {
				level = slog.LevelError
			}
			attrs := []slog.Attr{
				slog.String("method", v.Method),
				slog.String("path", v.URIPath), // never the query: chat text can come as ?query=
				slog.Int("status", v.Status),
				slog.Duration("latency", v.Latency.Round(time.Microsecond)),
				slog.String("request_id", v.RequestID),
			}
			if v.Error != nil && v.Status >= 500 {
				attrs = append(attrs, slog.String("error", v.Error.Error()))
			}
			a.log.LogAttrs(c.Request().Context(), level, "request", attrs...)
			return nil
		},
	})
}

// noStorePrivate marks every response to a signed-in viewer, a guest or an API key (apiAuth sets
// the viewer later, so this is decided when the headers are written) Cache-Control: no-store, so no
// browser or proxy cache keeps private pages or JSON; static assets and responses marked public
// keep their own caching. An
// existing no-transform (SSE streams) stays.
func noStorePrivate(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if strings.HasPrefix(c.Request().URL.Path, "/static/") {
			return next(c)
		}
		w := c.Response()
		w.Before(func() {
			if o := chatOwner(c); o.UserID == 0 && o.GuestID == 0 {
				return
			}
			if strings.Contains(w.Header().Get("Cache-Control"), "public") {
				return // content-addressed public files (avatars) stay cacheable
			}
			cc := "no-store"
			if strings.Contains(w.Header().Get("Cache-Control"), "no-transform") {
				cc += ", no-transform"
			}
			w.Header().Set("Cache-Control", cc)
		})
		return next(c)
	}
}

// dropQueryCSRF removes a _csrf parameter from the address before the CSRF check: echo's form:
// lookup reads the query too, and a token in an address ends up in logs and browser histories. The
// token counts only from the X-CSRF-Token header or the form body.
func dropQueryCSRF(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		r := c.Request()
		if q := r.URL.Query(); q.Has("_csrf") {
			q.Del("_csrf")
			r.URL.RawQuery = q.Encode()
		}
		return next(c)
	}
}

// securityHeaders sets the Content-Security-Policy (no inline scripts, no framing; images from our
// origin, data: and the PARLEY_IMAGE_HOSTS imageHosts) and friends.
func securityHeaders(imageHosts []string) echo.MiddlewareFunc {
	imgSrc := strings.Join(append([]string{"'self'", "data:"}, imageHosts...), " ")
	csp := "default-src 'self'; script-src 'self'; style-src 'self'; img-src " + imgSrc + "; " +
		"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
	return func(next echo.HandlerFunc) echo.HandlerFunc {
		return func(c echo.Context) error {
			h := c.Response().Header()
			h.Set("Content-Security-Policy", csp)
			h.Set("X-Content-Type-Options", "nosniff")
			h.Set("X-Frame-Options", "DENY")
			h.Set("Referrer-Policy", "same-origin")
			h.Set("Cross-Origin-Opener-Policy", "same-origin")
			return next(c)
		}
	}
}
