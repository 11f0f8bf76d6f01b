package chat

import (
	"context"
	"encoding/json"
	"fmt"

	"parley/agents"
	"parley/db"
	"parley/fault"
	"parley/markdown"
	"parley/pages"
)

// pageSeen is the page a page assistant's answer works on, as it was when the answer started, and
// the proposal the answer made (at most one per answer).
type pageSeen struct {
	page     db.Page
	proposal *db.Proposal
	summary  string
}

// pageAssistantGuide is added to a page assistant's system prompt (Galaxy's prompt rules).
const pageAssistantGuide = `

You edit the markdown page shown below. To change it, call a tool; never paste the whole page in your answer:
- replace_entire_document for rewrites, restructuring, changes to more than about half of the page, or short pages (fewer than 3 sections) with a broad request;
- patch_section for one named section, an addition, edit or removal in one area, or "update / fix / add to" requests. When in doubt, prefer patch_section.
Make at most one proposal per answer, then say in one or two sentences what you proposed. The person reviews it as a diff and accepts or rejects it. Answer questions about the page conversationally, without a tool.`

// preparePage loads the exchange's page for the answer and points the request at it: the page in
// the system prompt (after agents.PageContentMarker) and the page tools.
func (g *Generator) preparePage(ctx context.Context, job *Job, req *agents.Request) error {
	p, err := g.Store.UserPage(ctx, job.UserID, job.PageID)
	if err != nil {
		return err
	}
	job.page = &pageSeen{page: p}
	if job.Agent.AgentType != "page_assistant" {
		return nil
	}
	title := p.Title
	if title == "" {
		title = "Untitled"
	}
	content := p.Content
	if content == "" {
		content = "(empty document)"
	}
	req.System += pageAssistantGuide + "\n\nThe page is titled " + fmt.Sprintf("%q.", title) + agents.PageContentMarker + content
	req.Tools = []agents.Tool{agents.ReplaceEntireDocumentTool, agents.PatchSectionTool}
	return nil
}

// propose turns a page tool call into a stored pending proposal on the answer, checked against
// the page the assistant saw. The output tells the model what happened (agents.ProposalResult).
func (g *Generator) propose(ctx context.Context, job Job, call agents.ToolCall) (string, bool) {
	out := func(r agents.ProposalResult) string { b, _ := json.Marshal(r); return string(b) }
	if job.page == nil {
		return out(agents.ProposalResult{Error: "this conversation is not about a page"}), false
	}
	if job.page.proposal != nil {
		return out(agents.ProposalResult{Error: "this answer already carries a proposal; make one proposal per answer"}), false
	}
	seen := job.page.page.Content
	var edit pages.Edit
	var err error
	switch call.Name {
	case agents.ReplaceEntireDocumentTool.Name:
		var args agents.ReplaceEntireDocumentArgs
		if err = json.Unmarshal([]byte(call.Arguments), &args); err == nil {
			edit, err = pages.NewFullReplacement(seen, args.Content, args.Reasoning)
		}
	default:
		var args agents.PatchSectionArgs
		if err = json.Unmarshal([]byte(call.Arguments), &args); err == nil {
			edit, err = pages.NewSectionPatch(seen, args.Operation, args.Target, args.NewContent, args.Reasoning)
		}
	}
	if err != nil {
		msg := "the arguments are not valid JSON"
		if f := fault.As(err); f != nil {
			msg = f.Message
		}
		return out(agents.ProposalResult{Error: msg}), false
	}
	p, err := g.Store.InsertProposal(ctx, db.NewProposal{
		PageID: job.PageID, MessageID: job.AnswerID, Kind: edit.Mode, BaseRevisionID: job.page.page.CurrentRevisionID,
		OriginalContentHash: markdown.ContentHash(seen), Body: edit.Marshal(), SupersedeTarget: edit.TargetKey,
	})
	if err != nil {
		g.Log.Error("storing proposal", "error", err)
		return out(agents.ProposalResult{Error: "the proposal could not be stored"}), false
	}
	job.page.proposal, job.page.summary = &p, edit.Summary()
	return out(agents.ProposalResult{ProposalID: p.ID, Summary: edit.Summary()}), true
}

// proposalMeta is what an answer's metadata says about its proposal (Galaxy's edit_mode plus the
// proposal row), or nil.
func (s *pageSeen) proposalMeta() map[string]any {
	if s == nil || s.proposal == nil {
		return nil
	}
	return map[string]any{"id": s.proposal.ID, "page_id": s.proposal.PageID, "edit_mode": s.proposal.Kind,
		"original_content_hash": s.proposal.OriginalContentHash}
}
