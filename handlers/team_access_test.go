package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"parley/handlers/handlerstest"
)

// teamPeople starts Parley with an admin, bob (who owns agents) and mallory (who does not).
func teamPeople(t *testing.T) (app *handlerstest.App, bob, mallory *handlerstest.Client) {
	t.Helper()
	app = handlerstest.Start(t)
	app.Client(t).SignUp("admin@example.com", "correct horse")
	bob = app.Client(t)
	bob.SignUp("bob@example.com", "correct horse")
	mallory = app.Client(t)
	mallory.SignUp("mallory@example.com", "correct horse")
	return app, bob, mallory
}

// A team may hold only agents its owner may use without a password: another user's
// password-protected agent is refused.
func TestTeamCannotHoldAnotherUsersPasswordAgent(t *testing.T) {
	_, bob, mallory := teamPeople(t)
	vault := createAgent(t, bob, agentForm("vault", "password", "open sesame"))
	res := mallory.PostForm("/teams", url.Values{"name": {"Heist"}, "visibility": {"private"}, fmt.Sprintf("position_%d", vault): {"1"}})
	if res.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a team with another user's password-protected agent: %d, want 422", res.Status)
	}
	if doc(t, mallory.Get("/teams/new").Body).Find(`[data-testid=position-vault]`).Length() != 0 {
		t.Fatal("the team form offers another user's password-protected agent")
	}
	createTeam(t, bob, "Own", "private", vault) // the owner may
}

// Each team turn and the team page check the viewer's access to every member again: an agent
// that got a password or went private after joining is neither listed nor answering, pinned or
// routed; a bad pin is 422 and keeps the typed text.
func TestTeamTurnsRecheckMemberAccess(t *testing.T) {
	app, bob, mallory := teamPeople(t)
	owl := createAgent(t, bob, agentForm("owl", "name", "Owl", "description", "Birds and the night sky."))
	cat := createAgent(t, bob, agentForm("cat", "name", "Cat", "description", "Cats, mice and naps."))
	team := createTeam(t, mallory, "Zoo", "private", owl, cat)
	bob.PostForm(fmt.Sprintf("/agents/%d", owl), agentForm("owl", "name", "Owl", "description", "Birds and the night sky.", "password", "hoot"))

	d := doc(t, mallory.Get(fmt.Sprintf("/teams/%d/chat", team)).Body)
	if d.Find(fmt.Sprintf(`[data-testid=select-%d]`, owl)).Length() != 0 || d.Find(fmt.Sprintf(`[data-testid=select-%d]`, cat)).Length() != 1 {
		t.Fatal("the team page lists a member that is now password protected")
	}
	post := fmt.Sprintf("/teams/%d/messages", team)
	for _, pin := range []string{fmt.Sprint(owl), "999999", "abc"} {
		res := htmxPost(mallory, post, url.Values{"query": {"Tell me about night birds"}, "idempotency_key": {"p" + pin}, "select_agent": {pin}})
		if res.Status != http.StatusUnprocessableEntity || doc(t, res.Body).Find(`textarea[name=query]`).Text() != "Tell me about night birds" {
			t.Fatalf("pin %s: %d, want 422 keeping the text\n%s", pin, res.Status, res.Body)
		}
	}
	res := htmxPost(mallory, post, url.Values{"query": {"Tell me about night birds"}, "idempotency_key": {"auto1"}, "select_agent": {"0"}})
	m := waitAnswer(t, app, exchangeFromPush(t, res))
	if m.AgentID == nil || *m.AgentID != cat {
		t.Fatalf("Auto routed to %v; only the cat (%d) is usable", m.AgentID, cat)
	}

	bob.PostForm(fmt.Sprintf("/agents/%d", cat), agentForm("cat", "name", "Cat", "visibility", "private"))
	res = htmxPost(mallory, post, url.Values{"query": {"naps?"}, "idempotency_key": {"auto2"}})
	if res.Status != http.StatusConflict {
		t.Fatalf("a team whose members are all out of reach: %d, want 409", res.Status)
	}
}

// A public team holding its owner's private agent does not expose that agent to others.
func TestPublicTeamHidesItsOwnersPrivateAgent(t *testing.T) {
	app, bob, mallory := teamPeople(t)
	secret := createAgent(t, bob, agentForm("secret", "name", "Secret", "visibility", "private", "description", "Private diary."))
	open := createAgent(t, bob, agentForm("open", "name", "Open", "description", "Public help."))
	team := createTeam(t, bob, "Mixed", "public", secret, open)
	d := doc(t, mallory.Get(fmt.Sprintf("/teams/%d/chat", team)).Body)
	if d.Find(fmt.Sprintf(`[data-testid=select-%d]`, secret)).Length() != 0 {
		t.Fatal("another user sees the owner's private member")
	}
	if list := doc(t, mallory.Get("/teams").Body).Find(fmt.Sprintf(`[data-team="%d"]`, team)).Text(); !strings.Contains(list, "Open") || strings.Contains(list, "Secret") {
		t.Fatalf("the team list shows another user's members %q; want the public one only", list)
	}
	res := htmxPost(mallory, fmt.Sprintf("/teams/%d/messages", team), url.Values{"query": {"my private diary"}, "idempotency_key": {"s1"}})
	if m := waitAnswer(t, app, exchangeFromPush(t, res)); m.AgentID == nil || *m.AgentID != open {
		t.Fatalf("answered by %v, want the public member %d", m.AgentID, open)
	}
}
