package markdown

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// Choosing every hunk gives the new text and choosing none the old one, byte for byte, whatever
// the line endings, a missing final line ending or an empty side.
func TestApplyHunksAllGivesNewNoneGivesOld(t *testing.T) {
	pairs := [][2]string{
		{"", "a\n"}, {"a\n", ""}, {"a", "a\n"}, {"a\r\nb\r\n", "a\r\nc\r\n"},
		{"x\ny", "x\nz"}, {"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "0\n1\n2\n3\n4\n5\nsix\n7\n8\n9\n10\n11\n12\n13"},
	}
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"a\n", "b\n", "c\r\n", "d", "\n", "e\n"}
	for range 300 {
		var o, n strings.Builder
		for range r.IntN(30) {
			o.WriteString(words[r.IntN(len(words))])
		}
		for range r.IntN(30) {
			n.WriteString(words[r.IntN(len(words))])
		}
		pairs = append(pairs, [2]string{o.String(), n.String()})
	}
	for _, p := range pairs {
		for _, context := range []int{0, 1, DefaultContextLines} {
			d := LineDiffContext(p[0], p[1], context)
			if got := ApplyHunks(p[0], d, func(int) bool { return true }); got != p[1] {
				t.Fatalf("all hunks of %q → %q (context %d): %q", p[0], p[1], context, got)
			}
			if got := ApplyHunks(p[0], d, func(int) bool { return false }); got != p[0] {
				t.Fatalf("no hunk of %q → %q (context %d): %q", p[0], p[1], context, got)
			}
		}
	}
}

// A subset of hunks changes only the lines those hunks show.
func TestApplyHunksWritesOnlyTheChosenHunks(t *testing.T) {
	var old, new []string
	for i := range 40 {
		line := "line " + string(rune('A'+i%26))
		old = append(old, line)
		switch i {
		case 2, 20, 37:
			line += " changed"
		}
		new = append(new, line)
	}
	o, n := strings.Join(old, "\n")+"\n", strings.Join(new, "\n")+"\n"
	d := LineDiff(o, n)
	if len(d.Hunks) != 3 {
		t.Fatalf("%d hunks, want 3", len(d.Hunks))
	}
	got := ApplyHunks(o, d, func(k int) bool { return k != 1 })
	lines := strings.SplitAfter(o, "\n") // lines 2 and 37 changed, line 20 (hunk 1) left alone
	lines[2], lines[37] = "line C changed\n", "line L changed\n"
	if want := strings.Join(lines, ""); got != want {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}
