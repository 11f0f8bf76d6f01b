package handlers_test

import (
	"net/http"
	"net/url"
	"testing"

	"parley/handlers/handlerstest"
)

// Signing in and signing out each replace the CSRF token: a token read before (a shared computer,
// a planted cookie) no longer passes, the new one does.
func TestCSRFTokenRotatesAtSignInAndSignOut(t *testing.T) {
	app := handlerstest.Start(t)
	c := app.Client(t)
	c.SignUp("ada@example.com", "correct horse")
	c.PostForm("/signout", url.Values{})
	before := c.CSRFToken()
	c.SignIn("ada@example.com", "correct horse")
	during := c.CSRFToken()
	if during == before || during == "" {
		t.Fatalf("sign-in kept the token %q", before)
	}
	stale := url.Values{"_csrf": {before}, "name": {"stale"}}
	if res := c.PostFormRaw("/account/api-keys", stale); res.Status != http.StatusForbidden {
		t.Fatalf("the token from before sign-in: %d", res.Status)
	}
	if n := count(t, app, "api_keys"); n != 0 {
		t.Fatalf("%d API keys made with a stale token", n)
	}
	if res := c.PostFormRaw("/signout", url.Values{"_csrf": {during}}); res.Status != http.StatusSeeOther {
		t.Fatalf("sign-out with the current token: %d", res.Status)
	}
	if after := c.CSRFToken(); after == during {
		t.Fatal("sign-out kept the token")
	}
}
