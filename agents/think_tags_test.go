package agents

import "testing"

// splitThink feeds parts to a thinkTags and returns the answer and reasoning a receiver ends with.
func splitThink(parts []string) (answer, reasoning string) {
	var t thinkTags
	apply := func(ps []thinkPiece) {
		for _, p := range ps {
			switch p.kind {
			case pieceAnswer:
				answer += p.text
			case pieceReasoning:
				reasoning += p.text
			case pieceWasReasoning:
				reasoning += answer
				answer = ""
			}
		}
	}
	for _, p := range parts {
		apply(t.feed(p))
	}
	apply(t.flush())
	return answer, reasoning
}

// deltaCuts is every way a test cuts text into deltas: whole, in two at every byte, and byte by
// byte.
func deltaCuts(text string) [][]string {
	splits := [][]string{{text}}
	for i := 1; i < len(text); i++ {
		splits = append(splits, []string{text[:i], text[i:]})
	}
	var bytes []string
	for i := range len(text) {
		bytes = append(bytes, text[i:i+1])
	}
	return append(splits, bytes)
}

// However the deltas cut the text — in two at every byte, or byte by byte — the tags split it
// the same way.
func TestThinkTagsSplitTheSameWhereverTheDeltasCut(t *testing.T) {
	cases := []struct{ name, text, answer, reasoning string }{
		{"both tags", "<think>plan</think>answer", "answer", "plan"},
		{"whitespace around the tags", " \n<think>\nplan\n</think>\n\nanswer", "answer", "\nplan\n"},
		{"closing tag only", "plan it\n</think>\n\nanswer", "answer", "plan it\n"},
		{"empty reasoning", "<think></think>answer", "answer", ""},
		{"unclosed at the end", "<think>still thinking", "", "still thinking"},
		{"no tags", "just an answer", "just an answer", ""},
		{"whitespace only", "  ", "  ", ""},
		{"a tag's start at the end", "a <thin", "a <thin", ""},
		{"a closing tag's start at the end", " plan </think", " plan </think", ""},
		{"whitespace and no tag", "\n\n  answer\n", "\n\n  answer\n", ""},
		{"tags in a code span", "Close with `</think>` and open with `<think>`.", "Close with `</think>` and open with `<think>`.", ""},
		{"tags in a fence", "```html\n<think>x</think>\n```\nafter", "```html\n<think>x</think>\n```\nafter", ""},
		{"closing tag only, after reasoning with code", "```go\nx := 1\n```\nso x</think>answer", "answer", "```go\nx := 1\n```\nso x"},
		{"tags in a tilde fence", "~~~\n</think>\n~~~", "~~~\n</think>\n~~~", ""},
		{"tags quoted in prose", "Models write <think>notes</think> first.", "Models write <think>notes</think> first.", ""},
		{"a second closing tag is text", "<think>a</think>b </think> c", "b </think> c", "a"},
		{"non-ASCII around the tags", "<think>café ☕</think>thé 東京", "thé 東京", "café ☕"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			splits := deltaCuts(c.text)
			if answer, reasoning := SplitReasoning(c.text); answer != c.answer || reasoning != c.reasoning {
				t.Fatalf("SplitReasoning: answer %q reasoning %q", answer, reasoning)
			}
			for _, parts := range splits {
				answer, reasoning := splitThink(parts)
				if answer != c.answer || reasoning != c.reasoning {
					t.Fatalf("%q: answer %q reasoning %q, want %q and %q", parts, answer, reasoning, c.answer, c.reasoning)
				}
			}
		})
	}
}
