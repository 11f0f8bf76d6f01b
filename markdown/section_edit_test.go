package markdown

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// galaxyDoc is the document of Galaxy's worked section-patch examples
// (research/galaxy-chatgxy.md §4.7).
const galaxyDoc = "Intro line\n\n## Methods\nOld methods\n\n## Results\nOld results\n"

type editCase struct {
	name    string
	doc     string
	edit    func(doc string) (string, error)
	want    string
	wantErr error
}

func runEdits(t *testing.T, cases []editCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.edit(tc.doc)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) {
					t.Fatalf("err = %v, want %v", err, tc.wantErr)
				}
				var se *SectionError
				if !errors.As(err, &se) {
					t.Fatalf("err %T is not a *SectionError", err)
				}
				if got != "" {
					t.Errorf("a failed edit returned a document: %q", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			if got != tc.want {
				t.Errorf("got\n%q\nwant\n%q", got, tc.want)
			}
		})
	}
}

func replace(target, content string) func(string) (string, error) {
	return func(doc string) (string, error) { return ReplaceSection(doc, target, content) }
}

func TestReplaceSection(t *testing.T) {
	runEdits(t, []editCase{
		{name: "normal patch", doc: galaxyDoc,
			edit: replace("## Methods", "## Methods\nNew methods\n"),
			want: "Intro line\n\n## Methods\nNew methods\n\n## Results\nOld results\n"},
		{name: "target without marks, content without final newline keeps the blank line", doc: galaxyDoc,
			edit: replace("Methods", "## Methods\nX"),
			want: "Intro line\n\n## Methods\nX\n\n## Results\nOld results\n"},
		{name: "case and space and closing hashes are ignored", doc: galaxyDoc,
			edit: replace("  ## METHODS ##  ", "## Methods\nY\n"),
			want: "Intro line\n\n## Methods\nY\n\n## Results\nOld results\n"},
		{name: "setext form of the target", doc: galaxyDoc,
			edit: replace("Methods\n-------", "## Methods\nZ\n"),
			want: "Intro line\n\n## Methods\nZ\n\n## Results\nOld results\n"},
		{name: "missing heading is an error, not an append", doc: galaxyDoc,
			edit: replace("## Discussion", "## Discussion\nNew text"), wantErr: ErrSectionNotFound},
		{name: "renaming through the new content replaces in place", doc: galaxyDoc,
			edit: replace("## Methods", "## Materials and Methods\nNew"),
			want: "Intro line\n\n## Materials and Methods\nNew\n\n## Results\nOld results\n"},
		{name: "subsections are part of the section", doc: "# T\n## Methods\nm\n### Step 1\ns1\n## Results\nr",
			edit: replace("## Methods", "## Methods\nm2\n### Step 1\ns1b"),
			want: "# T\n## Methods\nm2\n### Step 1\ns1b\n## Results\nr"},
		{name: "duplicate headings are ambiguous", doc: "## Notes\na\n## Notes\nb",
			edit: replace("## Notes", "## Notes\nc"), wantErr: ErrSectionAmbiguous},
		{name: "a level in the target settles duplicates", doc: "# Notes\na\n## Notes\nb\n",
			edit: replace("## Notes", "## Notes\nc"),
			want: "# Notes\na\n## Notes\nc\n"},
		{name: "a fenced comment is not a heading", doc: "# A\n```bash\n# comment\n```\n# B\nb\n",
			edit: replace("comment", "# comment\nx"), wantErr: ErrSectionNotFound},
		{name: "a section with a fenced comment is replaced whole", doc: "# A\n```bash\n# comment\n```\n# B\nb\n",
			edit: replace("A", "# A\nnew\n"),
			want: "# A\nnew\n# B\nb\n"},
		{name: "CRLF is kept and new content converted", doc: "Intro\r\n\r\n## Methods\r\nOld\r\n\r\n## Results\r\nr\r\n",
			edit: replace("Methods", "## Methods\nNew\nmore\n"),
			want: "Intro\r\n\r\n## Methods\r\nNew\r\nmore\r\n\r\n## Results\r\nr\r\n"},
		{name: "lone CR is kept", doc: "# A\ra\r# B\rb\r",
			edit: replace("A", "# A\nz\n"),
			want: "# A\rz\r# B\rb\r"},
		{name: "content without a heading keeps the old heading", doc: galaxyDoc,
			edit: replace("Methods", "Just text"),
			want: "Intro line\n\n## Methods\nJust text\n\n## Results\nOld results\n"},
		{name: "setext heading keeps its underline when content has no heading", doc: "Methods\n=======\nold\n",
			edit: replace("Methods", "new"),
			want: "Methods\n=======\nnew\n"},
		{name: "empty target replaces the preamble", doc: galaxyDoc,
			edit: replace("", "New intro"),
			want: "New intro\n\n## Methods\nOld methods\n\n## Results\nOld results\n"},
		{name: "a new preamble before a leading heading", doc: "## A\na\n",
			edit: replace("", "Intro"),
			want: "Intro\n\n## A\na\n"},
		{name: "emptying the preamble", doc: galaxyDoc,
			edit: replace("", ""),
			want: "## Methods\nOld methods\n\n## Results\nOld results\n"},
		{name: "last section without final newline stays so", doc: "# A\na\n# B\nb",
			edit: replace("B", "# B\nnew\n"),
			want: "# A\na\n# B\nnew"},
		{name: "last section with final newline keeps it", doc: "# A\n# B\nb\n",
			edit: replace("B", "# B\nz"),
			want: "# A\n# B\nz\n"},
		{name: "setext content after a paragraph gets a blank line", doc: "para\n# A\na\n",
			edit: replace("A", "A2\n==\nbody"),
			want: "para\n\nA2\n==\nbody\n"},
		{name: "an HTML block that would swallow the next heading gets a blank line", doc: "# A\n## Methods\nm\n## Results\nr\n",
			edit: replace("Methods", "## Methods\n<div>\nx"),
			want: "# A\n## Methods\n<div>\nx\n\n## Results\nr\n"},
		{name: "an unclosed fence is refused", doc: galaxyDoc,
			edit: replace("Methods", "## Methods\n```go\nx := 1\n"), wantErr: ErrContentSpills},
	})
}

func TestReplaceSectionAmbiguityNamesTheLines(t *testing.T) {
	_, err := ReplaceSection("## Notes\na\n## Notes\nb", "notes", "x")
	var se *SectionError
	if !errors.As(err, &se) || len(se.Lines) != 2 || se.Lines[0] != 1 || se.Lines[1] != 3 {
		t.Fatalf("err = %#v, want lines [1 3]", err)
	}
	if !strings.Contains(err.Error(), `"notes"`) || !strings.Contains(err.Error(), "1, 3") {
		t.Errorf("message should name the target and lines: %v", err)
	}
}

func TestFindAndContent(t *testing.T) {
	o := Split("Intro\n\n# T\n## Methods\nm\n### Step\ns\n## Results\nr\n")
	i, err := o.Find("methods")
	if err != nil || o.Content(i) != "## Methods\nm\n### Step\ns\n" {
		t.Errorf("Find(methods) = %d, %v; content %q", i, err, o.Content(i))
	}
	if i, err := o.Find(""); err != nil || i != -1 || o.Content(i) != "Intro\n\n" {
		t.Errorf("Find(\"\") = %d, %v, want the preamble", i, err)
	}
	if _, err := o.Find("# Nope"); !errors.Is(err, ErrSectionNotFound) {
		t.Errorf("Find(# Nope) err = %v", err)
	}
}

func TestRemoveSection(t *testing.T) {
	remove := func(target string) func(string) (string, error) {
		return func(doc string) (string, error) { return RemoveSection(doc, target) }
	}
	runEdits(t, []editCase{
		{name: "middle", doc: galaxyDoc, edit: remove("Methods"),
			want: "Intro line\n\n## Results\nOld results\n"},
		{name: "last drops the trailing blank line", doc: galaxyDoc, edit: remove("Results"),
			want: "Intro line\n\n## Methods\nOld methods\n"},
		{name: "with subsections", doc: "# T\n## Methods\nm\n### Step 1\ns1\n## Results\nr", edit: remove("Methods"),
			want: "# T\n## Results\nr"},
		{name: "the only section", doc: "# A\na\n", edit: remove("a"), want: ""},
		{name: "last, no final newline", doc: "# A\na\n\n# B\nb", edit: remove("B"), want: "# A\na"},
		{name: "a setext heading that would merge with a paragraph", doc: "para\n# M\nm\n\nR\n===\nr\n", edit: remove("M"),
			want: "para\n\nR\n===\nr\n"},
		{name: "CRLF", doc: "# A\r\na\r\n\r\n# B\r\nb\r\n\r\n# C\r\n", edit: remove("B"),
			want: "# A\r\na\r\n\r\n# C\r\n"},
		{name: "not found", doc: galaxyDoc, edit: remove("Discussion"), wantErr: ErrSectionNotFound},
		{name: "empty target", doc: galaxyDoc, edit: remove(""), wantErr: ErrSectionNotFound},
		{name: "ambiguous", doc: "## Notes\na\n## Notes\nb", edit: remove("Notes"), wantErr: ErrSectionAmbiguous},
	})
}

func TestAppendToSection(t *testing.T) {
	appendTo := func(target, content string) func(string) (string, error) {
		return func(doc string) (string, error) { return AppendToSection(doc, target, content) }
	}
	runEdits(t, []editCase{
		{name: "after the body, before the separator", doc: galaxyDoc, edit: appendTo("Methods", "More."),
			want: "Intro line\n\n## Methods\nOld methods\n\nMore.\n\n## Results\nOld results\n"},
		{name: "before the first subsection", doc: "## Methods\nm\n\n### Step\ns\n", edit: appendTo("Methods", "x\n"),
			want: "## Methods\nm\n\nx\n\n### Step\ns\n"},
		{name: "empty body", doc: "## A\n## B\n", edit: appendTo("A", "x"),
			want: "## A\nx\n## B\n"},
		{name: "end of a document without final newline", doc: "# A\na", edit: appendTo("A", "b"),
			want: "# A\na\n\nb"},
		{name: "preamble", doc: "Intro\n\n# A\n", edit: appendTo("", "more"),
			want: "Intro\n\nmore\n\n# A\n"},
		{name: "empty preamble", doc: "# A\n", edit: appendTo("", "text"),
			want: "text\n\n# A\n"},
		{name: "CRLF", doc: "# A\r\na\r\n", edit: appendTo("A", "b\nc"),
			want: "# A\r\na\r\n\r\nb\r\nc\r\n"},
		{name: "nothing to add", doc: galaxyDoc, edit: appendTo("Methods", "\n\n"), want: galaxyDoc},
		{name: "not found", doc: galaxyDoc, edit: appendTo("Nope", "x"), wantErr: ErrSectionNotFound},
	})
}

func TestInsertSection(t *testing.T) {
	insert := func(after, content string) func(string) (string, error) {
		return func(doc string) (string, error) { return InsertSection(doc, after, content) }
	}
	appendSection := func(content string) func(string) (string, error) {
		return func(doc string) (string, error) { return AppendSection(doc, content) }
	}
	runEdits(t, []editCase{
		{name: "after the target", doc: galaxyDoc, edit: insert("Methods", "## Discussion\nd"),
			want: "Intro line\n\n## Methods\nOld methods\n\n## Discussion\nd\n\n## Results\nOld results\n"},
		{name: "after the target's subsections", doc: "# T\n## M\nm\n### S\ns\n## R\nr\n", edit: insert("M", "## N\nn"),
			want: "# T\n## M\nm\n### S\ns\n\n## N\nn\n\n## R\nr\n"},
		{name: "after the last section", doc: galaxyDoc, edit: insert("Results", "## End\ne\n"),
			want: galaxyDoc + "\n## End\ne\n"},
		{name: "after the preamble", doc: galaxyDoc, edit: insert("", "## First\nf"),
			want: "Intro line\n\n## First\nf\n\n## Methods\nOld methods\n\n## Results\nOld results\n"},
		{name: "at the end", doc: galaxyDoc, edit: appendSection("## End\ne"),
			want: galaxyDoc + "\n## End\ne\n"},
		{name: "at the end without final newline", doc: "# A\na", edit: appendSection("## End\ne"),
			want: "# A\na\n\n## End\ne"},
		{name: "into an empty document", doc: "", edit: appendSection("# A"), want: "# A\n"},
		{name: "CRLF", doc: "# A\r\na\r\n", edit: appendSection("# B\nb\n"), want: "# A\r\na\r\n\r\n# B\r\nb\r\n"},
		{name: "content must start with a heading", doc: galaxyDoc, edit: insert("Methods", "no heading"), wantErr: ErrNoHeading},
		{name: "appended content must start with a heading", doc: galaxyDoc, edit: appendSection("text"), wantErr: ErrNoHeading},
		{name: "not found", doc: galaxyDoc, edit: insert("Nope", "# X"), wantErr: ErrSectionNotFound},
		{name: "unclosed fence", doc: galaxyDoc, edit: insert("Methods", "## X\n~~~\ncode"), wantErr: ErrContentSpills},
	})
}

func TestRenameSection(t *testing.T) {
	rename := func(target, title string) func(string) (string, error) {
		return func(doc string) (string, error) { return RenameSection(doc, target, title) }
	}
	runEdits(t, []editCase{
		{name: "atx", doc: galaxyDoc, edit: rename("Methods", "Materials and Methods"),
			want: "Intro line\n\n## Materials and Methods\nOld methods\n\n## Results\nOld results\n"},
		{name: "closing hashes and spacing kept", doc: "#   Foo   ##  \nx\n", edit: rename("foo", "Bar"),
			want: "#   Bar   ##  \nx\n"},
		{name: "marks in the new title are dropped", doc: "# Old\n", edit: rename("Old", "## New"), want: "# New\n"},
		{name: "a trailing hash is escaped", doc: "## Old\n", edit: rename("Old", "Issue #"), want: "## Issue \\#\n"},
		{name: "C# is fine", doc: "## Old\n", edit: rename("Old", "C#"), want: "## C#\n"},
		{name: "empty atx heading", doc: "##\nx\n", edit: rename("##", "Named"), want: "## Named\nx\n"},
		{name: "setext underline follows the text", doc: "Title\n=====\nx\n", edit: rename("Title", "Longer title"),
			want: "Longer title\n============\nx\n"},
		{name: "setext underline of another length is kept", doc: "Title\n---\nx\n", edit: rename("Title", "Longer title"),
			want: "Longer title\n---\nx\n"},
		{name: "setext multi-line text becomes one line", doc: "Two\nlines\n---\nx\n", edit: rename("two lines", "One"),
			want: "One\n---\nx\n"},
		{name: "setext text that would open a list is escaped", doc: "Intro\n-----\n", edit: rename("Intro", "1. Intro"),
			want: "1\\. Intro\n--------\n"},
		{name: "CRLF setext", doc: "Deprecation policy\r\n------------------\r\nx\r\n", edit: rename("Deprecation policy", "Deprecation rules"),
			want: "Deprecation rules\r\n-----------------\r\nx\r\n"},
		{name: "byte order mark kept", doc: "\ufeff# Old\n", edit: rename("Old", "New"), want: "\ufeff# New\n"},
		{name: "empty title", doc: galaxyDoc, edit: rename("Methods", "  ## "), wantErr: ErrEmptyTitle},
		{name: "not found", doc: galaxyDoc, edit: rename("Nope", "X"), wantErr: ErrSectionNotFound},
		{name: "ambiguous", doc: "## Notes\n## Notes\n", edit: rename("Notes", "X"), wantErr: ErrSectionAmbiguous},
	})
}

// TestSectionEditsOnRealPages runs the operations on the stored pages and
// checks that only the edited section changed.
func TestSectionEditsOnRealPages(t *testing.T) {
	pages := readTestPages(t)

	t.Run("02 duplicate ### Fixes is ambiguous", func(t *testing.T) {
		_, err := ReplaceSection(pages["02-changelog-setext-h1.md"], "### Fixes", "### Fixes\n- x\n")
		var se *SectionError
		if !errors.As(err, &se) || !errors.Is(err, ErrSectionAmbiguous) || len(se.Lines) != 60 {
			t.Fatalf("err = %v, want ambiguous over 60 headings", err)
		}
	})
	t.Run("02 replace a setext release keeps the others", func(t *testing.T) {
		doc := pages["02-changelog-setext-h1.md"]
		before := Split(doc)
		i := indexOf(before, "4.3.1 - 2026-06-08")
		s := before.Sections[i]
		got, err := ReplaceSection(doc, "4.3.1 - 2026-06-08", "4.3.1 - 2026-06-08\n==================\n\n### Fixes\n- Rewritten.\n")
		if err != nil {
			t.Fatal(err)
		}
		want := doc[:s.Start] + "4.3.1 - 2026-06-08\n==================\n\n### Fixes\n- Rewritten.\n\n" + doc[s.End:]
		if got != want {
			t.Fatalf("unexpected change outside the section")
		}
	})
	t.Run("03 patch near the end of the long page", func(t *testing.T) {
		doc := pages["03-changelog-setext-h2.md"]
		o := Split(doc)
		last := o.Sections[len(o.Sections)-1]
		var parent Section
		for _, s := range o.Sections {
			if s.Level == 2 && s.Start < last.Start {
				parent = s
			}
		}
		got, err := AppendToSection(doc, parent.Title, "Appended note.")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got, "Appended note.") || len(Split(got).Sections) != len(o.Sections) {
			t.Errorf("append changed the outline")
		}
	})
	t.Run("07 CRLF stays CRLF", func(t *testing.T) {
		doc := pages["07-contributing-crlf.md"]
		got, err := AppendToSection(doc, "deprecation policy", "A new line.\nAnd another.\n")
		if err != nil {
			t.Fatal(err)
		}
		got, err = RenameSection(got, "Formatting PRs", "Formatting pull requests")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Count(got, "\n") != strings.Count(got, "\r\n") {
			t.Errorf("a bare LF crept in")
		}
		if !strings.Contains(got, "Formatting pull requests\r\n========================\r\n") {
			t.Errorf("setext rename did not resize the underline")
		}
	})
	t.Run("01 fenced comments do not split a section", func(t *testing.T) {
		doc := pages["01-tutorial-front-matter.md"]
		got, err := ReplaceSection(doc, "But why?", "## But why?\nShort.\n")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(got, "# Fetch the user and history list") {
			t.Errorf("the fenced block under ## But why? should be gone")
		}
		if !strings.Contains(got, "## Typing Variables") || !strings.HasPrefix(got, "---\n") {
			t.Errorf("other sections or front matter lost")
		}
	})
	t.Run("every section of every page can be replaced by itself", func(t *testing.T) {
		for name, doc := range pages {
			o := Split(doc)
			step := 1
			if len(o.Sections) > 50 {
				step = 9 // the long changelogs: a sample keeps the test quick
			}
			for k := 0; k < len(o.Sections); k += step {
				s := o.Sections[k]
				got, err := ReplaceSection(doc, strings.Repeat("#", s.Level)+" "+s.Title, doc[s.Start:s.End])
				if errors.Is(err, ErrSectionAmbiguous) || (err == nil && got == doc) {
					continue
				}
				// Only the trailing blank lines may be normalised.
				if err != nil || NormalizeLineEndings(strings.TrimRight(got, "\r\n "), "\n") != NormalizeLineEndings(strings.TrimRight(doc, "\r\n "), "\n") {
					t.Errorf("%s: replacing %q by itself changed the page (err %v)", name, s.Title, err)
				}
			}
		}
	})
}

func TestLineEnding(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"", "\n"}, {"a", "\n"}, {"a\nb\n", "\n"}, {"a\r\nb\r\n", "\r\n"}, {"a\rb\r", "\r"},
		{"a\r\nb\nc\r\n", "\r\n"}, {"a\nb\r\n", "\n"},
	} {
		if got := LineEnding(tc.doc); got != tc.want {
			t.Errorf("LineEnding(%q) = %q, want %q", tc.doc, got, tc.want)
		}
	}
	if got := NormalizeLineEndings("a\r\nb\rc\nd", "\r\n"); got != "a\r\nb\r\nc\r\nd" {
		t.Errorf("NormalizeLineEndings = %q", got)
	}
}

// FuzzSectionEdits runs every operation on every section of arbitrary
// text: no panics, and a successful edit leaves a document whose outline
// is consistent and whose untouched sections are still there.
func FuzzSectionEdits(f *testing.F) {
	for _, seed := range []string{
		galaxyDoc, "# T\n## Methods\nm\n### Step 1\ns1\n## Results\nr",
		"Title\r\n=====\r\nx\r\n\r\nSub\r\n---\r\ny\r\n", "# A\ra\r# B\r", "para\n# M\nm\n\nR\n===\nr\n",
		"---\nt: x\n---\n# A\n", "> q\n# A\n```\n# B\n", "<div>\n# A\n\n# B\n</div>\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		o := Split(doc)
		if len(o.Sections) > 20 {
			return
		}
		for _, s := range o.Sections {
			target := strings.Repeat("#", s.Level) + " " + s.Title
			check := func(op, out string, err error) {
				if err != nil {
					if !errors.Is(err, ErrSectionAmbiguous) && !errors.Is(err, ErrContentSpills) && !errors.Is(err, ErrSectionNotFound) {
						t.Fatalf("%s %q: unexpected error %v", op, target, err)
					}
					return
				}
				checkOutline(t, out, Split(out))
			}
			out, err := ReplaceSection(doc, target, "## New\nbody\n")
			check("replace", out, err)
			if i, ferr := o.Find(target); err == nil && ferr == nil && i >= 0 && o.Sections[i].Start == s.Start {
				checkPatched(t, doc, out, s)
			}
			out, err = RemoveSection(doc, target)
			check("remove", out, err)
			out, err = AppendToSection(doc, target, "more text")
			check("append", out, err)
			out, err = InsertSection(doc, target, "## Inserted\nx")
			check("insert", out, err)
			out, err = RenameSection(doc, target, "Renamed")
			check("rename", out, err)
		}
	})
}

// checkPatched pins the invariants of a replaced section s: the whole document splits into
// exactly the untouched sections, byte-identical (shifted after the edit), with the new section
// found where the old one was.
func checkPatched(t *testing.T, doc, out string, s Section) {
	t.Helper()
	old, got := Split(doc), Split(out)
	if !strings.HasPrefix(out, doc[:s.Start]) || !strings.HasSuffix(out, doc[s.End:]) {
		t.Fatalf("replace %q changed text outside the section", s.Title)
	}
	shift := len(out) - len(doc)
	var want []string
	for _, o := range old.Sections {
		switch {
		case o.Start < s.Start:
			want = append(want, fmt.Sprintf("%d %d %q", o.Start, o.Level, o.Heading))
		case o.Start == s.Start:
			want = append(want, "new")
		case o.Start >= s.End:
			want = append(want, fmt.Sprintf("%d %d %q", o.Start+shift, o.Level, o.Heading))
		}
	}
	var have []string
	for _, g := range got.Sections {
		if g.Start >= s.Start && g.Start < s.End+shift {
			if g.Title == "New" && g.Level == 2 {
				have = append(have, "new")
			} else {
				have = append(have, fmt.Sprintf("inside %d %q", g.Start, g.Heading))
			}
			continue
		}
		have = append(have, fmt.Sprintf("%d %d %q", g.Start, g.Level, g.Heading))
	}
	if strings.Join(have, "|") != strings.Join(want, "|") {
		t.Fatalf("replace %q: sections\n%v\nwant\n%v", s.Title, have, want)
	}
	for _, o := range old.Sections {
		if o.Start >= s.End {
			i := indexAt(got, o.Start+shift)
			if i < 0 || got.Sections[i].Heading+got.Sections[i].Body != o.Heading+o.Body {
				t.Fatalf("replace %q: section %q after it changed", s.Title, o.Title)
			}
		}
	}
}

func indexAt(o Outline, start int) int {
	for i, s := range o.Sections {
		if s.Start == start {
			return i
		}
	}
	return -1
}

// Every real document: replacing one section (one whose heading is unique, near the middle)
// leaves every other section byte-identical and the new one found in its place.
func TestPatchingOneSectionOfEachRealPageLeavesTheOthersByteIdentical(t *testing.T) {
	for name, doc := range readTestPages(t) {
		t.Run(name, func(t *testing.T) {
			o := Split(doc)
			patched := 0
			for k := len(o.Sections) / 2; k < len(o.Sections) && patched < 3; k++ {
				s := o.Sections[k]
				target := strings.Repeat("#", s.Level) + " " + s.Title
				if i, err := o.Find(target); err != nil || i != k {
					continue // ambiguous headings are their own test
				}
				out, err := ReplaceSection(doc, target, "## New\nbody\n")
				if err != nil {
					t.Fatalf("replace %q: %v", target, err)
				}
				checkPatched(t, doc, out, s)
				if LineEnding(doc) == "\r\n" && strings.Count(out, "\n") != strings.Count(out, "\r\n") {
					t.Fatal("the patch mixed LF into a CRLF page")
				}
				patched++
			}
			if patched == 0 {
				t.Fatal("no section with a unique heading to patch")
			}
		})
	}
}
