package markdown

import (
	"fmt"
	"strings"
	"testing"

	"github.com/aymanbagabas/go-udiff"
)

// lineString renders a hunk line as "kind old/new content+eol" for
// compact comparisons.
func lineString(l DiffLine) string {
	return fmt.Sprintf("%s %d/%d %q", l.Kind, l.OldLine, l.NewLine, l.Content+l.EOL)
}

func hunkLines(h Hunk) []string {
	var out []string
	for _, l := range h.Lines {
		out = append(out, lineString(l))
	}
	return out
}

func TestLineDiff(t *testing.T) {
	for _, tc := range []struct {
		name       string
		old, new   string
		headers    []string
		lines      [][]string // per hunk
		adds, dels int
	}{
		{name: "equal", old: "a\nb\n", new: "a\nb\n"},
		{name: "one line changed", old: "a\nb\nc\n", new: "a\nB\nc\n",
			headers: []string{"@@ -1,3 +1,3 @@"},
			lines:   [][]string{{`equal 1/1 "a\n"`, `delete 2/0 "b\n"`, `insert 0/2 "B\n"`, `equal 3/3 "c\n"`}},
			adds:    1, dels: 1},
		{name: "no trailing newline on both", old: "a\nb", new: "a\nc",
			headers: []string{"@@ -1,2 +1,2 @@"},
			lines:   [][]string{{`equal 1/1 "a\n"`, `delete 2/0 "b"`, `insert 0/2 "c"`}},
			adds:    1, dels: 1},
		{name: "adding the final newline changes the last line", old: "a\nb", new: "a\nb\n",
			headers: []string{"@@ -1,2 +1,2 @@"},
			lines:   [][]string{{`equal 1/1 "a\n"`, `delete 2/0 "b"`, `insert 0/2 "b\n"`}},
			adds:    1, dels: 1},
		{name: "CRLF", old: "a\r\nb\r\nc\r\n", new: "a\r\nx\r\nc\r\n",
			headers: []string{"@@ -1,3 +1,3 @@"},
			lines:   [][]string{{`equal 1/1 "a\r\n"`, `delete 2/0 "b\r\n"`, `insert 0/2 "x\r\n"`, `equal 3/3 "c\r\n"`}},
			adds:    1, dels: 1},
		{name: "line endings alone differ", old: "a\r\n", new: "a\n",
			headers: []string{"@@ -1 +1 @@"},
			lines:   [][]string{{`delete 1/0 "a\r\n"`, `insert 0/1 "a\n"`}},
			adds:    1, dels: 1},
		{name: "lone CR lines", old: "a\rb\r", new: "a\rc\r",
			headers: []string{"@@ -1,2 +1,2 @@"},
			lines:   [][]string{{`equal 1/1 "a\r"`, `delete 2/0 "b\r"`, `insert 0/2 "c\r"`}},
			adds:    1, dels: 1},
		{name: "from empty", old: "", new: "x\ny\n",
			headers: []string{"@@ -0,0 +1,2 @@"},
			lines:   [][]string{{`insert 0/1 "x\n"`, `insert 0/2 "y\n"`}},
			adds:    2},
		{name: "to empty", old: "x\n", new: "",
			headers: []string{"@@ -1 +0,0 @@"},
			lines:   [][]string{{`delete 1/0 "x\n"`}},
			dels:    1},
		{name: "pure insertion mid-file", old: "1\n2\n3\n4\n5\n6\n7\n8\n", new: "1\n2\n3\n4\nnew\n5\n6\n7\n8\n",
			headers: []string{"@@ -2,6 +2,7 @@"},
			lines:   [][]string{{`equal 2/2 "2\n"`, `equal 3/3 "3\n"`, `equal 4/4 "4\n"`, `insert 0/5 "new\n"`, `equal 5/6 "5\n"`, `equal 6/7 "6\n"`, `equal 7/8 "7\n"`}},
			adds:    1},
		{name: "distant changes make two hunks",
			old:     "a\n1\n2\n3\n4\n5\n6\n7\nb\n",
			new:     "A\n1\n2\n3\n4\n5\n6\n7\nB\n",
			headers: []string{"@@ -1,4 +1,4 @@", "@@ -6,4 +6,4 @@"},
			lines: [][]string{
				{`delete 1/0 "a\n"`, `insert 0/1 "A\n"`, `equal 2/2 "1\n"`, `equal 3/3 "2\n"`, `equal 4/4 "3\n"`},
				{`equal 6/6 "5\n"`, `equal 7/7 "6\n"`, `equal 8/8 "7\n"`, `delete 9/0 "b\n"`, `insert 0/9 "B\n"`},
			},
			adds: 2, dels: 2},
		{name: "close changes share a hunk",
			old:     "a\n1\n2\n3\n4\n5\n6\nb\n",
			new:     "A\n1\n2\n3\n4\n5\n6\nB\n",
			headers: []string{"@@ -1,8 +1,8 @@"},
			adds:    2, dels: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := LineDiff(tc.old, tc.new)
			if d.Adds != tc.adds || d.Dels != tc.dels {
				t.Errorf("adds/dels = %d/%d, want %d/%d", d.Adds, d.Dels, tc.adds, tc.dels)
			}
			if len(d.Hunks) != len(tc.headers) {
				t.Fatalf("%d hunks, want %d: %+v", len(d.Hunks), len(tc.headers), d.Hunks)
			}
			if d.Equal() != (len(tc.headers) == 0) {
				t.Errorf("Equal() = %v", d.Equal())
			}
			for i, h := range d.Hunks {
				if h.Header != tc.headers[i] {
					t.Errorf("hunk %d header %q, want %q", i, h.Header, tc.headers[i])
				}
				if tc.lines != nil {
					if got := strings.Join(hunkLines(h), "\n"); got != strings.Join(tc.lines[i], "\n") {
						t.Errorf("hunk %d lines:\n%s\nwant:\n%s", i, got, strings.Join(tc.lines[i], "\n"))
					}
				}
			}
		})
	}
}

func TestLineDiffWholeContext(t *testing.T) {
	d := LineDiffContext("a\n1\n2\n3\n4\n5\n6\n7\nb\n", "A\n1\n2\n3\n4\n5\n6\n7\nb\n", -1)
	if len(d.Hunks) != 1 || len(d.Hunks[0].Lines) != 10 || d.Hunks[0].Header != "@@ -1,9 +1,9 @@" {
		t.Fatalf("want one hunk with every line: %+v", d.Hunks)
	}
}

func TestUnified(t *testing.T) {
	for _, tc := range []struct{ name, old, new, want string }{
		{"equal", "a\n", "a\n", ""},
		{"change", "a\nb\nc\n", "a\nB\nc\n", "--- old\n+++ new\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"},
		{"no newline at end", "a\nb", "a\nc", "--- old\n+++ new\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n"},
		{"CRLF kept", "a\r\nb\r\n", "a\r\nc\r\n", "--- old\n+++ new\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n"},
		{"from empty", "", "x\n", "--- old\n+++ new\n@@ -0,0 +1 @@\n+x\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Unified("old", "new", tc.old, tc.new); got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

// TestUnifiedAgreesWithGoUdiff cross-checks hunks against go-udiff's own
// renderer on LF text where every hunk has lines on both sides (go-udiff
// writes a zero-length range's start differently from GNU diff).
func TestUnifiedAgreesWithGoUdiff(t *testing.T) {
	pairs := [][2]string{
		{"a\nb\nc\n", "a\nB\nc\n"},
		{"a\n1\n2\n3\n4\n5\n6\n7\nb\n", "A\n1\n2\n3\n4\n5\n6\n7\nB\n"},
		{"x\ny", "x\nz"},
		{galaxyDoc, strings.Replace(galaxyDoc, "Old methods", "New methods\nand more", 1)},
	}
	pages := readTestPages(t)
	doc := pages["04-readme-thematic-breaks.md"]
	edited, err := ReplaceSection(doc, "Installation", "## Installation\n\nJust use your package manager.\n")
	if err != nil {
		t.Fatal(err)
	}
	pairs = append(pairs, [2]string{doc, edited})
	for i, p := range pairs {
		if got, want := Unified("a", "b", p[0], p[1]), udiff.Unified("a", "b", p[0], p[1]); got != want {
			t.Errorf("pair %d differs from go-udiff:\n%s\n---- go-udiff:\n%s", i, got, want)
		}
	}
}
