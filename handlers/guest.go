package handlers

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/labstack/echo/v4"

	"parley/accounts"
	"parley/db"
	"parley/fault"
)

const (
	// guestCookie holds an anonymous visitor's random guest-session token (the server keeps its SHA-256).
	guestCookie = "parley_guest"
	guestKey    = "guest"
)

// guestCookieFor makes the guest cookie. Over TLS it is SameSite=None; Secure; Partitioned, so the
// embedded widget keeps its conversation inside a third-party iframe (CHIPS: one cookie jar per
// embedding site). Over plain HTTP browsers refuse SameSite=None without Secure, so it is Lax: a
// guest chat works on Parley's own pages and in iframes on the same site (for example another port
// of the same host), but not in an iframe on another site.
func (a *app) guestCookieFor(value string, maxAge int) *http.Cookie {
	ck := &http.Cookie{Name: guestCookie, Value: value, Path: "/", MaxAge: maxAge, HttpOnly: true, SameSite: http.SameSiteLaxMode}
	if a.cfg.Secure() {
		ck.Secure, ck.SameSite, ck.Partitioned = true, http.SameSiteNoneMode, true
	}
	return ck
}

// loadGuest resolves the guest cookie (when no one is signed in) to a live guest session and keeps
// its id in the context. It never creates one.
func (a *app) loadGuest(c echo.Context) (int64, error) {
	if id, ok := c.Get(guestKey).(int64); ok {
		return id, nil
	}
	ck, err := c.Cookie(guestCookie)
	if err != nil || ck.Value == "" || len(ck.Value) > 128 {
		return 0, nil
	}
	id, err := a.store.GuestSessionID(c.Request().Context(), accounts.HashToken(ck.Value), a.cfg.SessionTTL)
	if errors.Is(err, db.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	c.Set(guestKey, id)
	a.startGuestVisit(c)
	return id, nil
}

// ensureGuest returns the visitor's guest session, starting one (and setting its cookie) when
// there is none: guests get a session at their first message, not at every page view.
func (a *app) ensureGuest(c echo.Context) (int64, error) {
	id, err := a.loadGuest(c)
	if err != nil || id != 0 {
		return id, err
	}
	token, hash, err := accounts.NewToken()
	if err != nil {
		return 0, err
	}
	if id, err = a.store.CreateGuestSession(c.Request().Context(), hash, time.Now().Add(a.cfg.SessionTTL)); err != nil {
		return 0, err
	}
	c.SetCookie(a.guestCookieFor(token, int(a.cfg.SessionTTL.Seconds())))
	c.Set(guestKey, id)
	a.startGuestVisit(c)
	return id, nil
}

// chatOwner is who owns the conversations of this request: the signed-in user, else the guest
// session (the zero Owner when there is neither).
func chatOwner(c echo.Context) db.Owner {
	if u := viewer(c); u != nil {
		return db.Owner{UserID: u.ID}
	}
	id, _ := c.Get(guestKey).(int64)
	return db.Owner{GuestID: id}
}

// requireChatter lets a signed-in user or a guest with a live guest session through (the
// conversation routes, which then scope every exchange to its owner); others are treated as by
// requireViewer.
func (a *app) requireChatter(next echo.HandlerFunc) echo.HandlerFunc {
	signedIn := a.requireViewer(next)
	return func(c echo.Context) error {
		if viewer(c) == nil {
			id, err := a.loadGuest(c)
			if err != nil {
				return err
			}
			if id != 0 {
				return next(c)
			}
		}
		return signedIn(c)
	}
}

// withGuest loads the guest session, if any, for routes anyone may use (public agent pages).
func (a *app) withGuest(next echo.HandlerFunc) echo.HandlerFunc {
	return func(c echo.Context) error {
		if viewer(c) == nil {
			if _, err := a.loadGuest(c); err != nil {
				return err
			}
		}
		return next(c)
	}
}

// adoptGuest moves the conversations of the visitor's current guest visit (guestVisit) into the
// account that just signed up, or signed in and chose to keep them, and forgets the guest.
func (a *app) adoptGuest(c echo.Context, userID int64) error {
	id, since, err := a.guestVisit(c)
	if err == nil && id != 0 {
		_, err = a.store.AdoptGuest(c.Request().Context(), id, userID, since)
	}
	if err != nil && !errors.Is(err, db.ErrNotFound) {
		return err
	}
	a.forgetGuest(c)
	return nil
}

// allowChatMessage takes one message from the sender's bucket: per user, or for guests per client
// IP at the stricter guest rate (a new guest session does not get a new bucket).
func (a *app) allowChatMessage(c echo.Context, o db.Owner) (time.Duration, bool) {
	return a.limits.allowMessage(c.Request().Context(), o.UserID, c.RealIP())
}

// takeMessageSlot takes one message from the owner's bucket (allowChatMessage) before a model
// call; an empty bucket is a 429 fault with Retry-After set.
func (a *app) takeMessageSlot(c echo.Context, o db.Owner) error {
	wait, ok := a.allowChatMessage(c, o)
	if ok {
		return nil
	}
	secs := strconv.Itoa(int(wait.Seconds() + 0.999))
	c.Response().Header().Set("Retry-After", secs)
	return &fault.Error{Code: fault.RateLimited, Message: "Too many messages. Wait " + secs + " s."}
}
