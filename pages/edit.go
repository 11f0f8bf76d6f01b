package pages

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"parley/fault"
	"parley/markdown"
)

// Edit kinds (SPEC.md §2 "proposal").
const (
	FullReplacement = "full_replacement"
	SectionPatch    = "section_patch"
)

// Section patch operations.
const (
	OpReplace = "replace" // the target section (with its subsections) becomes NewContent
	OpRemove  = "remove"  // the target section (with its subsections) goes
	OpAdd     = "add"     // NewContent, a new section, goes after the target, or at the end when Target is ""
)

// Edit is a proposal's body, stored as JSON in page_edit_proposal.proposal. Field names follow
// Galaxy's agent metadata (edit_mode, target_section_heading, new_section_content).
type Edit struct {
	Mode      string `json:"edit_mode"`
	Reasoning string `json:"reasoning,omitempty"`
	// Full replacement: the proposed document and the document the assistant saw (for the
	// three-way merge when the page changed since).
	Content     string `json:"content,omitempty"`
	BaseContent string `json:"base_content,omitempty"`
	// Section patch.
	Operation  string `json:"operation,omitempty"`
	Target     string `json:"target_section_heading,omitempty"`
	NewContent string `json:"new_section_content,omitempty"`
	// TargetHash is the djb2 hash of the target section (subsections included) the assistant saw;
	// the patch applies while the current section still hashes the same.
	TargetHash string `json:"target_hash,omitempty"`
	// TargetKey is the target's comparable title (lower case, no marks; with its parents' titles,
	// "1.7.0 > added", when the title is not unique), so a newer patch of the same section
	// supersedes an older one; "*" for a full replacement.
	TargetKey string `json:"target_key"`
}

// Bounds of what an assistant may propose.
const (
	// MaxContentBytes bounds a page and any proposed content (1 MB, leaving room in a 1 MiB
	// request for the rest of the form).
	MaxContentBytes = 1_000_000
	maxReasoning    = 4000
)

// NewFullReplacement checks a proposed whole document against the page the assistant saw.
// Errors (fault.Invalid, fit to send back to the model): empty, too large, invalid UTF-8, or
// identical to the page.
func NewFullReplacement(seen, content, reasoning string) (Edit, error) {
	if err := checkText("content", content); err != nil {
		return Edit{}, err
	}
	if strings.TrimSpace(content) == "" {
		return Edit{}, fault.Field("content", "the new document is empty")
	}
	if content == seen {
		return Edit{}, fault.Field("content", "the new document is the same as the current page")
	}
	return Edit{Mode: FullReplacement, Reasoning: clip(reasoning), Content: content, BaseContent: seen, TargetKey: "*"}, nil
}

// NewSectionPatch checks a section patch against the page the assistant saw and records the target
// section's hash. op "" is OpReplace, and an OpReplace whose newContent is blank is an OpRemove.
// Errors (fault.Invalid, fit to send back to the model): unknown op, bad text, a target that
// matches no section or several, new content without a heading for OpAdd, or a patch that changes
// nothing or breaks the sections around it.
func NewSectionPatch(seen, op, target, newContent, reasoning string) (Edit, error) {
	if op == "" {
		op = OpReplace
	}
	if op == OpReplace && strings.TrimSpace(newContent) == "" {
		op = OpRemove
		newContent = ""
	}
	if op != OpReplace && op != OpRemove && op != OpAdd {
		return Edit{}, fault.Field("operation", fmt.Sprintf("unknown operation %q (use replace, remove or add)", op))
	}
	if err := checkText("new_section_content", newContent); err != nil {
		return Edit{}, err
	}
	if len(target) > 1000 {
		return Edit{}, fault.Field("target_section_heading", "the target heading is too long")
	}
	e := Edit{Mode: SectionPatch, Reasoning: clip(reasoning), Operation: op, Target: strings.TrimSpace(target), NewContent: newContent}
	o := markdown.Split(seen)
	if op != OpAdd || e.Target != "" {
		i, err := o.Find(e.Target)
		if err != nil {
			return Edit{}, sectionFault(err, o)
		}
		e.TargetHash = markdown.ContentHash(o.Content(i))
		e.TargetKey = targetKey(o, i)
	}
	if op == OpAdd {
		e.TargetKey = "+" + e.TargetKey
	}
	proposed, err := e.patch(seen)
	if err != nil {
		return Edit{}, sectionFault(err, o)
	}
	if proposed == seen {
		return Edit{}, fault.Field("new_section_content", "the patch changes nothing")
	}
	return e, nil
}

// patch applies a section patch to doc with the section engine.
func (e Edit) patch(doc string) (string, error) {
	switch e.Operation {
	case OpRemove:
		return markdown.RemoveSection(doc, e.Target)
	case OpAdd:
		if e.Target == "" {
			return markdown.AppendSection(doc, e.NewContent)
		}
		return markdown.InsertSection(doc, e.Target, e.NewContent)
	default:
		return markdown.ReplaceSection(doc, e.Target, e.NewContent)
	}
}

// Marshal is the JSON stored for the edit.
func (e Edit) Marshal() json.RawMessage {
	b, _ := json.Marshal(e)
	return b
}

// ParseEdit reads a stored edit.
func ParseEdit(body []byte) (Edit, error) {
	var e Edit
	if err := json.Unmarshal(body, &e); err != nil {
		return e, fmt.Errorf("pages: stored proposal: %w", err)
	}
	return e, nil
}

// Summary is one line saying what the edit does, for the answer and the proposal header.
func (e Edit) Summary() string {
	switch {
	case e.Mode == FullReplacement:
		return "a full rewrite of the page"
	case e.Operation == OpRemove:
		return fmt.Sprintf("removing the section %q", e.Target)
	case e.Operation == OpAdd && e.Target == "":
		return "a new section at the end"
	case e.Operation == OpAdd:
		return fmt.Sprintf("a new section after %q", e.Target)
	case e.Target == "":
		return "an edit to the text before the first heading"
	default:
		return fmt.Sprintf("an edit to the section %q", e.Target)
	}
}

func targetKey(o markdown.Outline, i int) string {
	if i < 0 {
		return "(preamble)"
	}
	title := o.Sections[i].Title
	for j, s := range o.Sections {
		if j != i && strings.EqualFold(s.Title, title) {
			// A duplicated title ("Added" under every release) is keyed by its parents too, so a
			// patch of one release's "Added" never supersedes another's.
			return strings.ToLower(strings.Join(append(o.Parents(i), title), " > "))
		}
	}
	return strings.ToLower(title)
}

// sectionFault explains a section engine error, listing the headings when the target was not found.
func sectionFault(err error, o markdown.Outline) error {
	var se *markdown.SectionError
	if !errors.As(err, &se) {
		return err
	}
	switch {
	case errors.Is(err, markdown.ErrSectionNotFound):
		return fault.Field("target_section_heading", fmt.Sprintf("no section is called %q; the headings are: %s", se.Target, headingList(o)))
	case errors.Is(err, markdown.ErrSectionAmbiguous):
		return fault.Field("target_section_heading", se.Ambiguity())
	case errors.Is(err, markdown.ErrNoHeading):
		return fault.Field("new_section_content", "a new section must start with a heading line")
	case errors.Is(err, markdown.ErrContentSpills):
		return fault.Field("new_section_content", "the new text would change the sections around it (an unclosed code fence?)")
	case errors.Is(err, markdown.ErrEmptyTitle):
		return fault.Field("new_section_content", "the new heading has no title")
	}
	return fault.Field("target_section_heading", fmt.Sprintf("the section %q cannot be changed that way", se.Target))
}

// headingList names the headings of o for an error message (at most 30).
func headingList(o markdown.Outline) string {
	if len(o.Sections) == 0 {
		return "(the page has no headings)"
	}
	var names []string
	for i, s := range o.Sections {
		if i == 30 {
			names = append(names, "…")
			break
		}
		names = append(names, strings.Repeat("#", s.Level)+" "+s.Title)
	}
	return strings.Join(names, "; ")
}

// CheckContent validates page content a person saves: at most MaxContentBytes of valid UTF-8
// without NUL bytes. Errors are fault.Invalid (too large: fault.TooLarge).
func CheckContent(content string) error { return checkText("content", content) }

func checkText(field, s string) error {
	if len(s) > MaxContentBytes {
		return &fault.Error{Code: fault.TooLarge, Field: field, Message: "The text is larger than 1 MB."}
	}
	if !utf8.ValidString(s) {
		return fault.Field(field, "The text is not valid UTF-8.")
	}
	if strings.ContainsRune(s, 0) {
		return fault.Field(field, "The text contains a NUL character.")
	}
	return nil
}

func clip(s string) string {
	if len(s) <= maxReasoning {
		return s
	}
	return strings.ToValidUTF8(s[:maxReasoning], "") + "…"
}

// Place is where a new section can go: after the section Target names ("" is the end of the page).
type Place struct {
	Target string
	Label  string
}

// maxPlaces bounds the places offered for a new section.
const maxPlaces = 100

// Places lists where the new section of an OpAdd patch can go in current: at the end, or after
// any section whose heading names it alone. Nil for other edits.
func (e Edit) Places(current string) []Place {
	if e.Mode != SectionPatch || e.Operation != OpAdd {
		return nil
	}
	o := markdown.Split(current)
	places := []Place{{Target: "", Label: "at the end"}}
	for i, s := range o.Sections {
		if len(places) == maxPlaces {
			break
		}
		t := strings.Repeat("#", s.Level) + " " + s.Title
		if j, err := o.Find(t); err == nil && j == i {
			places = append(places, Place{Target: t, Label: "after " + t})
		}
	}
	return places
}

// At returns the edit with its new section placed after target ("" for the end). It is a
// fault.Invalid error (field "place") when the edit adds no section, or target is not one of its
// Places in current.
func (e Edit) At(current, target string) (Edit, error) {
	places := e.Places(current)
	if places == nil {
		return e, fault.Field("place", "This proposal does not add a section, so it takes no place.")
	}
	for _, p := range places {
		if p.Target == target {
			e.Target = target
			return e, nil
		}
	}
	return e, fault.Field("place", "There is no place "+strconv.Quote(target)+" for the new section; pick one from the list.")
}
