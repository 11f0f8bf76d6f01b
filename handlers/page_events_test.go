package handlers_test

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"parley/handlers/handlerstest"
)

// pageEventVersions opens page id's event stream as c and sends the versions its "page-changed"
// events announce, until the test ends.
func pageEventVersions(t *testing.T, c *handlerstest.Client, id int64) <-chan string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.URL(fmt.Sprintf("/pages/%d/events", id)), nil)
	res, err := c.Client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("events: %d %s", res.StatusCode, res.Header.Get("Content-Type"))
	}
	out := make(chan string, 16)
	go func() {
		defer res.Body.Close()
		sc := bufio.NewScanner(res.Body)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "page-changed":
				out <- strings.TrimPrefix(line, "data: ")
			}
		}
	}()
	return out
}

func nextVersion(t *testing.T, versions <-chan string, want string) {
	t.Helper()
	select {
	case v := <-versions:
		if v != want {
			t.Fatalf("page-changed announces version %s, want %s", v, want)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no page-changed event for version %s in 5 s", want)
	}
}

// An editor's event stream on one instance announces the page's version on connect, then each
// save and accepted proposal made through another instance (notices carry ids only); someone
// else's page has no stream for them.
func TestPageEventsAnnounceChangesMadeOnAnotherInstance(t *testing.T) {
	a, c := signedIn(t)
	b := handlerstest.Start(t, onDatabase(a.Config.DatabaseURL))
	id := newPage(t, c, "Report", methodsPage)
	versions := pageEventVersions(t, clientOn(t, b, c), id)
	nextVersion(t, versions, "1")

	if res := save(c, id, 1, "Report", strings.Replace(methodsPage, "Old results.", "New results.", 1)); res.Status != http.StatusOK {
		t.Fatalf("save on A: %d %s", res.Status, res.Body)
	}
	nextVersion(t, versions, "2")
	_, answer := askPage(t, a, c, id, "rename section Methods to Approach")
	if res := acceptAll(c, id, proposalOf(t, answer)); res.Status != http.StatusOK {
		t.Fatalf("accept on A: %d", res.Status)
	}
	nextVersion(t, versions, "3")

	other := a.Client(t)
	other.SignUp("bob@example.com", "correct horse")
	if res := other.Get(fmt.Sprintf("/pages/%d/events", id)); res.Status != http.StatusNotFound {
		t.Fatalf("another person's stream of the page: %d", res.Status)
	}
}
