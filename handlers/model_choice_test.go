package handlers_test

import (
	"fmt"
	"testing"

	"parley/handlers/handlerstest"
)

// The model picker lists only models that will be used: offline every answer comes from the
// offline provider, so an agent's allowed models are not offered; with a real model they are.
func TestModelPickerOnlyOffersModelsThatWillBeUsed(t *testing.T) {
	_, offline := signedIn(t)
	id := createAgent(t, offline, agentForm("owl", "model", "owl-large", "models", "owl-small\nowl-tiny"))
	if n := doc(t, offline.Get(fmt.Sprintf("/agents/%d/chat", id)).Body).Find(`[data-testid=model-select]`).Length(); n != 0 {
		t.Errorf("offline, the chat offers a model choice (%d pickers)", n)
	}

	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply { return handlerstest.Reply{Deltas: []string{"Hoot."}} })
	_, online := signedIn(t, handlerstest.WithUpstream(up))
	id = createAgent(t, online, agentForm("owl", "model", "owl-large", "models", "owl-small\nowl-tiny"))
	if n := doc(t, online.Get(fmt.Sprintf("/agents/%d/chat", id)).Body).Find(`[data-testid=model-select] option`).Length(); n != 3 {
		t.Errorf("with a model, the picker offers %d models, want 3", n)
	}
}
