package handlers

import (
	"context"
	"errors"
	"net/http"

	"github.com/gorilla/sessions"
	"github.com/labstack/echo/v4"

	"parley/config"
	"parley/db"
	"parley/fault"
	"parley/views"
)

const (
	sessionCookie = "parley_session"
	tokenKey      = "token"
	viewerKey     = "viewer"
	csrfKey       = "csrf"
)

// newCookieStore returns the gorilla cookie store. The cookie carries only a random session token
// (signed and encrypted); the session itself is a row in user_sessions, so it can be revoked.
func newCookieStore(ctx context.Context, cfg config.Config, store *db.Store) (*sessionCookies, error) {
	var key []byte
	var err error
	if cfg.SessionKey != "" {
		key, err = cfg.SessionKeyBytes()
	} else {
		key, err = store.ServerSecret(ctx, "session_key", 64)
	}
	if err != nil {
		return nil, err
	}
	if len(key) == 32 { // derive distinct hash and block keys from a short key
		key = append(append([]byte{}, key...), key...)
		for i := 32; i < 64; i++ {
			key[i] ^= 0x5c
		}
	}
	cs := sessions.NewCookieStore(key[:32], key[32:64])
	cs.Options = &sessions.Options{
		Path:     "/",
		MaxAge:   int(cfg.SessionTTL.Seconds()),
		HttpOnly: true,
		Secure:   cfg.Secure(),
		SameSite: http.SameSiteLaxMode,
	}
	cs.MaxAge(cs.Options.MaxAge)
	return newSessionCookies(cs), nil
}

// loadViewer resolves the session cookie to the signed-in user, if any, and stores it in the context.
func (a *app) loadViewer(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if token := a.cookies.sessionToken(c.Request()); token != "" {
			u, err := a.accounts.UserForToken(c.Request().Context(), token)
			switch {
			case err == nil:
				c.Set(viewerKey, &u)
			case !errors.Is(err, db.ErrNotFound):
				return err
			}
		}
		return next(c)
	}
}

// viewer returns the signed-in user or nil.
func viewer(c echo.Context) *db.User {
	u, _ := c.Get(viewerKey).(*db.User)
	return u
}

// requireViewer sends signed-out browsers to the sign-in page and answers 401 elsewhere.
func (a *app) requireViewer(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if viewer(c) != nil {
			return next(c)
		}
		if c.Request().Method == http.MethodGet && !isAPI(c) && c.Request().Header.Get("Accept") != "text/event-stream" {
			return redirect(c, "/signin?next="+safeNext(c.Request().URL.RequestURI()))
		}
		return &fault.Error{Code: fault.Unauthorized, Message: "Sign in first."}
	}
}

// startSession puts a new session token in the cookie (a fresh token at every sign-in) and
// rotates the CSRF token.
func (a *app) startSession(c echo.Context, user int64) error {
	token, err := a.accounts.StartSession(c.Request().Context(), user, c.Request().UserAgent(), c.RealIP())
	if err != nil {
		return err
	}
	sess, _ := a.cookies.Get(c.Request(), sessionCookie)
	sess.Values = map[any]any{tokenKey: token}
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return err
	}
	return a.rotateCSRF(c)
}

// endSession revokes the session behind the cookie, clears the cookie and rotates the CSRF token.
func (a *app) endSession(c echo.Context) error {
	sess, _ := a.cookies.Get(c.Request(), sessionCookie)
	if token, _ := sess.Values[tokenKey].(string); token != "" {
		if err := a.accounts.EndSession(c.Request().Context(), token); err != nil {
			return err
		}
	}
	sess.Values = map[any]any{}
	sess.Options.MaxAge = -1
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return err
	}
	return a.rotateCSRF(c)
}

// page builds the layout's view model for this request.
func page(c echo.Context, title, section string) views.Page {
	p := views.Page{Title: title, Section: section}
	p.CSRF, _ = c.Get(csrfKey).(string)
	p.SignOn, _ = c.Get(signOnKey).(*views.SignOn)
	if u := viewer(c); u != nil {
		p.Viewer = &views.Viewer{Name: u.DisplayName, Email: u.Email, IsAdmin: u.IsAdmin}
		p.Widget, _ = c.Get(widgetKey).(*views.Widget)
	}
	return p
}
