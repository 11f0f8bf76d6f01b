package handlers_test

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"parley/handlers/handlerstest"
)

// A model-backed Markdown Assistant proposes through patch_section, its arguments streamed as
// tool-call deltas; it sees the current page and, on the next turn, the earlier turns.
func TestModelPatchSectionToolCallBecomesAProposal(t *testing.T) {
	args := `{"target_section_heading": "## Results", "new_section_content": "## Results\n\nModel results.\n"}`
	up := handlerstest.FakeOpenAI(t, func(call int64) handlerstest.Reply {
		switch call {
		case 1:
			return handlerstest.Reply{Finish: "tool_calls", ToolCalls: []handlerstest.ToolCallDelta{
				{Index: 0, ID: "call_1", Name: "patch_section", Args: args[:20]},
				{Index: 0, Args: args[20:50]},
				{Index: 0, Args: args[50:]},
			}}
		case 2:
			return handlerstest.Reply{Deltas: []string{"I rewrote ", "the Results section."}}
		default:
			return handlerstest.Reply{Deltas: []string{"It is about methods and results."}}
		}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	id := newPage(t, c, "Report", methodsPage)
	exchangeID, answer := askPage(t, app, c, id, "Improve the results")
	if answer.Content != "I rewrote the Results section." {
		t.Fatalf("answer = %q (%s)", answer.Content, answer.Metadata)
	}
	pid := proposalOf(t, answer)
	first := up.Requests()[0]
	for _, want := range []string{"Old results.", "patch_section", "replace_entire_document", "Improve the results"} {
		if !strings.Contains(first, want) {
			t.Errorf("the model's request lacks %q", want)
		}
	}
	if res := acceptAll(c, id, pid); res.Status != http.StatusOK {
		t.Fatalf("accept: %d %s", res.Status, res.Body)
	}
	want := strings.Replace(methodsPage, "Old results.", "Model results.", 1)
	if got := storedPage(t, app, id).Content; got != want {
		t.Fatalf("page = %q", got)
	}

	// The next turn: the model sees the earlier turn and the page as it is now.
	res := htmxPost(c, fmt.Sprintf("/pages/%d/chats/%d/messages", id, exchangeID), url.Values{"query": {"What is this page about?"}, "idempotency_key": {"second"}})
	if res.Status != http.StatusOK {
		t.Fatalf("follow-up: %d %s", res.Status, res.Body)
	}
	waitAnswer(t, app, exchangeID)
	reqs := up.Requests()
	body := reqs[len(reqs)-1]
	for _, want := range []string{"Improve the results", "I rewrote the Results section.", "Model results.", "What is this page about?"} {
		if !strings.Contains(body, want) {
			t.Errorf("the follow-up request lacks %q", want)
		}
	}
}

// A tool call the page cannot take (a heading that matches nothing) stores no proposal; the error
// goes back to the model, which answers.
func TestModelPatchOfAMissingSectionIsAnErrorForTheModel(t *testing.T) {
	up := handlerstest.FakeOpenAI(t, func(call int64) handlerstest.Reply {
		if call == 1 {
			return handlerstest.Reply{Finish: "tool_calls", ToolCalls: []handlerstest.ToolCallDelta{
				{Index: 0, ID: "call_1", Name: "patch_section", Args: `{"target_section_heading": "## Appendix", "new_section_content": "## Appendix\n\nx\n"}`},
			}}
		}
		return handlerstest.Reply{Deltas: []string{"There is no Appendix section."}}
	})
	app, c := signedIn(t, handlerstest.WithUpstream(up))
	id := newPage(t, c, "Report", methodsPage)
	_, answer := askPage(t, app, c, id, "Fix the appendix")
	if n := count(t, app, "page_edit_proposal"); n != 0 {
		t.Fatalf("%d proposals stored", n)
	}
	reqs := up.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1], `no section is called`) || !strings.Contains(reqs[1], "## Methods") {
		t.Fatalf("the tool error did not reach the model: %v", reqs)
	}
	if answer.Content != "There is no Appendix section." {
		t.Fatalf("answer = %q", answer.Content)
	}
}
