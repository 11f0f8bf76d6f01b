package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"parley/accounts"
	"parley/config"
	"parley/handlers/handlerstest"
)

func doc(t *testing.T, body string) *goquery.Document {
	t.Helper()
	d, err := goquery.NewDocumentFromReader(strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestSignUpSignsInAndFirstAccountIsAdmin(t *testing.T) {
	app := handlerstest.Start(t)
	c := app.Client(t)
	c.SignUp("ada@example.com", "correct horse")
	home := doc(t, c.Get("/").Body)
	if got := home.Find("[data-testid=welcome]").Text(); !strings.Contains(got, "ada") {
		t.Fatalf("home after sign-up greets %q", got)
	}
	if home.Find("div:contains('Administrator')").Length() == 0 {
		t.Fatal("first account is not shown as administrator")
	}
	c2 := app.Client(t)
	c2.SignUp("bob@example.com", "correct horse")
	if doc(t, c2.Get("/").Body).Find("div:contains('Administrator')").Length() != 0 {
		t.Fatal("second account is an administrator")
	}
}

func TestSignUpBadInputGetsItsMessageAndStoresNothing(t *testing.T) {
	app := handlerstest.Start(t)
	app.Client(t).SignUp("taken@example.com", "long enough")
	cases := []struct {
		name, email, password, field, want string
	}{
		{"duplicate email", "TAKEN@example.com", "long enough", "email", "already exists"},
		{"malformed email", "not-an-email", "long enough", "email", "Enter an email address"},
		{"email without domain dot", "a@localhost", "long enough", "email", "Enter an email address"},
		{"empty email", "  ", "long enough", "email", "Enter an email address"},
		{"too short password", "new@example.com", "short", "password", "at least 8"},
		{"too long password", "new@example.com", strings.Repeat("x", 73), "password", "at most 72"},
		{"invalid UTF-8 password", "new@example.com", "abc\xff\xfedefgh", "password", "valid text"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := app.Client(t)
			res := c.PostForm("/signup", url.Values{"email": {tc.email}, "password": {tc.password}})
			if res.Status != http.StatusUnprocessableEntity {
				t.Fatalf("status %d, want 422", res.Status)
			}
			msg := doc(t, res.Body).Find("[data-error-for=" + tc.field + "]").Text()
			if !strings.Contains(msg, tc.want) {
				t.Fatalf("message for %s = %q, want it to contain %q", tc.field, msg, tc.want)
			}
			if tc.field != "password" && doc(t, res.Body).Find("input#email").AttrOr("value", "") != tc.email {
				t.Fatal("the typed email was not kept in the form")
			}
			if strings.Contains(res.Body, tc.password) && len(tc.password) > 5 {
				t.Fatal("the password is echoed back in the page")
			}
		})
	}
	var users int
	if err := app.Store.DB.Get(&users, `SELECT count(*) FROM users`); err != nil || users != 1 {
		t.Fatalf("users = %d (%v), want only the first", users, err)
	}
}

func TestSignInWrongPasswordAndUnknownEmailGetTheSameAnswer(t *testing.T) {
	app := handlerstest.Start(t)
	app.Client(t).SignUp("ada@example.com", "correct horse")
	wrongPw := app.Client(t).PostForm("/signin", url.Values{"email": {"ada@example.com"}, "password": {"wrong horse"}})
	noUser := app.Client(t).PostForm("/signin", url.Values{"email": {"nobody@example.com"}, "password": {"wrong horse"}})
	badUTF8 := app.Client(t).PostForm("/signin", url.Values{"email": {"a\xff@example.com"}, "password": {"wrong horse"}})
	for _, res := range []handlerstest.Response{wrongPw, noUser, badUTF8} {
		if res.Status != http.StatusUnauthorized {
			t.Fatalf("status %d, want 401", res.Status)
		}
	}
	a := doc(t, wrongPw.Body).Find("[data-error-for=form]").Text()
	b := doc(t, noUser.Body).Find("[data-error-for=form]").Text()
	if a == "" || a != b {
		t.Fatalf("messages differ or are empty: %q vs %q", a, b)
	}
	c := app.Client(t)
	c.SignIn("ADA@example.com", "correct horse")
	if !strings.Contains(c.Get("/").Body, "ada@example.com") {
		t.Fatal("not signed in after a correct sign-in")
	}
}

func TestPostWithoutCSRFTokenIsRefused(t *testing.T) {
	app := handlerstest.Start(t)
	c := app.Client(t)
	c.Get("/signup") // has a CSRF cookie now, but the form below lacks the token
	res := c.PostFormRaw("/signup", url.Values{"email": {"a@example.com"}, "password": {"long enough"}})
	if res.Status != http.StatusForbidden {
		t.Fatalf("status %d, want 403", res.Status)
	}
	res = c.PostFormRaw("/signup", url.Values{"email": {"a@example.com"}, "password": {"long enough"}, "_csrf": {"forged"}})
	if res.Status != http.StatusForbidden {
		t.Fatalf("forged token: status %d, want 403", res.Status)
	}
	var users int
	_ = app.Store.DB.Get(&users, `SELECT count(*) FROM users`)
	if users != 0 {
		t.Fatalf("a refused request created %d users", users)
	}
	// A cross-site browser request is refused even with a token.
	req, _ := http.NewRequest(http.MethodPost, app.URL+"/signout", strings.NewReader("_csrf="+c.CSRFToken()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	if res := c.Do(req); res.Status != http.StatusForbidden {
		t.Fatalf("cross-site post: status %d, want 403", res.Status)
	}
}

func TestRevokedSessionNoLongerAuthenticates(t *testing.T) {
	app := handlerstest.Start(t)
	c := app.Client(t)
	c.SignUp("ada@example.com", "correct horse")
	if res := c.Get("/chat"); res.Status != http.StatusOK {
		t.Fatalf("signed in /chat: %d", res.Status)
	}
	if _, err := app.Store.DB.Exec(`DELETE FROM user_sessions`); err != nil {
		t.Fatal(err)
	}
	res := c.Get("/chat")
	if res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/signin") {
		t.Fatalf("after revocation /chat: %d %s, want a redirect to sign in", res.Status, res.Header.Get("Location"))
	}
}

func TestSignOutRevokesTheSessionServerSide(t *testing.T) {
	app := handlerstest.Start(t)
	c := app.Client(t)
	c.SignUp("ada@example.com", "correct horse")
	// Keep a copy of the session cookie, as a thief would.
	u, _ := url.Parse(app.URL)
	stolen := c.Jar.Cookies(u)
	if res := c.PostForm("/signout", nil); res.Status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", res.Status)
	}
	thief := app.Client(t)
	thief.Jar.SetCookies(u, stolen)
	if res := thief.Get("/chat"); res.Status != http.StatusSeeOther {
		t.Fatalf("old cookie after sign-out: %d, want redirect to sign in", res.Status)
	}
}

func TestSignInIsRateLimitedPerAccount(t *testing.T) {
	app := handlerstest.Start(t, func(c *config.Config) { c.SignInRate = 3 })
	app.Client(t).SignUp("ada@example.com", "correct horse")
	var last int
	for i := range 5 {
		// A new client each time (same IP here), so only the limits stop it.
		res := app.Client(t).PostForm("/signin", url.Values{"email": {"ada@example.com"}, "password": {"wrong"}})
		last = res.Status
		if i < 2 && res.Status != http.StatusUnauthorized {
			t.Fatalf("attempt %d: %d, want 401", i+1, res.Status)
		}
	}
	if last != http.StatusTooManyRequests {
		t.Fatalf("fifth attempt: %d, want 429", last)
	}
}

func TestSessionCookieIsHttpOnlyAndLax(t *testing.T) {
	app := handlerstest.Start(t)
	c := app.Client(t)
	res := c.PostForm("/signup", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}})
	var found bool
	for _, raw := range res.Header.Values("Set-Cookie") {
		if strings.HasPrefix(raw, "parley_session=") {
			found = true
			if !strings.Contains(raw, "HttpOnly") || !strings.Contains(raw, "SameSite=Lax") {
				t.Fatalf("session cookie flags: %s", raw)
			}
		}
	}
	if !found {
		t.Fatal("no session cookie set at sign-up")
	}
}

func TestNextParameterOnlyAllowsLocalPaths(t *testing.T) {
	app := handlerstest.Start(t)
	c := app.Client(t)
	res := c.PostForm("/signup", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}, "next": {"//evil.example/x"}})
	if loc := res.Header.Get("Location"); loc != "/" {
		t.Fatalf("redirect to %q, want /", loc)
	}
	c2 := app.Client(t)
	res = c2.PostForm("/signin", url.Values{"email": {"ada@example.com"}, "password": {"correct horse"}, "next": {"/chat?x=1"}})
	if loc := res.Header.Get("Location"); loc != "/chat?x=1" {
		t.Fatalf("redirect to %q, want /chat?x=1", loc)
	}
}

// Keep the accounts rules and the handlers in step: the minimum is what the form promises.
func TestPasswordBoundsMatchTheForm(t *testing.T) {
	if accounts.MinPasswordLen != 8 {
		t.Fatalf("MinPasswordLen = %d but the sign-up form says 8", accounts.MinPasswordLen)
	}
}

// The session cookie's token is remembered by the cookie's exact value once it verified
// (sessionCookies): an altered copy of a remembered cookie is still checked, and refused.
func TestAnAlteredSessionCookieIsRefusedEvenAfterTheRealOneWasRead(t *testing.T) {
	app := handlerstest.Start(t)
	c := app.Client(t)
	c.SignUp("ada@example.com", "correct horse")
	if res := c.Get("/chat/new"); res.Status != http.StatusOK {
		t.Fatalf("signed in /chat/new: %d", res.Status)
	}
	u, _ := url.Parse(app.URL)
	var altered []*http.Cookie
	for _, ck := range c.Jar.Cookies(u) {
		if ck.Name == "parley_session" {
			v := []byte(ck.Value)
			v[len(v)/2] ^= 1
			ck = &http.Cookie{Name: ck.Name, Value: string(v)}
		}
		altered = append(altered, ck)
	}
	forger := app.Client(t)
	forger.Jar.SetCookies(u, altered)
	if res := forger.Get("/chat/new"); res.Status != http.StatusSeeOther || !strings.HasPrefix(res.Header.Get("Location"), "/signin") {
		t.Fatalf("altered session cookie: %d %s, want a redirect to sign in", res.Status, res.Header.Get("Location"))
	}
	if res := c.Get("/chat/new"); res.Status != http.StatusOK {
		t.Fatalf("the real cookie after the forgery: %d", res.Status)
	}
}
