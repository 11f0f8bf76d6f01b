package agents

import (
	"encoding/json"
	"testing"
)

func TestWireTextKeepsRawBytesAndDecodesEscapes(t *testing.T) {
	cases := []struct{ in, want string }{
		{`null`, ""},
		{`"plain"`, "plain"},
		{"\"caf\xc3\"", "caf\xc3"}, // half a character stays half, for the assembler to join
		{`"a\"b\\c\/d\n\t\r\b\f"`, "a\"b\\c/d\n\t\r\b\f"},
		{`"\u00e9 \ud83e\uddec"`, "é 🧬"},
		{`"lone \ud83e end"`, "lone \uFFFD end"},
		// Halves of a pair cut between two strings stay as WTF-8 for the assembler to join.
		{`"cut \ud83e"`, "cut \xED\xA0\xBE"},
		{`"\uddec cut"`, "\xED\xB7\xAC cut"},
		{`"\uddec"`, "\xED\xB7\xAC"},
		{`"\ud83e mid"`, "\uFFFD mid"},
		{`"mid \uddec"`, "mid \uFFFD"},
	}
	for _, c := range cases {
		var got struct {
			T wireText `json:"t"`
		}
		if err := json.Unmarshal([]byte(`{"t":`+c.in+`}`), &got); err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if string(got.T) != c.want {
			t.Fatalf("%s: got %q, want %q", c.in, got.T, c.want)
		}
	}
}
