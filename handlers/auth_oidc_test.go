package handlers_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"parley/config"
	"parley/handlers/handlerstest"
)

// signOn runs the code flow as a browser does: Parley's start form, the provider's authorization
// (which signs in the person set with SignInAs), and the callback. The provider redirects to
// Parley's public URL (http://127.0.0.1, no port); the test, as the browser, sends that request to
// the running app. edit may change the callback's query (e.g. a forged state). It returns the
// callback's response.
func signOn(t *testing.T, c *handlerstest.Client, form url.Values, edit func(url.Values)) handlerstest.Response {
	t.Helper()
	res := c.PostForm("/auth/oidc/start", form)
	if res.Status != http.StatusSeeOther {
		t.Fatalf("start: %d %s", res.Status, res.Body)
	}
	authz := res.Header.Get("Location")
	for _, want := range []string{"code_challenge_method=S256", "code_challenge=", "nonce=", "state=", "scope=openid"} {
		if !strings.Contains(authz, want) {
			t.Fatalf("authorization URL %s lacks %s", authz, want)
		}
	}
	req, _ := http.NewRequest(http.MethodGet, authz, nil)
	res = c.Do(req)
	if res.Status != http.StatusFound {
		t.Fatalf("provider: %d %s", res.Status, res.Body)
	}
	back, _ := url.Parse(res.Header.Get("Location"))
	q := back.Query()
	if edit != nil {
		edit(q)
	}
	return c.Get(back.Path + "?" + q.Encode())
}

func signedInAs(t *testing.T, c *handlerstest.Client) string {
	t.Helper()
	res := c.Get("/account")
	if res.Status != http.StatusOK {
		return ""
	}
	return doc(t, res.Body).Find("main p").First().Text()
}

func TestOIDCSignInMakesANewAccountFindsItAgainAndSignOutEndsTheSession(t *testing.T) {
	idp := handlerstest.StartOpenIDProvider(t)
	app := handlerstest.Start(t, handlerstest.WithOpenIDProvider(idp))
	first := app.Client(t)
	first.SignUp("owner@example.com", "correct horse") // the first account is the admin; not this one

	c := app.Client(t)
	if page := c.Get("/signin"); !strings.Contains(page.Body, "Sign in with Test IdP") || !strings.Contains(page.Body, `action="/signin"`) {
		t.Fatal("the sign-in page does not offer both ways in")
	}
	idp.SignInAs(handlerstest.Person{Subject: "kc-1", Email: "grace@example.com", EmailVerified: true, Name: "Grace Hopper"})
	res := signOn(t, c, url.Values{"next": {"/pages"}}, nil)
	if res.Status != http.StatusSeeOther || res.Header.Get("Location") != "/pages" {
		t.Fatalf("callback: %d %s %s", res.Status, res.Header.Get("Location"), res.Body)
	}
	if who := signedInAs(t, c); !strings.Contains(who, "Grace Hopper · grace@example.com") {
		t.Fatalf("signed in as %q", who)
	}
	if n := count(t, app, "user_identities WHERE subject = 'kc-1'"); n != 1 {
		t.Fatalf("%d identities", n)
	}
	u, _ := app.Store.UserByEmail(context.Background(), "grace@example.com")
	if u.IsAdmin || u.PasswordHash != "" {
		t.Fatalf("new account %+v", u)
	}
	// No password opens the account.
	if res := app.Client(t).PostForm("/signin", url.Values{"email": {"grace@example.com"}, "password": {""}}); res.Status != http.StatusUnauthorized {
		t.Fatalf("empty password: %d", res.Status)
	}

	if res := c.PostForm("/signout", url.Values{}); res.Status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", res.Status)
	}
	if who := signedInAs(t, c); who != "" {
		t.Fatalf("still signed in as %q after sign-out", who)
	}
	// The same subject signs in to the same account, even with a changed email.
	idp.SignInAs(handlerstest.Person{Subject: "kc-1", Email: "grace.hopper@example.com", EmailVerified: true})
	signOn(t, c, url.Values{}, nil)
	if who := signedInAs(t, c); !strings.Contains(who, "grace@example.com") {
		t.Fatalf("signed in again as %q", who)
	}
	if n := count(t, app, "users"); n != 2 {
		t.Fatalf("%d accounts, want 2", n)
	}
}

func TestOIDCLinksAPasswordAccountOnlyAfterItsPasswordSignIn(t *testing.T) {
	idp := handlerstest.StartOpenIDProvider(t)
	app := handlerstest.Start(t, handlerstest.WithOpenIDProvider(idp))
	ada := app.Client(t)
	ada.SignUp("ada@example.com", "correct horse")
	ada.PostForm("/signout", url.Values{})

	// Someone at the provider with Ada's email cannot take her account by signing on.
	idp.SignInAs(handlerstest.Person{Subject: "g-42", Email: "ada@example.com", EmailVerified: true})
	res := signOn(t, ada, url.Values{}, nil)
	if res.Status != http.StatusForbidden || !strings.Contains(res.Body, "Sign in with its password, then choose") {
		t.Fatalf("unlinked email: %d %s", res.Status, res.Body)
	}
	if who := signedInAs(t, ada); who != "" || count(t, app, "user_identities") != 0 {
		t.Fatalf("signed in as %q without the password", who)
	}

	ada.SignIn("ada@example.com", "correct horse")
	if page := ada.Get("/account"); !strings.Contains(page.Body, "Link single sign-on") {
		t.Fatal("the account page offers no link")
	}
	// An unverified email, or another one, is not linked.
	idp.SignInAs(handlerstest.Person{Subject: "g-42", Email: "ada@example.com", EmailVerified: false})
	if res := signOn(t, ada, url.Values{"link": {"1"}, "next": {"/account"}}, nil); res.Status != http.StatusForbidden ||
		!strings.Contains(res.Body, "verified email ada@example.com") {
		t.Fatalf("unverified link: %d %s", res.Status, res.Body)
	}
	idp.SignInAs(handlerstest.Person{Subject: "g-42", Email: "ada@example.com", EmailVerified: true})
	if res := signOn(t, ada, url.Values{"link": {"1"}, "next": {"/account"}}, nil); res.Status != http.StatusSeeOther {
		t.Fatalf("link: %d %s", res.Status, res.Body)
	}
	if page := ada.Get("/account"); !strings.Contains(page.Body, "This account signs in with Test IdP") {
		t.Fatal("the account page does not show the link")
	}
	other := app.Client(t)
	signOn(t, other, url.Values{}, nil)
	if who := signedInAs(t, other); !strings.Contains(who, "ada@example.com") {
		t.Fatalf("after linking, sign-on opens %q", who)
	}
}

func TestOIDCRefusesAForgedStateAWrongNonceAnExpiredTokenAndOtherDomains(t *testing.T) {
	idp := handlerstest.StartOpenIDProvider(t)
	app := handlerstest.Start(t, handlerstest.WithOpenIDProvider(idp), func(c *config.Config) {
		c.OIDCAllowedDomains = []string{"example.com"}
	})
	app.Client(t).SignUp("owner@example.com", "correct horse")
	idp.SignInAs(handlerstest.Person{Subject: "s-1", Email: "kim@example.com", EmailVerified: true})
	cases := []struct {
		name   string
		person *handlerstest.Person
		tamper func(map[string]any)
		edit   func(url.Values)
		status int
		want   string
	}{
		{name: "forged state", edit: func(q url.Values) { q.Set("state", "forged") }, status: http.StatusBadRequest, want: "not the one this browser started"},
		{name: "no state", edit: func(q url.Values) { q.Del("state") }, status: http.StatusBadRequest, want: "not the one this browser started"},
		{name: "wrong nonce", tamper: func(c map[string]any) { c["nonce"] = "replayed" }, status: http.StatusUnauthorized, want: "Single sign-on did not work"},
		{name: "expired ID token", tamper: func(c map[string]any) {
			c["exp"] = time.Now().Add(-10 * time.Minute).Unix()
			c["iat"] = time.Now().Add(-20 * time.Minute).Unix()
		}, status: http.StatusUnauthorized, want: "Single sign-on did not work"},
		{name: "token for another client", tamper: func(c map[string]any) { c["aud"] = "someone-else" }, status: http.StatusUnauthorized, want: "Single sign-on did not work"},
		{name: "domain not allowed", person: &handlerstest.Person{Subject: "s-2", Email: "eve@evil.example.org", EmailVerified: true},
			status: http.StatusForbidden, want: "only verified addresses at example.com may"},
		{name: "unverified email", person: &handlerstest.Person{Subject: "s-3", Email: "kim@example.com", EmailVerified: false},
			status: http.StatusForbidden, want: "only verified addresses at example.com may"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.person != nil {
				idp.SignInAs(*tc.person)
				defer idp.SignInAs(handlerstest.Person{Subject: "s-1", Email: "kim@example.com", EmailVerified: true})
			}
			idp.Tamper(tc.tamper)
			defer idp.Tamper(nil)
			c := app.Client(t)
			res := signOn(t, c, url.Values{}, tc.edit)
			if res.Status != tc.status || !strings.Contains(res.Body, tc.want) {
				t.Fatalf("%d, want %d with %q\n%s", res.Status, tc.status, tc.want, res.Body)
			}
			if who := signedInAs(t, c); who != "" {
				t.Fatalf("signed in as %q", who)
			}
		})
	}
	if n := count(t, app, "users"); n != 1 {
		t.Fatalf("%d accounts made by refused sign-ins", n)
	}
	// The attempt cookie is one use: replaying a good callback fails.
	c := app.Client(t)
	var callback string
	res := signOn(t, c, url.Values{}, func(q url.Values) { callback = "/auth/oidc/callback?" + q.Encode() })
	if res.Status != http.StatusSeeOther {
		t.Fatalf("good sign-on: %d %s", res.Status, res.Body)
	}
	c.PostForm("/signout", url.Values{})
	if res := c.Get(callback); res.Status != http.StatusBadRequest {
		t.Fatalf("replayed callback: %d", res.Status)
	}
}

func TestOIDCAdminGroupClaimGrantsAndWithdrawsAdministration(t *testing.T) {
	idp := handlerstest.StartOpenIDProvider(t)
	app := handlerstest.Start(t, handlerstest.WithOpenIDProvider(idp), func(c *config.Config) { c.OIDCAdminGroup = "parley-admins" })
	app.Client(t).SignUp("owner@example.com", "correct horse")
	c := app.Client(t)
	idp.SignInAs(handlerstest.Person{Subject: "a-1", Email: "lin@example.com", EmailVerified: true, Groups: []string{"staff", "parley-admins"}})
	signOn(t, c, url.Values{}, nil)
	if page := c.Get("/account"); !strings.Contains(page.Body, "Administration") {
		t.Fatal("a member of the admin group is no administrator")
	}
	idp.SignInAs(handlerstest.Person{Subject: "a-1", Email: "lin@example.com", EmailVerified: true, Groups: []string{"staff"}})
	signOn(t, c, url.Values{}, nil)
	if page := c.Get("/account"); strings.Contains(page.Body, "Administration") {
		t.Fatal("leaving the admin group kept administration")
	}
}

func TestPasswordSignInCanBeTurnedOff(t *testing.T) {
	idp := handlerstest.StartOpenIDProvider(t)
	app := handlerstest.Start(t, handlerstest.WithOpenIDProvider(idp), func(c *config.Config) { c.PasswordSignIn = false })
	c := app.Client(t)
	page := c.Get("/signin")
	if !strings.Contains(page.Body, "Sign in with Test IdP") || strings.Contains(page.Body, `action="/signin"`) {
		t.Fatal("the sign-in page still shows the password form")
	}
	if res := c.PostForm("/signin", url.Values{"email": {"a@example.com"}, "password": {"correct horse"}}); res.Status != http.StatusForbidden {
		t.Fatalf("password sign-in: %d", res.Status)
	}
	if res := c.PostForm("/signup", url.Values{"email": {"a@example.com"}, "password": {"correct horse"}}); res.Status != http.StatusForbidden || count(t, app, "users") != 0 {
		t.Fatalf("password sign-up: %d", res.Status)
	}
	if res := c.Get("/signup"); res.Status != http.StatusSeeOther {
		t.Fatalf("sign-up page: %d", res.Status)
	}
	// Signed out, the home page still works (guests of public agents are not affected).
	if res := c.Get("/"); res.Status != http.StatusOK {
		t.Fatalf("home: %d", res.Status)
	}
	idp.SignInAs(handlerstest.Person{Subject: "x", Email: "first@example.com", EmailVerified: true})
	if res := signOn(t, c, url.Values{}, nil); res.Status != http.StatusSeeOther {
		t.Fatalf("sign-on: %d %s", res.Status, res.Body)
	}
	if u, _ := app.Store.UserByEmail(context.Background(), "first@example.com"); !u.IsAdmin {
		t.Fatal("the first account, made by sign-on, is not the administrator")
	}
}

// Microsoft Entra sends no email_verified: such an email counts as verified only when
// PARLEY_OIDC_TRUST_EMAILS says so.
func TestOIDCEmailsWithoutAVerifiedClaimAreTrustedOnlyWhenConfigured(t *testing.T) {
	idp := handlerstest.StartOpenIDProvider(t)
	for _, trust := range []bool{false, true} {
		app := handlerstest.Start(t, handlerstest.WithOpenIDProvider(idp), func(c *config.Config) {
			c.OIDCAllowedDomains, c.OIDCTrustEmails = []string{"example.com"}, trust
		})
		idp.SignInAs(handlerstest.Person{Subject: "entra-1", Email: "sam@example.com", NoEmailVerified: true})
		res := signOn(t, app.Client(t), url.Values{}, nil)
		if got := res.Status == http.StatusSeeOther; got != trust {
			t.Fatalf("trust %v: %d %s", trust, res.Status, res.Body)
		}
	}
}
