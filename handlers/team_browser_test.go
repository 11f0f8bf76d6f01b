package handlers_test

import (
	"fmt"
	"testing"

	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// On a phone the team's member sidebar opens as an overlay from the pane header, so a member can
// be pinned there; the pinned member answers.
func TestBrowserTeamMembersCanBePinnedOnAPhone(t *testing.T) {
	app := handlerstest.Start(t)
	b := signInBrowser(t, app)
	ada := app.Client(t)
	ada.SignIn("ada@example.com", "correct horse")
	chef := createAgent(t, ada, agentForm("chef", "name", "Chef", "description", "Cooking and recipes."))
	gardener := createAgent(t, ada, agentForm("gardener", "name", "Gardener", "description", "Plants and the garden."))
	team := createTeam(t, ada, "House", "private", chef, gardener)
	b.do("open the team chat on a phone", chromedp.EmulateViewport(390, 800),
		chromedp.Navigate(fmt.Sprintf("%s/teams/%d/chat", app.URL, team)), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	if b.eval(`getComputedStyle(document.getElementById('team-members')).display`) != "none" {
		t.Fatal("the member sidebar covers the phone's chat before it is asked for")
	}
	b.do("open the members", chromedp.Click(chromedp.CSS(`[data-testid=team-toggle]`)))
	b.waitFor("the member overlay", `getComputedStyle(document.getElementById('team-members')).display !== 'none'`)
	handlerstest.Screenshot(t, b.ctx, "team-phone-members")
	b.do("tap beside it", chromedp.MouseClickXY(350, 400))
	b.waitFor("the overlay to close", `getComputedStyle(document.getElementById('team-members')).display === 'none'`)
	b.do("open the members again", chromedp.Click(chromedp.CSS(`[data-testid=team-toggle]`)))
	b.waitFor("the member overlay", `getComputedStyle(document.getElementById('team-members')).display !== 'none'`)
	b.do("pin the chef", chromedp.Click(chromedp.CSS(fmt.Sprintf(`[data-testid=select-%d]`, chef))))
	b.waitFor("the overlay to close after the pick", `getComputedStyle(document.getElementById('team-members')).display === 'none'`)
	b.do("ask about the garden", chromedp.SendKeys(chromedp.CSS(`#query`), "When do I prune roses in the garden?"), chromedp.Click(chromedp.CSS(`#send`)))
	b.waitFor("the answer", `document.querySelector('[data-role=assistant][data-status=complete]')`)
	var agentID int64
	_ = app.Store.DB.Get(&agentID, `SELECT agent_id FROM chat_message WHERE role = 'assistant' ORDER BY id DESC LIMIT 1`)
	if agentID != chef {
		t.Fatalf("answered by agent %d, want the pinned chef %d", agentID, chef)
	}
}
