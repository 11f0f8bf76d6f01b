package agents

// The page assistant's tools (Galaxy's output functions). The caller executes them by storing a
// proposal for the person to review; the tool message's Content is a ProposalResult as JSON.
var (
	ReplaceEntireDocumentTool = Tool{
		Name: "replace_entire_document",
		Description: "Propose a new version of the whole page. Use for rewrites, restructuring, changes to more than about half " +
			"of the page, or short pages. The person reviews the diff and accepts or rejects it.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"content":   map[string]any{"type": "string", "description": "the complete new markdown document"},
				"reasoning": map[string]any{"type": "string", "description": "one or two sentences on what changed and why"},
			},
			"required": []string{"content"},
		},
	}
	PatchSectionTool = Tool{
		Name: "patch_section",
		Description: "Propose a change to one section of the page (a heading and everything under it, subsections included). " +
			"Prefer this when the request concerns one section. The person reviews the diff and accepts or rejects it.",
		Parameters: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"target_section_heading": map[string]any{"type": "string",
					"description": "the heading of the section to change, e.g. \"## Methods\" (\"\" for the text before the first heading); a heading that repeats is named by its parents, e.g. \"[1.7.0] - 2020-09-14 > Added\""},
				"new_section_content": map[string]any{"type": "string",
					"description": "the section's new markdown, heading line included (it may rename the heading); \"\" removes the section"},
				"operation": map[string]any{"type": "string", "enum": []string{"replace", "remove", "add"},
					"description": "replace (default) or remove the target section, or add new_section_content as a new section after it (at the end when the target is \"\")"},
				"reasoning": map[string]any{"type": "string", "description": "one or two sentences on what changed and why"},
			},
			"required": []string{"target_section_heading", "new_section_content"},
		},
	}
)

// ReplaceEntireDocumentArgs are the arguments of a replace_entire_document call.
type ReplaceEntireDocumentArgs struct {
	Content   string `json:"content"`
	Reasoning string `json:"reasoning"`
}

// PatchSectionArgs are the arguments of a patch_section call.
type PatchSectionArgs struct {
	Target     string `json:"target_section_heading"`
	NewContent string `json:"new_section_content"`
	Operation  string `json:"operation,omitempty"`
	Reasoning  string `json:"reasoning"`
}

// ProposalResult is the result of a page tool call: the stored proposal, or why none was stored
// (Error, fit to read for the model and the person).
type ProposalResult struct {
	ProposalID int64  `json:"proposal_id,omitempty"`
	Summary    string `json:"summary,omitempty"`
	Error      string `json:"error,omitempty"`
}

// PageContentMarker ends the page assistant's system prompt instructions; everything after it, to
// the end of the system prompt, is the page as it is now. The offline provider reads the page there.
const PageContentMarker = "\n\n=== The page as it is now (markdown, everything below this line) ===\n"
