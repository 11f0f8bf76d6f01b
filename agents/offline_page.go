package agents

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"parley/markdown"
)

// The offline page assistant: when the request offers PatchSectionTool, the offline provider reads
// the page after PageContentMarker in the system prompt and turns plain commands into the same tool
// calls a model would make (see offlinePageReply). Anything else gets the list of commands.

// pageCommand is one plain command: its pattern and what it proposes for the page.
type pageCommand struct {
	re      *regexp.Regexp
	propose func(page string, m []string) offlineReply
}

var pageCommands = []pageCommand{
	{regexp.MustCompile(`(?is)^(?:please\s+)?(?:add|insert|create|generate)\s+(?:a\s+)?(?:table\s+of\s+contents|toc)\b.*$`), proposeTOC},
	{regexp.MustCompile(`(?is)^(?:please\s+)?(?:rewrite|replace|redo)\s+(?:the\s+)?(?:whole\s+|entire\s+)?(?:page|document)\s+(?:as|with|to\s+read|to)\s*:?\s*(.+)$`), proposeRewrite},
	{regexp.MustCompile(`(?is)^(?:please\s+)?rename\s+(?:the\s+)?(?:section|heading)\s+(.+?)\s+(?:to|as)\s+(.+)$`), proposeRename},
	{regexp.MustCompile(`(?is)^(?:please\s+)?replace\s+(?:the\s+)?(?:section|heading)\s+(.+?)\s+with\s*:?\s*(.+)$`), proposeReplaceSection},
	{regexp.MustCompile(`(?is)^(?:please\s+)?(?:append|add)\s+to\s+(?:the\s+)?(?:end\s+of\s+)?(?:the\s+)?section\s+(.+?)\s*:\s*(.+)$`), proposeAppendTo},
	{regexp.MustCompile(`(?is)^(?:please\s+)?(?:append|add)\s+(.+?)\s+to\s+(?:the\s+)?(?:end\s+of\s+)?(?:the\s+)?section\s+(.+)$`), proposeAppend},
	{regexp.MustCompile(`(?is)^(?:please\s+)?(?:remove|delete|drop)\s+(?:the\s+)?(?:section|heading)\s+(.+)$`), proposeRemove},
	{regexp.MustCompile(`(?is)^(?:please\s+)?(?:add|create|insert)\s+(?:a\s+)?(?:new\s+)?section\s+(?:called\s+|named\s+|titled\s+)?(.+?)(?:\s+with\s*:?\s*(.+))?$`), proposeAddSection},
	{regexp.MustCompile(`(?is)^(?:please\s+)?replace\s+(?:all\s+|every\s+)?(.+?)\s+(?:with|by)\s+(.+?)\s+everywhere\.?$`), proposeReplaceAll},
	{regexp.MustCompile(`(?is)^(?:please\s+)?replace\s+(?:all|every)\s+(.+?)\s+(?:with|by)\s+(.+?)\.?$`), proposeReplaceAll},
}

// offlinePageReply answers a page assistant request: a proposal tool call for a command, an
// answer about the tool's result, or the list of commands.
func offlinePageReply(req Request) offlineReply {
	page := pageOf(req.System)
	last := req.Messages[len(req.Messages)-1]
	if last.Role == RoleTool {
		var res ProposalResult
		if err := json.Unmarshal([]byte(last.Content), &res); err != nil || res.Error != "" {
			msg := res.Error
			if msg == "" {
				msg = "the proposal could not be stored"
			}
			return offlineReply{text: "I couldn't prepare that edit: " + msg + "."}
		}
		return offlineReply{text: "I've prepared " + res.Summary + ". Review the diff below, then **Accept** or **Reject** it."}
	}
	if last.Role != RoleUser {
		return offlineReply{text: offlinePageHelp(page, "")}
	}
	text := strings.TrimSpace(last.Content)
	for _, c := range pageCommands {
		if m := c.re.FindStringSubmatch(text); m != nil {
			return c.propose(page, m)
		}
	}
	return offlineReply{text: offlinePageHelp(page, "")}
}

// pageOf returns the page after PageContentMarker in the system prompt ("" when absent).
func pageOf(system string) string {
	_, page, _ := strings.Cut(system, PageContentMarker)
	return page
}

func offlinePageHelp(page, problem string) string {
	var b strings.Builder
	if problem != "" {
		b.WriteString(problem + "\n\n")
	}
	b.WriteString("I'm the Markdown Assistant running offline (no language model is connected), so I understand plain commands like these:\n\n" +
		"- `rename section Methods to Materials and methods`\n" +
		"- `replace section Methods with <new text>`\n" +
		"- `append <text> to section Methods`\n" +
		"- `remove section Methods`\n" +
		"- `replace section Results > Notes with <new text>` (a heading that repeats, named by its parent)\n" +
		"- `add a section \"Results\" with <text>`\n" +
		"- `replace \"colour\" with \"color\" everywhere`\n" +
		"- `rewrite the page as <new text>`\n" +
		"- `add a table of contents`\n")
	if heads := headingNames(page); heads != "" {
		b.WriteString("\nThe page's sections: " + heads + ".\n")
	}
	b.WriteString("\n" + offlineConnectHint)
	return b.String()
}

func headingNames(page string) string {
	o := markdown.Split(page)
	var names []string
	for i, s := range o.Sections {
		if i == 20 {
			names = append(names, "…")
			break
		}
		names = append(names, "**"+escapeMarkdown(s.Title)+"**")
	}
	return strings.Join(names, ", ")
}

// unquoteName trims a section name or search text: space, a final period, surrounding quotes.
func unquoteName(s string) string {
	return unquote(strings.TrimSuffix(strings.TrimSpace(s), "."))
}

// unquote trims space and surrounding quotes from a command argument.
func unquote(s string) string {
	s = strings.TrimSpace(s)
	for _, q := range [][2]string{{`"`, `"`}, {"“", "”"}, {"'", "'"}, {"`", "`"}, {"«", "»"}} {
		if len(s) >= len(q[0])+len(q[1]) && strings.HasPrefix(s, q[0]) && strings.HasSuffix(s, q[1]) {
			return s[len(q[0]) : len(s)-len(q[1])]
		}
	}
	return s
}

// findSection resolves a section a person named (a heading, or a parent path "A > B"), or returns
// the reply explaining the problem.
func findSection(page, name string) (markdown.Outline, int, *offlineReply) {
	o := markdown.Split(page)
	i, err := o.Find(name)
	if err == nil && i < 0 {
		err = &markdown.SectionError{Op: "find", Target: name, Err: markdown.ErrSectionNotFound}
	}
	if err != nil {
		return o, 0, &offlineReply{text: offlinePageHelp(page, sectionProblem(o, name, err))}
	}
	return o, i, nil
}

// sectionProblem says in plain words why a section operation on the section named name failed,
// so a writer never reads the section engine's own error.
func sectionProblem(o markdown.Outline, name string, err error) string {
	var se *markdown.SectionError
	errors.As(err, &se)
	switch {
	case errors.Is(err, markdown.ErrSectionAmbiguous) && se != nil:
		return escapeMarkdown(se.Ambiguity()) + "."
	case errors.Is(err, markdown.ErrSectionNotFound):
		return notFound(o, name)
	case errors.Is(err, markdown.ErrEmptyTitle):
		return "Give the section its new title, e.g. `rename section Methods to Materials and methods`."
	case errors.Is(err, markdown.ErrNoHeading):
		return "A new section must start with a heading line."
	case errors.Is(err, markdown.ErrContentSpills):
		return "That text would change the sections around it (an unclosed code fence or HTML block?), so I left the page as it is."
	}
	return "I couldn't make that change to the section **" + escapeMarkdown(name) + "**."
}

// notFound explains a name that matches no section; for a parent path it says which part is
// missing: the section itself, or the parent it was looked for under.
func notFound(o markdown.Outline, name string) string {
	parts := strings.Split(name, ">")
	if len(parts) < 2 {
		return fmt.Sprintf("I couldn't find a section called **%s**.", escapeMarkdown(name))
	}
	title := strings.TrimSpace(strings.Trim(strings.TrimSpace(parts[len(parts)-1]), "#"))
	parent := strings.TrimSpace(strings.Join(parts[:len(parts)-1], ">"))
	var under []string
	for i, s := range o.Sections {
		if strings.EqualFold(s.Title, title) {
			where := "the top level"
			if p := o.Parents(i); len(p) > 0 {
				where = "**" + escapeMarkdown(strings.Join(p, " > ")) + "**"
			}
			if !slices.Contains(under, where) {
				under = append(under, where)
			}
		}
	}
	if len(under) == 0 {
		return fmt.Sprintf("I couldn't find a section called **%s** (looked for under **%s**).", escapeMarkdown(title), escapeMarkdown(parent))
	}
	return fmt.Sprintf("No section **%s** is under **%s**; there is one under %s.", escapeMarkdown(title), escapeMarkdown(parent), strings.Join(under, ", "))
}

func patchCall(reasoning string, args PatchSectionArgs) offlineReply {
	args.Reasoning = reasoning
	b, _ := json.Marshal(args)
	return offlineReply{reasoning: reasoning, call: &ToolCall{Name: PatchSectionTool.Name, Arguments: string(b)}}
}

func replaceCall(reasoning, content string) offlineReply {
	b, _ := json.Marshal(ReplaceEntireDocumentArgs{Content: content, Reasoning: reasoning})
	return offlineReply{reasoning: reasoning, call: &ToolCall{Name: ReplaceEntireDocumentTool.Name, Arguments: string(b)}}
}

func proposeRename(page string, m []string) offlineReply {
	name, title := unquoteName(m[1]), unquoteName(m[2])
	o, i, fail := findSection(page, name)
	if fail != nil {
		return *fail
	}
	target := o.Target(i)
	renamed, err := markdown.RenameSection(page, target, title)
	if err != nil {
		return offlineReply{text: offlinePageHelp(page, "I couldn't rename it. "+sectionProblem(o, name, err))}
	}
	return patchCall(fmt.Sprintf("Rename the section %q to %q.", o.Sections[i].Title, title),
		PatchSectionArgs{Target: target, NewContent: markdown.Split(renamed).Content(i)})
}

func proposeReplaceSection(page string, m []string) offlineReply {
	o, i, fail := findSection(page, unquoteName(m[1]))
	if fail != nil {
		return *fail
	}
	s := o.Sections[i]
	text := unquote(m[2])
	if !markdown.StartsWithHeading(text) {
		// Keep the heading and the blank lines that separated it from its text.
		body := strings.TrimLeft(s.Body, "\r\n")
		text = s.Heading + s.Body[:len(s.Body)-len(body)] + text
	}
	return patchCall(fmt.Sprintf("Replace the text of the section %q.", s.Title),
		PatchSectionArgs{Target: o.Target(i), NewContent: text})
}

func proposeAppendTo(page string, m []string) offlineReply {
	return appendTo(page, unquoteName(m[1]), unquote(m[2]))
}

func proposeAppend(page string, m []string) offlineReply {
	return appendTo(page, unquoteName(m[2]), unquote(m[1]))
}

func appendTo(page, name, text string) offlineReply {
	o, i, fail := findSection(page, name)
	if fail != nil {
		return *fail
	}
	target := o.Target(i)
	doc, err := markdown.AppendToSection(page, target, text)
	if err != nil {
		return offlineReply{text: offlinePageHelp(page, "I couldn't append that. "+sectionProblem(o, name, err))}
	}
	return patchCall(fmt.Sprintf("Append text to the section %q.", o.Sections[i].Title),
		PatchSectionArgs{Target: target, NewContent: markdown.Split(doc).Content(i)})
}

func proposeRemove(page string, m []string) offlineReply {
	name := unquoteName(strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(m[1]), "."), " section"))
	o, i, fail := findSection(page, name)
	if fail != nil {
		return *fail
	}
	return patchCall(fmt.Sprintf("Remove the section %q with its subsections.", o.Sections[i].Title),
		PatchSectionArgs{Target: o.Target(i), Operation: "remove"})
}

func proposeAddSection(page string, m []string) offlineReply {
	title := strings.Join(strings.Fields(unquoteName(m[1])), " ") // a heading is one line
	body := unquote(m[2])
	if title == "" {
		return offlineReply{text: offlinePageHelp(page, "Give the new section a title, e.g. `add a section \"Results\" with …`.")}
	}
	content := strings.Repeat("#", sectionLevel(page)) + " " + title + "\n"
	if body != "" {
		content += "\n" + body + "\n"
	}
	return patchCall(fmt.Sprintf("Add a section %q at the end of the page.", title),
		PatchSectionArgs{Target: "", NewContent: content, Operation: "add"})
}

// sectionLevel is the level new sections take: 2 under a single H1 title, else the top level used.
func sectionLevel(page string) int {
	o := markdown.Split(page)
	if len(o.Sections) == 0 {
		return 2
	}
	h1, low := 0, 6
	for _, s := range o.Sections {
		if s.Level == 1 {
			h1++
		}
		low = min(low, s.Level)
	}
	if h1 == 1 && len(o.Sections) > 1 {
		return 2
	}
	return low
}

func proposeReplaceAll(page string, m []string) offlineReply {
	from, to := unquoteName(m[1]), unquoteName(m[2])
	n := strings.Count(page, from)
	if from == "" || n == 0 {
		return offlineReply{text: offlinePageHelp(page, fmt.Sprintf("I couldn't find **%s** in the page, so there is nothing to replace.", escapeMarkdown(from)))}
	}
	times := "once"
	if n > 1 {
		times = strconv.Itoa(n) + " times"
	}
	return replaceCall(fmt.Sprintf("Replace %q with %q everywhere (%s).", from, to, times), strings.ReplaceAll(page, from, to))
}

func proposeRewrite(page string, m []string) offlineReply {
	content := strings.TrimSpace(m[1])
	if len(content) >= 2 && strings.HasPrefix(content, `"`) && strings.HasSuffix(content, `"`) {
		content = content[1 : len(content)-1]
	}
	eol := markdown.LineEnding(page)
	content = markdown.NormalizeLineEndings(content, eol)
	if !strings.HasSuffix(content, eol) {
		content += eol
	}
	return replaceCall("Rewrite the whole page with the given text.", content)
}

// proposeTOC inserts a table of contents (links to every heading) after the page's title heading,
// or before the first heading when the page has no single H1.
func proposeTOC(page string, _ []string) offlineReply {
	o := markdown.Split(page)
	if len(o.Sections) == 0 {
		return offlineReply{text: offlinePageHelp(page, "The page has no headings, so a table of contents would be empty.")}
	}
	for _, s := range o.Sections {
		t := strings.ToLower(s.Title)
		if t == "table of contents" || t == "contents" {
			return offlineReply{text: offlinePageHelp(page, "The page already has a **"+escapeMarkdown(s.Title)+"** section.")}
		}
	}
	eol := markdown.LineEnding(page)
	first := o.Sections[0]
	titled := first.Level == 1 && sectionLevel(page) == 2
	listed := o.Sections
	at := first.Start
	if titled {
		listed = o.Sections[1:]
		at = first.Start + len(first.Heading) + len(first.Body)
	}
	if len(listed) == 0 {
		return offlineReply{text: offlinePageHelp(page, "The page has only its title heading, so a table of contents would be empty.")}
	}
	low := 6
	for _, s := range listed {
		low = min(low, s.Level)
	}
	// The links are the ids the page's headings get when shown, counted over the page as it will
	// read: the title heading, this list's own heading, then the listed ones.
	var titles []string
	if titled {
		titles = append(titles, first.Title)
	}
	titles = append(titles, "Table of contents")
	for _, s := range listed {
		titles = append(titles, s.Title)
	}
	ids := markdown.HeadingIDs(titles)[len(titles)-len(listed):]
	var toc strings.Builder
	toc.WriteString(strings.Repeat("#", max(low, 2)) + " Table of contents" + eol + eol)
	for i, s := range listed {
		toc.WriteString(strings.Repeat("  ", s.Level-low) + "- [" + s.Title + "](#" + ids[i] + ")" + eol)
	}
	toc.WriteString(eol)
	before := page[:at]
	if before != "" && !strings.HasSuffix(before, "\n") && !strings.HasSuffix(before, "\r") {
		before += eol
	}
	if before != "" && !endsWithBlankLine(before) {
		before += eol
	}
	return replaceCall("Add a table of contents linking to every section.", before+toc.String()+page[at:])
}

func endsWithBlankLine(s string) bool {
	t := strings.TrimRight(s, " \t")
	return strings.HasSuffix(t, "\n\n") || strings.HasSuffix(t, "\r\n\r\n") || strings.HasSuffix(t, "\r\r")
}
