package handlers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"parley/config"
	"parley/handlers/handlerstest"
)

// An answer's image from another site is a link naming its host on the chat page and the share
// page alike; an allowed host's image loads, and the CSP's img-src names that host.
func TestOtherSitesImagesAreLinksOnEverySurface(t *testing.T) {
	app, c := signedIn(t, func(cfg *config.Config) { cfg.ImageHosts = []string{"images.example.com"} })
	answer := "![chart](https://images.example.com/c.png) ![leak](https://elsewhere.example/?q=secret)"
	id, _ := seedConversation(t, app, "ada@example.com", "Pictures", time.Now(), "show me", answer)
	if res := c.PostForm(fmt.Sprintf("/sessions/%d/share", id), nil); res.Status != http.StatusSeeOther {
		t.Fatalf("create share: %d", res.Status)
	}
	var token string
	if err := app.Store.DB.Get(&token, `SELECT token FROM chat_share WHERE exchange_id = $1`, id); err != nil {
		t.Fatal(err)
	}
	anon := app.Client(t)
	for _, res := range []struct {
		name string
		r    handlerstest.Response
	}{{"chat", c.Get(fmt.Sprintf("/sessions/%d/chat", id))}, {"share", anon.Get("/share/" + token)}} {
		d := doc(t, res.r.Body)
		link := d.Find(`a.image-link[href="https://elsewhere.example/?q=secret"]`)
		if res.r.Status != 200 || d.Find(`img[src="https://images.example.com/c.png"]`).Length() != 1 ||
			d.Find(`img[src*="elsewhere"]`).Length() != 0 || link.Length() != 1 || !strings.Contains(link.Text(), "leak · elsewhere.example") {
			t.Errorf("%s page (%d): images %v", res.name, res.r.Status, d.Find(".prose").Text())
		}
		if csp := res.r.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "img-src 'self' data: images.example.com;") {
			t.Errorf("%s page CSP %q", res.name, csp)
		}
	}
}
