package handlers

import (
	"crypto/rand"
	"encoding/base64"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
)

// csrfCookie is the cookie echo's CSRF middleware keeps its token in; csrfCookieAge is the
// middleware's default lifetime for it.
const (
	csrfCookie    = "parley_csrf"
	csrfCookieAge = 24 * time.Hour
)

// rotateCSRF replaces the CSRF token at a session boundary (sign-in, sign-up, sign-out): the
// response sets a fresh parley_csrf cookie in place of the one the middleware set, so a token seen
// before the sign-in (e.g. on a shared computer, or planted by a sibling subdomain) is worthless
// after it.
func (a *app) rotateCSRF(c echo.Context) error {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return err
	}
	token := base64.RawURLEncoding.EncodeToString(b)
	h := c.Response().Header()
	cookies := h.Values("Set-Cookie")
	h.Del("Set-Cookie")
	for _, ck := range cookies {
		if !strings.HasPrefix(ck, csrfCookie+"=") {
			h.Add("Set-Cookie", ck)
		}
	}
	c.SetCookie(&http.Cookie{Name: csrfCookie, Value: token, Path: "/", Expires: time.Now().Add(csrfCookieAge),
		HttpOnly: true, Secure: a.cfg.Secure(), SameSite: csrfSameSite(a.cfg)})
	c.Set(csrfKey, token)
	return nil
}
