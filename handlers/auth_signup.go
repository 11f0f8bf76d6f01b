package handlers

import (
	"net/http"

	"github.com/labstack/echo/v4"

	"parley/accounts"
	"parley/fault"
	"parley/views"
)

func (a *app) showSignUp(c echo.Context) error {
	if viewer(c) != nil {
		return redirect(c, "/")
	}
	return render(c, http.StatusOK, views.SignUpPage(page(c, "Sign up", ""), views.AuthForm{Next: safeNext(c.QueryParam("next"))}))
}

// submitSignUp creates the account and signs it in. Bad input re-renders the form with the
// message beside its field (422) and keeps what was typed, except the password.
func (a *app) submitSignUp(c echo.Context) error {
	form := views.AuthForm{
		Email:       c.FormValue("email"),
		DisplayName: c.FormValue("display_name"),
		Next:        safeNext(c.FormValue("next")),
	}
	user, err := a.accounts.SignUp(c.Request().Context(), accounts.SignUpInput{
		Email: form.Email, DisplayName: form.DisplayName, Password: c.FormValue("password"),
	})
	if f := fault.As(err); f != nil && f.Code == fault.Invalid {
		form.Errors = map[string]string{f.Field: f.Message}
		return render(c, http.StatusUnprocessableEntity, views.SignUpPage(page(c, "Sign up", ""), form))
	}
	if err != nil {
		return err
	}
	if err := a.startSession(c, user.ID); err != nil {
		return err
	}
	if err := a.adoptGuest(c, user.ID); err != nil { // a guest's conversations join the account
		return err
	}
	return redirect(c, form.Next)
}
