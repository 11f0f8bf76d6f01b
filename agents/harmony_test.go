package agents

import "testing"

// However the deltas cut a gpt-oss answer in the harmony format, its analysis channel is the
// reasoning and its final channel the answer, with no marker left; a text that does not open with
// a marker is never rewritten.
func TestHarmonyMarkersSplitReasoningFromAnswerWhereverTheDeltasCut(t *testing.T) {
	cases := []struct{ name, text, answer, reasoning string }{
		{"analysis then final", "<|channel|>analysis<|message|>Add them.<|end|><|start|>assistant<|channel|>final<|message|>It is 4.<|return|>", "It is 4.", "Add them."},
		{"leading whitespace and role start", "\n<|start|>assistant<|channel|>analysis<|message|>Plan.<|end|><|start|>assistant<|channel|>final<|message|>Done.", "Done.", "Plan."},
		{"final only", "<|channel|>final<|message|>Just this.", "Just this.", ""},
		{"cut during analysis", "<|channel|>analysis<|message|>still thinking", "", "still thinking"},
		{"unknown marker stays text", "<|channel|>final<|message|>Use <|x|> and <|end", "Use <|x|> and <|end", ""},
		{"markers quoted later in an answer", "Harmony opens with <|channel|>analysis<|message|>.", "Harmony opens with <|channel|>analysis<|message|>.", ""},
		{"a lone bracket pair", "<|", "<|", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			splits := deltaCuts(c.text)
			if answer, reasoning := SplitReasoning(c.text); answer != c.answer || reasoning != c.reasoning {
				t.Fatalf("SplitReasoning: answer %q reasoning %q, want %q and %q", answer, reasoning, c.answer, c.reasoning)
			}
			for _, parts := range splits {
				var h harmonyText
				rewritten := make([]string, 0, len(parts)+1)
				for _, p := range parts {
					rewritten = append(rewritten, h.feed(p))
				}
				rewritten = append(rewritten, h.flush())
				answer, reasoning := splitThink(rewritten)
				if answer != c.answer || reasoning != c.reasoning {
					t.Fatalf("%q: answer %q reasoning %q, want %q and %q", parts, answer, reasoning, c.answer, c.reasoning)
				}
			}
		})
	}
}
