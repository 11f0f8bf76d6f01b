package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
	"parley/pages"
)

// bigMarkdown returns markdown of about n bytes in short lines of ordinary words (so that the
// browser's CRLF line endings add many bytes to the form body).
func bigMarkdown(n int) string {
	words := strings.Fields("the page keeps every line a writer types and saves it")
	var b strings.Builder
	for i := 0; b.Len() < n-40; i++ {
		if i%50 == 0 {
			fmt.Fprintf(&b, "\n## Part %d\n\n", i/50)
		}
		fmt.Fprintf(&b, "- %s\n", words[i%len(words)])
	}
	return b.String()
}

// A page just under the page limit (990 KB in 45,000 short lines, over 1 MB once the browser
// sends CRLF) is created from the New page form, byte for byte.
func TestBrowserNewPageFormTakesA990KBPage(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	content := bigMarkdown(990_000)
	if len(content) > pages.MaxContentBytes || len(content)+strings.Count(content, "\n") <= 1<<20 {
		t.Fatalf("the test page is %d bytes with %d lines: not the case under test", len(content), strings.Count(content, "\n"))
	}
	createPageInBrowser(b, app, "Big", content)
	if got := storedPage(t, app, newestPageID(t, app)).Content; got != content {
		t.Fatalf("stored %d bytes, want the %d sent", len(got), len(content))
	}
}

// A New page form over every limit gets a proper error page: the header of a signed-in person,
// and a way back to the form that puts the text back.
func TestBrowserNewPageOverTheBodyLimitKeepsTheText(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	content := strings.Repeat("x", 2_200_000) + "\n"
	b.do("send a page over the body limit",
		chromedp.Navigate(app.URL+"/pages/new"),
		chromedp.SendKeys(chromedp.CSS(`input[name=title]`), "Huge"),
		chromedp.SetValue(chromedp.CSS(`textarea[name=content]`), content),
		chromedp.Click(chromedp.CSS(`[data-testid=create-page]`)),
		chromedp.WaitVisible(chromedp.CSS(`[data-error-page]`)),
	)
	if got := b.eval(`document.querySelector('[data-status]').dataset.status`); !strings.Contains(got, "413") {
		t.Fatalf("error page status %q", got)
	}
	if b.eval(`String(!!document.querySelector('[data-testid=account-name]'))`) != "true" {
		t.Fatal("the error page's header does not show the signed-in person")
	}
	b.do("back to the form",
		chromedp.Click(chromedp.CSS(`[data-testid=back-to-form]`)),
		chromedp.WaitVisible(chromedp.CSS(`#new-page-form`)),
	)
	b.loaded("the new page form", `#new-page-form`) // its script puts the text back
	if got := b.eval(`document.querySelector('textarea[name=content]').value`); got != content {
		t.Fatalf("the form holds %d bytes, want the %d typed", len(got), len(content))
	}
	if got := b.eval(`document.querySelector('input[name=title]').value`); got != "Huge" {
		t.Fatalf("the form's title is %q", got)
	}
}

// Over HTTP: the 413 page of a signed-in person has their header, not "Sign in".
func TestTooLargeRequestShowsTheSignedInHeader(t *testing.T) {
	_, c := signedIn(t)
	res := c.PostForm("/pages", map[string][]string{"title": {"Huge"}, "content": {strings.Repeat("x", 2_200_000)}})
	if res.Status != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d", res.Status)
	}
	if !strings.Contains(res.Body, `data-testid="account-name"`) || strings.Contains(res.Body, `href="/signin"`) {
		t.Fatalf("the 413 page's header is not the signed-in one: %s", res.Body)
	}
}
