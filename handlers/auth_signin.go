package handlers

import (
	"net/http"
	"net/url"

	"github.com/labstack/echo/v4"

	"parley/fault"
	"parley/views"
)

func (a *app) showSignIn(c echo.Context) error {
	if viewer(c) != nil {
		return redirect(c, "/")
	}
	return render(c, http.StatusOK, views.SignInPage(page(c, "Sign in", ""), views.AuthForm{Next: safeNext(c.QueryParam("next"))}))
}

// submitSignIn checks the credentials (rate limited per client IP and per account)
// and starts a new session. A wrong email and a wrong password get the same message.
func (a *app) submitSignIn(c echo.Context) error {
	form := views.AuthForm{Email: c.FormValue("email"), Next: safeNext(c.FormValue("next"))}
	fail := func(status int, msg string) error {
		form.Errors = map[string]string{"": msg}
		return render(c, status, views.SignInPage(page(c, "Sign in", ""), form))
	}
	if !a.limits.allowSignIn(c.Request().Context(), c.RealIP(), form.Email) {
		c.Response().Header().Set("Retry-After", "60")
		return fail(http.StatusTooManyRequests, errTooManySignIns.Message)
	}
	user, err := a.accounts.Authenticate(c.Request().Context(), form.Email, c.FormValue("password"))
	if f := fault.As(err); f != nil && f.Code == fault.Unauthorized {
		return fail(http.StatusUnauthorized, f.Message)
	}
	if err != nil {
		return err
	}
	if err := a.startSession(c, user.ID); err != nil {
		return err
	}
	// A guest visit's conversations join the account only if the person says so: the browser may
	// be shared, so they are not adopted silently.
	n, err := a.guestVisitCount(c)
	if err != nil {
		return err
	}
	if n > 0 {
		return redirect(c, "/signin/keep?next="+url.QueryEscape(form.Next))
	}
	a.forgetGuest(c)
	return redirect(c, form.Next)
}

// submitSignOut revokes the session and returns to the home page. Clear-Site-Data drops what the
// browser keeps of this origin's pages (its caches, the back/forward cache, sessionStorage), so a
// person using the computer next sees nothing private on Back.
func (a *app) submitSignOut(c echo.Context) error {
	if err := a.endSession(c); err != nil {
		return err
	}
	c.Response().Header().Set("Clear-Site-Data", `"cache", "storage"`)
	return redirect(c, "/")
}
