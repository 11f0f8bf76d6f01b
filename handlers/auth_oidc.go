package handlers

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"
	"time"

	"github.com/labstack/echo/v4"
	"golang.org/x/oauth2"

	"parley/accounts"
	"parley/fault"
	"parley/views"
)

const (
	// oidcCookie holds one sign-in attempt (state, nonce, PKCE verifier, where to go, the account
	// to link), signed and encrypted like the session cookie, for oidcAttemptTTL.
	oidcCookie     = "parley_oidc"
	oidcAttemptTTL = 10 * time.Minute
	oidcCallback   = "/auth/oidc/callback"
	signOnKey      = "sign_on"
)

// errPasswordOff answers password sign-in and sign-up when PARLEY_PASSWORD_SIGNIN is false.
var errPasswordOff = &fault.Error{Code: fault.Forbidden, Message: "Password sign-in is turned off here: use single sign-on."}

// oidcRoutes registers OpenID Connect sign-in when it is configured, and the middleware that
// offers it on pages and turns password sign-in off when asked.
func (a *app) oidcRoutes(e *echo.Echo) {
	if !a.cfg.OIDC() {
		return
	}
	a.oidc = &accounts.OIDC{Store: a.store, Config: accounts.OIDCConfig{
		Issuer: a.cfg.OIDCIssuer, ClientID: a.cfg.OIDCClientID, ClientSecret: a.cfg.OIDCClientSecret,
		RedirectURL: strings.TrimRight(a.cfg.PublicURL, "/") + oidcCallback, Scopes: a.cfg.OIDCScopes,
		AllowedDomains: a.cfg.OIDCAllowedDomains, AdminGroup: a.cfg.OIDCAdminGroup, GroupsClaim: a.cfg.OIDCGroupsClaim,
		TrustEmails: a.cfg.OIDCTrustEmails,
	}}
	e.POST("/auth/oidc/start", a.startOIDC, a.limits.signInByIP)
	e.GET(oidcCallback, a.finishOIDC, a.limits.signInByIP)
}

// signOnOptions puts the sign-on choice in the context (page() shows it) and refuses password
// sign-in and sign-up when they are turned off.
func (a *app) signOnOptions(next echo.HandlerFunc) echo.HandlerFunc {
	if !a.cfg.OIDC() {
		return next
	}
	opts := &views.SignOn{Name: a.cfg.OIDCName, PasswordOff: !a.cfg.PasswordSignIn}
	return func(c echo.Context) error {
		c.Set(signOnKey, opts)
		if opts.PasswordOff {
			switch p := c.Path(); {
			case (p == "/signin" || p == "/signup") && c.Request().Method == http.MethodPost:
				return errPasswordOff
			case p == "/signup":
				return redirect(c, "/signin")
			}
		}
		return next(c)
	}
}

// startOIDC sends the browser to the provider with a fresh state, nonce and PKCE verifier kept in
// the attempt cookie. link=1 (from the Account page) links the provider's account to the one
// signed in instead of signing in.
func (a *app) startOIDC(c echo.Context) error {
	attempt := map[any]any{"state": randomToken(), "nonce": randomToken(), "verifier": oauth2.GenerateVerifier(),
		"next": safeNext(c.FormValue("next")), "at": time.Now().Unix()}
	if c.FormValue("link") == "1" {
		u := viewer(c)
		if u == nil {
			return redirect(c, "/signin?next=/account")
		}
		attempt["link"] = u.ID
	}
	to, err := a.oidc.AuthCodeURL(c.Request().Context(), attempt["state"].(string), attempt["nonce"].(string), attempt["verifier"].(string))
	if err != nil {
		return err
	}
	sess, _ := a.cookies.Get(c.Request(), oidcCookie)
	sess.Values = attempt
	sess.Options.MaxAge = int(oidcAttemptTTL.Seconds())
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return err
	}
	return c.Redirect(http.StatusSeeOther, to)
}

// finishOIDC is the provider's redirect back: the state must be this browser's attempt's; the code
// is exchanged, the ID token and nonce checked, the account found, created or linked, and a new
// Parley session started (a guest's conversations join it, as at password sign-in).
func (a *app) finishOIDC(c echo.Context) error {
	ctx := c.Request().Context()
	sess, _ := a.cookies.Get(c.Request(), oidcCookie)
	attempt := sess.Values
	sess.Values = map[any]any{} // one use only
	sess.Options.MaxAge = -1
	if err := sess.Save(c.Request(), c.Response()); err != nil {
		return err
	}
	state, _ := attempt["state"].(string)
	at, _ := attempt["at"].(int64)
	got := c.QueryParam("state")
	if state == "" || subtle.ConstantTimeCompare([]byte(state), []byte(got)) != 1 || time.Since(time.Unix(at, 0)) > oidcAttemptTTL {
		return a.signOnFailed(c, http.StatusBadRequest, "This sign-in link is not the one this browser started (or it is over 10 minutes old). Sign in again.")
	}
	if e := c.QueryParam("error"); e != "" {
		a.log.Warn("sign-on provider refused the sign-in", "error", e, "description", c.QueryParam("error_description"))
		return a.signOnFailed(c, http.StatusUnauthorized, "The sign-on provider did not sign you in ("+e+").")
	}
	nonce, _ := attempt["nonce"].(string)
	verifier, _ := attempt["verifier"].(string)
	id, err := a.oidc.Exchange(ctx, c.QueryParam("code"), verifier, nonce)
	if err != nil {
		if f := fault.As(err); f != nil && f.Code == fault.Unauthorized {
			a.log.Warn("sign-on failed", "err", err)
			return a.signOnFailed(c, http.StatusUnauthorized, f.Message)
		}
		return err
	}
	linkTo, _ := attempt["link"].(int64)
	if linkTo != 0 && (viewer(c) == nil || viewer(c).ID != linkTo) {
		return a.signOnFailed(c, http.StatusBadRequest, "Sign in with your password again, then link single sign-on.")
	}
	user, err := a.oidc.SignIn(ctx, id, linkTo)
	if f := fault.As(err); f != nil && f.Code != fault.Internal {
		return a.signOnFailed(c, http.StatusForbidden, f.Message)
	}
	if err != nil {
		return err
	}
	if err := a.startSession(c, user.ID); err != nil {
		return err
	}
	if err := a.adoptGuest(c, user.ID); err != nil {
		return err
	}
	next, _ := attempt["next"].(string)
	return c.Redirect(http.StatusSeeOther, safeNext(next))
}

// signOnFailed shows the sign-in page with the reason.
func (a *app) signOnFailed(c echo.Context, status int, msg string) error {
	form := views.AuthForm{Next: "/", Errors: map[string]string{"": msg}}
	if msg == accounts.ErrLinkFirst.Message {
		form.Next = "/account"
	}
	return render(c, status, views.SignInPage(page(c, "Sign in", ""), form))
}

// randomToken is 32 random bytes, base64url.
func randomToken() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
