package handlers

import (
	"errors"
	"strings"

	"github.com/labstack/echo/v4"

	"parley/accounts"
	"parley/db"
	"parley/fault"
)

// apiKeyHeader carries an API key (SPEC.md §7).
const apiKeyHeader = "X-Api-Key"

var (
	errAPISignIn = &fault.Error{Code: fault.Unauthorized, Message: "Sign in, or send an API key in the x-api-key header."}
	errAPIKey    = &fault.Error{Code: fault.Unauthorized, Message: "This API key is unknown or has been revoked."}
)

// sendsAPIKey reports whether a request to a JSON API route carries an x-api-key header (even an
// empty one). Such a request is authenticated by the key alone, never by cookies, which is why it
// needs no CSRF token: a cross-site page can make a browser send cookies, but not this header.
func sendsAPIKey(c echo.Context) bool {
	_, ok := c.Request().Header[apiKeyHeader]
	return ok && strings.HasPrefix(c.Path(), "/api/")
}

// csrfExempt is the CSRF middleware's skipper: static files, and API requests that carry an API
// key. Cookie-authenticated API requests that change state still need the X-CSRF-Token header.
func csrfExempt(c echo.Context) bool {
	return strings.HasPrefix(c.Path(), "/static/") || sendsAPIKey(c)
}

// apiAuth authenticates a JSON API request: by its x-api-key header when present (a bad or revoked
// key is 401 even when a session cookie is sent too), otherwise by the session cookie; neither is 401.
func (a *app) apiAuth(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if !sendsAPIKey(c) {
			if viewer(c) == nil {
				return errAPISignIn
			}
			return next(c)
		}
		c.Set(viewerKey, nil)
		key := c.Request().Header.Get(apiKeyHeader)
		if key == "" || len(key) > 200 {
			return errAPIKey
		}
		u, err := a.store.UserByAPIKey(c.Request().Context(), accounts.HashToken(key))
		if errors.Is(err, db.ErrNotFound) {
			return errAPIKey
		}
		if err != nil {
			return err
		}
		c.Set(viewerKey, &u)
		c.Response().Header().Add("Vary", apiKeyHeader)
		return next(c)
	}
}
