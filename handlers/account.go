package handlers

import (
	"errors"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/labstack/echo/v4"

	"parley/accounts"
	"parley/db"
	"parley/views"
)

// maxAPIKeyName is the longest API key name, in characters.
const maxAPIKeyName = 80

// accountRoutes registers account settings (API keys) and the administrators' feedback export.
func (a *app) accountRoutes(e *echo.Echo) {
	e.GET("/account", a.showAccount, a.requireViewer)
	e.POST("/account/api-keys", a.submitAPIKey, a.requireViewer)
	e.POST("/account/api-keys/:id/revoke", a.submitRevokeAPIKey, a.requireViewer)
	e.GET("/admin/feedback.csv", a.exportFeedback("csv"), a.requireViewer)
	e.GET("/admin/feedback.json", a.exportFeedback("json"), a.requireViewer)
	a.importRoutes(e)
}

// showAccount is the account settings page: the person's API keys, and for administrators the
// feedback export.
func (a *app) showAccount(c echo.Context) error {
	return a.renderAccount(c, http.StatusOK, views.AccountPage{})
}

// submitAPIKey creates an API key and shows it once; only its hash is stored.
func (a *app) submitAPIKey(c echo.Context) error {
	name := strings.TrimSpace(c.FormValue("name"))
	switch {
	case !utf8.ValidString(name) || strings.ContainsRune(name, 0):
		return a.renderAccount(c, http.StatusUnprocessableEntity, views.AccountPage{NameError: "The name must be plain text."})
	case utf8.RuneCountInString(name) > maxAPIKeyName:
		return a.renderAccount(c, http.StatusUnprocessableEntity, views.AccountPage{Name: name, NameError: "The name may be at most 80 characters."})
	case name == "":
		name = "API key"
	}
	key, prefix, hash, err := accounts.NewAPIKey()
	if err != nil {
		return err
	}
	_, err = a.store.CreateAPIKey(c.Request().Context(), viewer(c).ID, name, prefix, hash)
	if errors.Is(err, db.ErrTooManyAPIKeys) {
		return a.renderAccount(c, http.StatusConflict, views.AccountPage{Name: name, NameError: db.ErrTooManyAPIKeys.Message})
	}
	if err != nil {
		return err
	}
	return a.renderAccount(c, http.StatusOK, views.AccountPage{NewKey: key, NewKeyName: name})
}

// submitRevokeAPIKey revokes one of the person's keys; it stops working at once.
func (a *app) submitRevokeAPIKey(c echo.Context) error {
	id, err := pathID(c, "id")
	if err != nil {
		return err
	}
	if err := a.store.RevokeAPIKey(c.Request().Context(), viewer(c).ID, id); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, "/account")
}

// renderAccount renders the settings page around the given form state.
func (a *app) renderAccount(c echo.Context, status int, p views.AccountPage) error {
	keys, err := a.store.APIKeys(c.Request().Context(), viewer(c).ID)
	if err != nil {
		return err
	}
	p.Page = page(c, "Account", "")
	if p.SignOn != nil {
		if p.SignOnLinked, err = a.store.HasIdentity(c.Request().Context(), viewer(c).ID); err != nil {
			return err
		}
	}
	// A boosted form's POST would otherwise leave /account/api-keys in the address bar.
	c.Response().Header().Set("HX-Push-Url", "/account")
	for _, k := range keys {
		p.Keys = append(p.Keys, apiKeyView(k))
	}
	return render(c, status, views.AccountSettings(p))
}

func apiKeyView(k db.APIKey) views.APIKeyView {
	return views.APIKeyView{ID: k.ID, Name: k.Name, Prefix: k.Prefix, CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt, Revoked: k.RevokedAt != nil}
}
