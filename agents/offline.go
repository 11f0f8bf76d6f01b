package agents

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Offline is the built-in provider, used when no model is configured and by tests. It is
// deterministic and honest about being offline, yet behaves like a model, so the same agent loop
// drives it:
//
//   - last message a user question or a request to find something, and SearchWorkspaceTool offered
//     in Request.Tools: a short reasoning, then a search_workspace call whose arguments are
//     {"query": "<keywords>"}, finish reason "tool_calls";
//   - last message a tool result (SearchResults JSON): a markdown answer listing what was found as
//     links, or saying nothing was found, with what it can do and how to connect a model;
//   - anything else (greetings, statements, a question with nothing to search for): a direct answer
//     saying it is the offline assistant and what it can do.
//
// Text is streamed word by word with Delay between words; usage counts words as tokens; answers
// finish with "stop".
type Offline struct {
	Delay time.Duration
}

// NewOffline returns the offline provider with delay between streamed words.
func NewOffline(delay time.Duration) *Offline { return &Offline{Delay: delay} }

// Name returns "offline".
func (o *Offline) Name() string { return "offline" }

// Model returns "offline".
func (o *Offline) Model() string { return "offline" }

// SearchWorkspaceTool searches the person's pages and conversations. The caller executes it: the
// arguments are a SearchWorkspaceArgs, the tool message's Content a SearchResults as JSON.
var SearchWorkspaceTool = Tool{
	Name:        "search_workspace",
	Description: "Search the person's pages and conversations by keywords. Returns {\"results\":[{\"title\",\"url\",\"snippet\",\"kind\":\"page\"|\"conversation\"}]}.",
	Parameters: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"query": map[string]any{"type": "string", "description": "keywords to look for"},
		},
		"required": []string{"query"},
	},
}

// SearchWorkspaceArgs are the arguments of a search_workspace call.
type SearchWorkspaceArgs struct {
	Query string `json:"query"`
}

// SearchResults is the result of a search_workspace call, sent back as the tool message's Content.
type SearchResults struct {
	Results []SearchResult `json:"results"`
}

// SearchResult is one match. URL is the in-app link; Kind is "page" or "conversation".
type SearchResult struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
	Kind    string `json:"kind"`
}

// offlineReply is what the offline provider decided to say.
type offlineReply struct {
	reasoning string
	text      string
	call      *ToolCall
}

// Stream implements Provider.
func (o *Offline) Stream(ctx context.Context, req Request, emit func(Event) error) (Result, error) {
	a := newAssembler(emit)
	reply := offlineReplyTo(req)
	if reply.call != nil {
		reply.call.ID = "call_offline_" + strconv.Itoa(len(req.Messages))
	}
	first := true
	say := func(text string, send func(string) error) error {
		for _, word := range splitWords(text) {
			if !first {
				if err := o.pause(ctx); err != nil {
					return err
				}
			}
			first = false
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := send(word); err != nil {
				return err
			}
		}
		return nil
	}
	if err := say(reply.reasoning, a.think); err != nil {
		return a.stop(ctx, nil, err)
	}
	if err := say(reply.text, a.text); err != nil {
		return a.stop(ctx, nil, err)
	}
	finish := "stop"
	if reply.call != nil {
		finish = "tool_calls"
		c, err := a.openCall(-1, reply.call.ID, reply.call.Name)
		if err != nil {
			return a.result()
		}
		if err := a.toolArgs(c, reply.call.Arguments); err != nil {
			return a.result()
		}
	}
	prompt := wordCount(req.System)
	for _, m := range req.Messages {
		prompt += wordCount(m.Content)
	}
	completion := wordCount(reply.reasoning) + wordCount(reply.text)
	if reply.call != nil {
		completion += wordCount(reply.call.Arguments)
	}
	if err := a.setUsage(Usage{PromptTokens: prompt, CompletionTokens: completion}); err != nil {
		return a.result()
	}
	a.setFinish(finish)
	return a.result()
}

// pause waits Delay, or returns ctx's error as soon as it is canceled.
func (o *Offline) pause(ctx context.Context) error {
	if o.Delay <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(o.Delay)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// offlineReplyTo decides the reply from the last message of the conversation.
func offlineReplyTo(req Request) offlineReply {
	if len(req.Messages) == 0 {
		return offlineReply{text: offlineIntro(true)}
	}
	if offersTool(req.Tools, PatchSectionTool.Name) {
		return offlinePageReply(req)
	}
	last := req.Messages[len(req.Messages)-1]
	switch last.Role {
	case RoleTool:
		return offlineReply{text: offlineAnswer(req.Messages, last)}
	case RoleUser:
		text := strings.TrimSpace(last.Content)
		keywords := searchKeywords(text)
		wantsSearch := keywords != "" && (isQuestion(text) || isFindRequest(text))
		switch {
		case wantsSearch && offersTool(req.Tools, SearchWorkspaceTool.Name):
			args, _ := json.Marshal(SearchWorkspaceArgs{Query: keywords})
			reasoning := "The question asks about " + keywords + "; I will search the workspace."
			if isFindRequest(text) {
				reasoning = "I was asked to find " + keywords + "; I will search the workspace."
			}
			return offlineReply{
				reasoning: reasoning,
				call:      &ToolCall{Name: SearchWorkspaceTool.Name, Arguments: string(args)},
			}
		case wantsSearch:
			return offlineReply{text: "I'm Parley's offline assistant: no language model is connected, and searching is not available here, so I can't answer that.\n\n" + offlineConnectHint}
		}
		return offlineReply{text: offlineIntro(isGreeting(text))}
	}
	return offlineReply{text: offlineIntro(false)}
}

const offlineCapabilities = "What I can do offline:\n\n" +
	"- search your pages and conversations: ask a question or say \"find …\"\n" +
	"- in the page editor, make plain edits: replace, rename, remove or append to a section, add a section, replace text everywhere, rewrite the page with given text, add a table of contents\n"

const offlineConnectHint = "To get real answers, connect a model: set `PARLEY_OPENAI_BASE_URL` and `PARLEY_OPENAI_MODEL` " +
	"for any OpenAI-compatible server (Ollama, vLLM, llama.cpp, OpenAI …), or `PARLEY_ANTHROPIC_API_KEY` " +
	"and `PARLEY_ANTHROPIC_MODEL` for Anthropic."

func offlineIntro(greeting bool) string {
	hello := ""
	if greeting {
		hello = "Hello! "
	}
	return hello + "I'm Parley's offline assistant: no language model is connected, so I can't hold a real conversation or answer from general knowledge.\n\n" +
		offlineCapabilities + "\n" + offlineConnectHint
}

// offlineAnswer writes the answer to a search_workspace result.
func offlineAnswer(history []Message, result Message) string {
	query := queryOf(history, result.ToolCallID)
	var found SearchResults
	if err := json.Unmarshal([]byte(result.Content), &found); err != nil {
		return "I'm Parley's offline assistant, and I could not read the search results, so I have nothing to show.\n\n" + offlineConnectHint
	}
	var b strings.Builder
	if len(found.Results) == 0 {
		b.WriteString("I'm Parley's offline assistant (no language model is connected). I searched your pages and conversations for **" +
			escapeMarkdown(query) + "** but found nothing that matches.\n\n")
		b.WriteString(offlineCapabilities + "\n" + offlineConnectHint)
		return b.String()
	}
	matches, open := strconv.Itoa(len(found.Results))+" matches", "Open one to read more."
	if len(found.Results) == 1 {
		matches, open = "1 match", "Open it to read more."
	}
	b.WriteString("I'm Parley's offline assistant (no language model is connected), so I can't write an answer myself, " +
		"but I searched your workspace for **" + escapeMarkdown(query) + "** and found " + matches + ":\n\n")
	for _, r := range found.Results {
		b.WriteString("- " + markdownLink(r.Title, r.URL))
		if r.Kind != "" {
			b.WriteString(" (" + r.Kind + ")")
		}
		if s := strings.Join(strings.Fields(r.Snippet), " "); s != "" {
			b.WriteString(": " + clip(s, 200))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n" + open + " " + offlineConnectHint)
	return b.String()
}

// queryOf finds the query of the search_workspace call that callID answers.
func queryOf(history []Message, callID string) string {
	for i := len(history) - 1; i >= 0; i-- {
		for _, tc := range history[i].ToolCalls {
			if tc.ID == callID {
				var args SearchWorkspaceArgs
				if json.Unmarshal([]byte(tc.Arguments), &args) == nil && args.Query != "" {
					return args.Query
				}
			}
		}
	}
	return "your question"
}

func offersTool(tools []Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// questionWords open a question; findWords ask to look something up.
var (
	questionWords = words("what who whom whose where when why how which is are was were do does did can could should would will has have explain describe define summarize summarise compare tell")
	findWords     = words("find search locate look lookup show list")
	greetingWords = words("hi hello hey hiya howdy greetings yo hallo hola bonjour morning afternoon evening thanks thank")
	// grammarWords never say what to look for; politeWords and talkWords usually do not ("say
	// hello", "what did I say about …"), but they may be the very thing asked for ("find hello").
	// All three, with findWords and questionWords, are dropped from the keywords unless that
	// leaves none (see searchKeywords).
	grammarWords = words("a an the and or but of in on at to for from by with about into over under " +
		"me my mine i you your yours we our us it its this that these those there here " +
		"please pls kindly any some all something anything stuff thing things up " +
		"be been being am as if then than so not no yes ok okay regarding related")
	politeWords = words("hey hi hello good morning afternoon evening thanks thank")
	talkWords   = words("say says said mean means know knew tell told think wrote written write mention mentioned " +
		"talk talked discuss discussed")
)

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

func lowerWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func isQuestion(text string) bool {
	if strings.HasSuffix(strings.TrimRight(text, " \t\r\n.!"), "?") {
		return true
	}
	w := lowerWords(text)
	return len(w) > 0 && questionWords[w[0]]
}

func isFindRequest(text string) bool {
	for _, w := range lowerWords(text) {
		if findWords[w] {
			return true
		}
	}
	return false
}

func isGreeting(text string) bool {
	w := lowerWords(text)
	return len(w) > 0 && greetingWords[w[0]]
}

// searchKeywords keeps the words of text that say what to look for, in order, without repeats,
// at most eight. Stop words never swallow a whole request to search: when dropping them all
// leaves nothing, a request that asks to find something or what was said ("find hello", "what did
// I say about hello?") gets its polite words back, and a find request then its talk words ("find
// mentions"). A bare "hello?" stays a greeting.
func searchKeywords(text string) string {
	if k := keywordsWithout(text, grammarWords, politeWords, talkWords); k != "" {
		return k
	}
	find := isFindRequest(text)
	if find || slices.ContainsFunc(lowerWords(text), func(w string) bool { return talkWords[w] }) {
		if k := keywordsWithout(text, grammarWords, talkWords); k != "" {
			return k
		}
	}
	if find {
		return keywordsWithout(text, grammarWords)
	}
	return ""
}

// keywordsWithout is searchKeywords with the given word sets (plus questionWords and findWords)
// dropped.
func keywordsWithout(text string, drop ...map[string]bool) string {
	var out []string
	seen := map[string]bool{}
	for _, w := range lowerWords(text) {
		if slices.ContainsFunc(drop, func(set map[string]bool) bool { return set[w] }) || questionWords[w] || findWords[w] || seen[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
		if len(out) == 8 {
			break
		}
	}
	return strings.Join(out, " ")
}

// splitWords cuts text into words, each keeping the whitespace after it, so the pieces join back
// to exactly text (newlines and all).
func splitWords(text string) []string {
	var out []string
	start := 0
	inSpace := false
	for i, r := range text {
		space := unicode.IsSpace(r)
		if inSpace && !space && i > start {
			out = append(out, text[start:i])
			start = i
		}
		inSpace = space
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// wordCount counts the words of s as strings.Fields splits them, without building the slice (it
// runs over the whole history of every offline turn).
func wordCount(s string) int {
	n, inWord := 0, false
	for _, r := range s {
		space := unicode.IsSpace(r)
		if !space && !inWord {
			n++
		}
		inWord = !space
	}
	return n
}

// escapeMarkdown keeps text from being read as markdown syntax.
func escapeMarkdown(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>#|~", r) {
			b.WriteRune('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// markdownLink writes [title](url); the URL's spaces, parentheses and angle brackets are
// percent-encoded so they cannot end the link early.
func markdownLink(title, url string) string {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		title = url
	}
	url = strings.NewReplacer(" ", "%20", "(", "%28", ")", "%29", "<", "%3C", ">", "%3E", "\n", "", "\r", "").Replace(url)
	return "[" + escapeMarkdown(title) + "](" + url + ")"
}
