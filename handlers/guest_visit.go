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
	"parley/views"
)

// guestVisitCookie marks the start of the current guest visit (unix seconds). It lives only as
// long as the browser session (no Max-Age), unlike the guest cookie, so a guest session reused
// after the browser was closed and opened again (a shared computer) starts a new visit, and
// signing in offers only the conversations of this one. Forging it widens nothing a guest can
// reach: the guest cookie alone already shows that session's conversations.
const guestVisitCookie = "parley_guest_visit"

// startGuestVisit sets the visit cookie when the guest has none (a new session, or the first
// request of a returning one).
func (a *app) startGuestVisit(c echo.Context) {
	if ck, err := c.Cookie(guestVisitCookie); err == nil && ck.Value != "" {
		return
	}
	ck := a.guestCookieFor(strconv.FormatInt(time.Now().Unix(), 10), 0)
	ck.Name = guestVisitCookie
	c.SetCookie(ck)
}

// guestVisit is the browser's guest session (0 when none is live) and when its current visit
// started; a session without a visit cookie has no current visit (since is the zero time's
// opposite: nothing qualifies).
func (a *app) guestVisit(c echo.Context) (int64, time.Time, error) {
	ck, err := c.Cookie(guestCookie)
	if err != nil || ck.Value == "" || len(ck.Value) > 128 {
		return 0, time.Time{}, nil
	}
	vc, err := c.Cookie(guestVisitCookie)
	if err != nil {
		return 0, time.Time{}, nil
	}
	unix, err := strconv.ParseInt(vc.Value, 10, 64)
	if err != nil || unix <= 0 {
		return 0, time.Time{}, nil
	}
	id, err := a.store.GuestSessionID(c.Request().Context(), accounts.HashToken(ck.Value), a.cfg.SessionTTL)
	if errors.Is(err, db.ErrNotFound) {
		return 0, time.Time{}, nil
	}
	// A visit started up to a minute "later" than its first conversation (clock skew between
	// instances and the database) still counts it.
	return id, time.Unix(unix, 0).Add(-time.Minute), err
}

// forgetGuest clears the guest and visit cookies (the guest session itself expires unused).
func (a *app) forgetGuest(c echo.Context) {
	c.SetCookie(a.guestCookieFor("", -1))
	visit := a.guestCookieFor("", -1)
	visit.Name = guestVisitCookie
	c.SetCookie(visit)
}

// guestVisitCount is how many live conversations the browser's current guest visit started.
func (a *app) guestVisitCount(c echo.Context) (int, error) {
	id, since, err := a.guestVisit(c)
	if err != nil || id == 0 {
		return 0, err
	}
	return a.store.GuestVisitExchanges(c.Request().Context(), id, since)
}

// showKeepGuest asks someone who just signed in whether to keep the conversations of this
// browser's guest visit ("Keep the 3 conversations from this browser?"); with none it goes on.
func (a *app) showKeepGuest(c echo.Context) error {
	next := safeNext(c.QueryParam("next"))
	n, err := a.guestVisitCount(c)
	if err != nil {
		return err
	}
	if n == 0 {
		a.forgetGuest(c)
		return redirect(c, next)
	}
	return render(c, http.StatusOK, views.KeepGuestPage(page(c, "Keep conversations?", ""), views.KeepGuest{Count: n, Next: next}))
}

// submitKeepGuest adopts the guest visit's conversations (keep=yes) or leaves them (keep=no), then
// goes where the sign-in was headed.
func (a *app) submitKeepGuest(c echo.Context) error {
	next := safeNext(c.FormValue("next"))
	switch c.FormValue("keep") {
	case "yes":
		if err := a.adoptGuest(c, viewer(c).ID); err != nil {
			return err
		}
	case "no":
		a.forgetGuest(c)
	default:
		return fault.Field("keep", "Choose whether to keep the conversations (keep=yes or keep=no).")
	}
	return redirect(c, next)
}
