package handlers_test

import (
	"fmt"
	"net/url"
	"testing"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// An agent's theme colour reaches its floating chat button, its password prompt and, in a team
// chat, the answers of each member (each in its own colour).
func TestThemesReachTheWidgetThePasswordPromptAndTeamMembers(t *testing.T) {
	const rose600, sky600, rose50, sky50 = "rgb(225, 29, 72)", "rgb(2, 132, 199)", "rgb(255, 241, 242)", "rgb(240, 249, 255)"
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	c := app.Client(t)
	c.SignIn("ada@example.com", "correct horse")
	owl := createAgent(t, c, agentForm("owl", "name", "Owl", "accent", "rose", "description", "Birds, feathers and nests."))
	fox := createAgent(t, c, agentForm("fox", "name", "Fox", "accent", "sky", "description", "Forests, dens and foxes."))
	createAgent(t, c, agentForm("vault", "name", "Vault", "accent", "rose", "password", "open sesame"))
	team := createTeam(t, c, "Wildlife", "private", owl, fox)
	if res := c.PostForm("/agents/widget", url.Values{"agent": {"owl"}}); res.Status >= 400 {
		t.Fatalf("enable the widget: %d", res.Status)
	}

	bg := func(sel string) string {
		return b.eval(`getComputedStyle(document.querySelector('` + sel + `')).backgroundColor`)
	}
	b.do("pages list", chromedp.Navigate(app.URL+"/pages"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=widget-button]`)))
	if got := bg(`[data-testid=widget-button]`); got != rose600 {
		t.Errorf("the floating button of a rose agent is %s, want %s", got, rose600)
	}

	guest := browser{t: t, ctx: handlerstest.Browser(t)}
	guest.do("password prompt", chromedp.Navigate(app.URL+"/chat/vault"), chromedp.WaitVisible(chromedp.CSS(`[data-testid=unlock] button[type=submit]`)))
	if got := guest.eval(`getComputedStyle(document.querySelector('[data-testid=unlock] button[type=submit]')).backgroundColor`); got != rose600 {
		t.Errorf("the password prompt's button is %s, want the agent's %s", got, rose600)
	}

	b.do("team chat", chromedp.Navigate(fmt.Sprintf("%s/teams/%d/chat", app.URL, team)), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	b.do("ask the fox", chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid=select-%d]`, fox))), chromedp.SendKeys(chromedp.CSS(`#query`), "tell me about dens\n"))
	b.waitFor("the fox's answer", `document.querySelector('[data-role=assistant][data-status=complete]')`)
	b.waitFor("settled", settled)
	b.do("ask the owl", chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid=select-%d]`, owl))), chromedp.SendKeys(chromedp.CSS(`#query`), "tell me about nests\n"))
	b.waitFor("the owl's answer", `document.querySelectorAll('[data-role=assistant][data-status=complete]').length === 2`)
	bubbles := b.eval(`[...document.querySelectorAll('[data-role=assistant] > .rounded-2xl')].map(e => getComputedStyle(e).backgroundColor).join(' / ')`)
	if want := sky50 + " / " + rose50; bubbles != want {
		t.Errorf("team answers' bubbles: %s, want %s (fox sky, owl rose)", bubbles, want)
	}
}
