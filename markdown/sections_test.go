package markdown

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pagesDir holds documents of the shapes real pages have (see its README.md).
const pagesDir = "testdata/pages"

// readTestPages returns the documents under testdata/pages by file name.
func readTestPages(t testing.TB) map[string]string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(pagesDir, "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	pages := map[string]string{}
	for _, name := range names {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		pages[filepath.Base(name)] = string(b)
	}
	if len(pages) < 9 {
		t.Fatalf("want the 8 pages and README.md in %s, found %d files", pagesDir, len(pages))
	}
	return pages
}

// heads renders an outline as "level:title" lines for compact comparisons.
func heads(o Outline) []string {
	var out []string
	for _, s := range o.Sections {
		out = append(out, fmt.Sprintf("%d:%s", s.Level, s.Title))
	}
	return out
}

func checkOutline(t testing.TB, doc string, o Outline) {
	t.Helper()
	if got := o.Join(); got != doc {
		t.Fatalf("Join differs from the input (len %d vs %d)", len(got), len(doc))
	}
	pos := len(o.Preamble)
	for i, s := range o.Sections {
		if s.Start != pos {
			t.Fatalf("section %d starts at %d, pieces put it at %d", i, s.Start, pos)
		}
		if s.Heading == "" || s.Level < 1 || s.Level > 6 {
			t.Fatalf("section %d: bad heading %q level %d", i, s.Heading, s.Level)
		}
		if doc[s.Start:s.Start+len(s.Heading)] != s.Heading {
			t.Fatalf("section %d: Heading is not the text at Start", i)
		}
		pos += len(s.Heading) + len(s.Body)
		if s.End < pos || s.End > len(doc) {
			t.Fatalf("section %d: End %d outside [%d, %d]", i, s.End, pos, len(doc))
		}
		if s.Start > 0 && doc[s.Start-1] != '\n' && doc[s.Start-1] != '\r' {
			t.Fatalf("section %d does not start at a line start", i)
		}
		if want := 1 + strings.Count(NormalizeLineEndings(doc[:s.Start], "\n"), "\n"); s.Line != want {
			t.Fatalf("section %d: Line %d, want %d", i, s.Line, want)
		}
	}
}

func TestSplitJoinRoundTripsRealPages(t *testing.T) {
	for name, doc := range readTestPages(t) {
		t.Run(name, func(t *testing.T) {
			o := Split(doc)
			checkOutline(t, doc, o)
			if name != "README.md" && len(o.Sections) == 0 {
				t.Errorf("no sections found")
			}
		})
	}
}

// TestSplitRealPagesFindTheRightHeadings pins what testdata/pages/README.md says each
// page tests.
func TestSplitRealPagesFindTheRightHeadings(t *testing.T) {
	pages := readTestPages(t)
	count := func(o Outline, pred func(Section) bool) int {
		n := 0
		for _, s := range o.Sections {
			if pred(s) {
				n++
			}
		}
		return n
	}
	level := func(l int) func(Section) bool { return func(s Section) bool { return s.Level == l } }
	titled := func(title string) func(Section) bool { return func(s Section) bool { return s.Title == title } }

	t.Run("01 front matter and quoted headings", func(t *testing.T) {
		o := Split(pages["01-tutorial-front-matter.md"])
		if !strings.HasPrefix(o.Preamble, "---\n") || !strings.Contains(o.Preamble, "  language: python\n---\n") {
			t.Errorf("front matter should stay in the preamble")
		}
		for _, s := range o.Sections {
			if strings.Contains(s.Title, "icon") || strings.HasPrefix(s.Title, "Fetch the user") || strings.HasPrefix(s.Title, "Without the optional") {
				t.Errorf("not a top-level heading: %q (line %d)", s.Title, s.Line)
			}
		}
		i := indexOf(o, "Typing Variables")
		if i < 0 {
			t.Fatalf("no Typing Variables section: %v", heads(o))
		}
		content := pages["01-tutorial-front-matter.md"][o.Sections[i].Start:o.Sections[i].End]
		for _, sub := range []string{"### Complex Types", "### Typing Functions", "### Optional"} {
			if !strings.Contains(content, sub) {
				t.Errorf("## Typing Variables should contain %s", sub)
			}
		}
	})
	t.Run("02 setext h1 and duplicates", func(t *testing.T) {
		o := Split(pages["02-changelog-setext-h1.md"])
		if n := count(o, func(s Section) bool { return s.Setext && s.Level == 1 }); n != 60 {
			t.Errorf("setext h1 = %d, want 60", n)
		}
		for title, want := range map[string]int{"Fixes": 60, "Features": 20, "Updating": 9, "Misc.": 6} {
			if n := count(o, titled(title)); n != want {
				t.Errorf("### %s = %d, want %d", title, n, want)
			}
		}
	})
	t.Run("03 setext h2 with atx children, fenced comments", func(t *testing.T) {
		o := Split(pages["03-changelog-setext-h2.md"])
		if n := count(o, func(s Section) bool { return s.Setext && s.Level == 2 }); n != 80 {
			t.Errorf("setext h2 = %d, want 80", n)
		}
		if n := count(o, level(1)); n != 1 {
			t.Errorf("h1 = %d, want 1 (CHANGELOG)", n)
		}
		if n := count(o, titled("New features")); n != 20 {
			t.Errorf("### New features = %d, want 20", n)
		}
		for _, s := range o.Sections {
			if strings.HasPrefix(s.Title, "No separator") {
				t.Errorf("fenced comment read as a heading at line %d", s.Line)
			}
		}
	})
	t.Run("04 heading then ---- is a thematic break", func(t *testing.T) {
		o := Split(pages["04-readme-thematic-breaks.md"])
		want := map[int]int{1: 1, 2: 5, 3: 7, 4: 4, 5: 3}
		for l, n := range want {
			if got := count(o, level(l)); got != n {
				t.Errorf("h%d = %d, want %d", l, got, n)
			}
		}
		if n := count(o, func(s Section) bool { return s.Setext }); n != 0 {
			t.Errorf("setext = %d, want 0", n)
		}
	})
	t.Run("05 one real h1 among fenced comments and HTML blocks", func(t *testing.T) {
		o := Split(pages["05-readme-html-badges.md"])
		if got := count(o, level(1)); got != 1 {
			t.Errorf("h1 = %d, want 1: %v", got, heads(o))
		}
		for _, s := range o.Sections {
			if strings.Contains(s.Title, "inside the HTML block") {
				t.Errorf("a line inside an HTML block read as a heading at line %d", s.Line)
			}
		}
	})
	t.Run("06 closing hashes", func(t *testing.T) {
		o := Split(pages["06-primer-closing-hashes.md"])
		for _, s := range o.Sections {
			if strings.HasSuffix(s.Title, "#") {
				t.Errorf("closing hashes kept in %q", s.Title)
			}
			if strings.HasPrefix(s.Title, "include") {
				t.Errorf("fenced #include read as a heading")
			}
		}
		i := indexOf(o, "Assertions")
		if i < 0 || o.Sections[i].Level != 1 {
			t.Fatalf("no # Assertions #: %v", heads(o))
		}
		c := pages["06-primer-closing-hashes.md"][o.Sections[i].Start:o.Sections[i].End]
		for _, sub := range []string{"## Basic Assertions ##", "## Binary Comparison ##", "## String Comparison ##"} {
			if !strings.Contains(c, sub) {
				t.Errorf("# Assertions # should contain %s", sub)
			}
		}
	})
	t.Run("07 CRLF setext", func(t *testing.T) {
		doc := pages["07-contributing-crlf.md"]
		o := Split(doc)
		if got := [2]int{count(o, level(1)), count(o, level(2))}; got != [2]int{3, 5} {
			t.Errorf("h1, h2 = %v, want [3 5]", got)
		}
		for _, s := range o.Sections {
			if !strings.HasSuffix(s.Heading, "\r\n") || strings.Contains(s.Title, "\r") {
				t.Errorf("heading %q lost its CRLF or kept it in the title", s.Heading)
			}
		}
		if LineEnding(doc) != "\r\n" {
			t.Errorf("LineEnding = %q", LineEnding(doc))
		}
	})
	t.Run("08 toml comments in fences under setext", func(t *testing.T) {
		o := Split(pages["08-spec-setext-toml.md"])
		if got := [2]int{count(o, level(1)), count(o, level(2))}; got != [2]int{1, 23} {
			t.Errorf("h1, h2 = %v, want [1 23]: %v", got, heads(o))
		}
	})
}

func indexOf(o Outline, title string) int {
	for i, s := range o.Sections {
		if s.Title == title {
			return i
		}
	}
	return -1
}

func TestSplitHeadingRules(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []string // "level:title"
	}{
		{"atx levels", "# One\n## Two\n###### Six\n", []string{"1:One", "2:Two", "6:Six"}},
		{"seven hashes is text", "####### seven\n", nil},
		{"hash needs a space", "#hashtag\n##notaheading\n", nil},
		{"empty atx", "#\n## ##\n", []string{"1:", "2:"}},
		{"three spaces indent", "   # Indented\n", []string{"1:Indented"}},
		{"four spaces is code", "    # code\n", nil},
		{"tab after hashes", "#\tTabbed\n", []string{"1:Tabbed"}},
		{"closing hashes", "## Foo ##\n# Bar #####   \n### Baz#\n### qux ### b\n", []string{"2:Foo", "1:Bar", "3:Baz#", "3:qux ### b"}},
		{"surrounding space", "##    Spaced   out    \n", []string{"2:Spaced out"}},
		{"backtick fence", "# A\n```\n# not a heading\n```\n# B\n", []string{"1:A", "1:B"}},
		{"tilde fence", "~~~sh\n# comment\n~~~\n", nil},
		{"longer closing fence closes", "````\n# x\n``````\n# Real\n", []string{"1:Real"}},
		{"shorter fence does not close", "````\n```\n# still code\n````\n# After\n", []string{"1:After"}},
		{"tilde does not close backticks", "```\n~~~\n# still code\n```\n", nil},
		{"fence with info does not close", "```\n```bash\n# x\n```\n# After\n", []string{"1:After"}},
		{"indented fence", "  ```\n  # comment\n  ```\n# After\n", []string{"1:After"}},
		{"unclosed fence runs to the end", "# A\n```\n# B\n", []string{"1:A"}},
		{"setext h1", "Title\n=====\n", []string{"1:Title"}},
		{"setext h2", "Title\n-----\n", []string{"2:Title"}},
		{"setext short underline", "Title\n-\n", []string{"2:Title"}},
		{"setext multiline", "Two\nlines\n===\n", []string{"1:Two lines"}},
		{"dashes after blank line are a thematic break", "Para\n\n---\n", nil},
		{"dashes after heading are a thematic break", "### A. Getting Pyenv\n----\n", []string{"3:A. Getting Pyenv"}},
		{"dashes after list are a thematic break", "- item\n---\n", nil},
		{"spaced dashes are a thematic break", "Para\n- - -\n", nil},
		{"quoted headings are not sections", "> # Quoted\n> > ### Deeper\n", nil},
		{"list item headings are not sections", "- # In a list\n1. ## Numbered\n", nil},
		{"html block hides a heading line", "<details>\n# inside\n</details>\n", nil},
		{"html block ends at a blank line", "<details>\n\n##### Real\n\n</details>\n", []string{"5:Real"}},
		{"indented code after blank", "Para\n\n    # code\n", nil},
		{"link reference definitions are not a setext text", "[a]: /u\n===\n", nil},
		{"front matter", "---\ntitle: x\nlang: y\n---\n# Body\n", []string{"1:Body"}},
		{"toml front matter", "+++\ntitle = \"x\"\n+++\n# Body\n", []string{"1:Body"}},
		{"closed front matter hides a setext look-alike", "---\nTitle\n---\n", nil},
		{"unclosed front matter is markdown", "---\nTitle\n===\n", []string{"1:Title"}},
		{"byte order mark", "\ufeff# Title\n", []string{"1:Title"}},
		{"crlf", "# A\r\nx\r\n\r\nB\r\n-\r\n", []string{"1:A", "2:B"}},
		{"crlf setext takes the whole paragraph", "# A\r\nx\r\nB\r\n-\r\n", []string{"1:A", "2:x B"}},
		{"lone cr", "# A\rx\r\rB\r===\r", []string{"1:A", "1:B"}},
		{"no trailing newline", "# A\n# B", []string{"1:A", "1:B"}},
		{"setext at end without newline", "Title\n===", []string{"1:Title"}},
		{"gfm table is not a setext heading", "a | b\n--- | ---\n", nil},
		{"inline markup kept in titles", "## The `go` *tool*\n", []string{"2:The `go` *tool*"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := Split(tc.doc)
			checkOutline(t, tc.doc, o)
			got := heads(o)
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("headings = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSplitSectionsContainSubsections(t *testing.T) {
	doc := "Intro\n\n# T\n## Methods\nm\n### Step 1\ns1\n#### Deep\nd\n## Results\nr\n# Next\n"
	o := Split(doc)
	if o.Preamble != "Intro\n\n" {
		t.Errorf("preamble = %q", o.Preamble)
	}
	content := func(title string) string {
		s := o.Sections[indexOf(o, title)]
		return doc[s.Start:s.End]
	}
	for title, want := range map[string]string{
		"T":       "# T\n## Methods\nm\n### Step 1\ns1\n#### Deep\nd\n## Results\nr\n",
		"Methods": "## Methods\nm\n### Step 1\ns1\n#### Deep\nd\n",
		"Step 1":  "### Step 1\ns1\n#### Deep\nd\n",
		"Results": "## Results\nr\n",
		"Next":    "# Next\n",
	} {
		if got := content(title); got != want {
			t.Errorf("section %q = %q, want %q", title, got, want)
		}
	}
	if s := o.Sections[indexOf(o, "Methods")]; s.Body != "m\n" || s.Line != 4 {
		t.Errorf("Methods own body %q line %d, want \"m\\n\" line 4", s.Body, s.Line)
	}
}

// FuzzSplitJoin checks that any text splits into pieces that join back
// byte for byte, with consistent offsets. Under plain `go test` it runs the
// seeds only.
func FuzzSplitJoin(f *testing.F) {
	for _, seed := range []string{
		"", "\n", "\r", "\r\n", "#", "# A", "# A\n", "A\n=", "A\r\n-\r\n", "A\r=\r",
		"---\nx: y\n---\n# T\n", "\ufeff---\n---\n",
		"```\n# x\n", "~~~\n# x\n~~~\n# y",
		"> # q\n# r\n", "- # l\n# r\n",
		"<div>\n# x\n\n# y\n", "[a]: /u\nb\n===\n",
		"Intro\n\n## Methods\nOld methods\n\n## Results\nOld results\n",
		"# T\n## Methods\nm\n### Step 1\ns1\n## Results\nr",
		"a | b\n- | -\n# c\n-\n", "\t# tab\n  \t# x\n", "#\x00\n\xff\xfe\n=\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		o := Split(doc)
		checkOutline(t, doc, o)
		for i, s := range o.Sections {
			if i > 0 && s.Start <= o.Sections[i-1].Start {
				t.Fatalf("sections out of order")
			}
		}
	})
}

func BenchmarkSplitLongPage(b *testing.B) {
	doc := readTestPages(b)["02-changelog-setext-h1.md"]
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		Split(doc)
	}
}
