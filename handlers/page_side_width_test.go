package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The page editor's side panel width is stored per account; a width that is not a whole number of
// pixels within bounds is refused with the reason and stores nothing.
func TestPageSideWidthIsStoredPerPersonAndBadWidthsAreRefused(t *testing.T) {
	app, c := signedIn(t)
	id := newPage(t, c, "Notes", methodsPage)
	for _, bad := range []string{"", "wide", "12.5", "100", "100000"} {
		res := htmxPost(c, "/preferences/page-side-width", url.Values{"width": {bad}})
		if res.Status != http.StatusBadRequest || !strings.Contains(res.Header.Get("HX-Trigger")+res.Body, "whole number of pixels") {
			t.Errorf("width %q: %d %s %s", bad, res.Status, res.Header.Get("HX-Trigger"), res.Body)
		}
	}
	if ed := c.Get(fmt.Sprintf("/pages/%d/edit", id)); !strings.Contains(ed.Body, `data-side-width="0"`) {
		t.Fatal("a bad width was stored")
	}
	if res := htmxPost(c, "/preferences/page-side-width", url.Values{"width": {"512"}}); res.Status != http.StatusNoContent {
		t.Fatalf("width 512: %d %s", res.Status, res.Body)
	}
	if ed := c.Get(fmt.Sprintf("/pages/%d/edit", id)); !strings.Contains(ed.Body, `data-side-width="512"`) || !strings.Contains(ed.Body, `aria-valuenow="512"`) {
		t.Fatal("the editor does not open with the stored width")
	}
	other := app.Client(t)
	other.SignUp("bob@example.com", "correct horse")
	theirs := newPage(t, other, "Bob's", methodsPage)
	if ed := other.Get(fmt.Sprintf("/pages/%d/edit", theirs)); !strings.Contains(ed.Body, `data-side-width="0"`) {
		t.Fatal("another person's editor has the width")
	}
}
