package handlers_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// A person signs up, signs out and signs in again in a real browser, with hx-boost navigation
// and the CSRF protection that browsers meet (fetch metadata) in force.
func TestBrowserSignUpSignOutSignIn(t *testing.T) {
	app := handlerstest.Start(t)
	ctx := handlerstest.Browser(t)
	step := func(what string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	text := func(sel string) string {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		s, err := chromedp.Run(sctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return s
	}

	step("open home", chromedp.Navigate(app.URL+"/"), chromedp.WaitVisible(chromedp.CSS(`a[href="/signup"]`)))
	step("go to sign up", chromedp.Click(chromedp.CSS(`main a[href="/signup"]`)), chromedp.WaitVisible(chromedp.CSS(`form[action="/signup"]`)))

	// A too-short password first: the message shows beside the field, the email is kept.
	step("submit a short password",
		chromedp.SendKeys(chromedp.CSS(`#display_name`), "Ada"),
		chromedp.SendKeys(chromedp.CSS(`#email`), "ada@example.com"),
		chromedp.SendKeys(chromedp.CSS(`#password`), "short"),
		chromedp.Click(chromedp.CSS(`form[action="/signup"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-error-for=password]`)),
	)
	if msg := text(`[data-error-for=password]`); !strings.Contains(msg, "at least 8") {
		t.Fatalf("password message %q", msg)
	}
	step("fix the password",
		chromedp.SendKeys(chromedp.CSS(`#password`), "correct horse battery"),
		chromedp.Click(chromedp.CSS(`form[action="/signup"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=welcome]`)),
	)
	if got := text(`[data-testid=welcome]`); !strings.Contains(got, "Ada") {
		t.Fatalf("welcome %q", got)
	}

	step("sign out",
		chromedp.Click(chromedp.CSS(`[data-testid=account-menu]`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/signout"] button`)),
		chromedp.Click(chromedp.CSS(`form[action="/signout"] button`)),
		chromedp.WaitVisible(chromedp.CSS(`header a[href="/signin"]`)),
	)

	step("sign in",
		chromedp.Click(chromedp.CSS(`header a[href="/signin"]`)),
		chromedp.WaitVisible(chromedp.CSS(`form[action="/signin"]`)),
		chromedp.SendKeys(chromedp.CSS(`#email`), "ada@example.com"),
		chromedp.SendKeys(chromedp.CSS(`#password`), "correct horse battery"),
		chromedp.Click(chromedp.CSS(`form[action="/signin"] button[type=submit]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-testid=welcome]`)),
	)
	if got := text(`[data-testid=account-name]`); got != "Ada" {
		t.Fatalf("account menu shows %q", got)
	}
	handlerstest.Screenshot(t, ctx, "signed-in")
}
