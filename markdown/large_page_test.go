package markdown

import (
	"fmt"
	"strings"
	"testing"
)

// largePage is a ~1 MB page with 2,000 sections (## headings with ### subsections every fifth),
// paragraphs, lists and fenced code holding '#' lines.
func largePage() string {
	var b strings.Builder
	b.WriteString("# Handbook\n\nThe preamble of a long page.\n\n")
	para := strings.Repeat("Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor. ", 3)
	for i := 1; i <= 2000; i++ {
		level := "##"
		if i%5 == 0 {
			level = "###"
		}
		fmt.Fprintf(&b, "%s Section %d\n\n%s\n\n- item one\n- item two\n\n```sh\n# comment %d\necho %d\n```\n\n%s\n\n", level, i, para, i, i, para)
	}
	return b.String()
}

func TestLargePageShape(t *testing.T) {
	doc := largePage()
	o := Split(doc)
	if len(doc) < 1<<20-50_000 || len(doc) > 1<<20+200_000 {
		t.Fatalf("page is %d bytes, want about 1 MB", len(doc))
	}
	if n := len(o.Sections); n != 2001 {
		t.Fatalf("%d sections, want 2001 (title + 2,000)", n)
	}
	if o.Join() != doc {
		t.Fatal("split+join is not the identity")
	}
}

// The benchmark: split, patch and diff a 1 MB page with 2,000 sections (≤ 20 ms each).
func BenchmarkLargePageSplit(b *testing.B) {
	doc := largePage()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		Split(doc)
	}
}

func BenchmarkLargePagePatch(b *testing.B) {
	doc := largePage()
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, err := ReplaceSection(doc, "## Section 1001", "## Section 1001\n\nPatched.\n"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLargePageDiff(b *testing.B) {
	doc := largePage()
	patched, err := ReplaceSection(doc, "## Section 1001", "## Section 1001\n\nPatched.\n")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if d := LineDiff(doc, patched); d.Equal() {
			b.Fatal("no diff")
		}
	}
}

// BenchmarkLargePageRewriteDiff diffs a 1 MB page against a rewrite that changes a word on every
// text line (a "replace x with y everywhere"): every changed line is paired for word marks.
func BenchmarkLargePageRewriteDiff(b *testing.B) {
	doc := largePage()
	rewritten := strings.ReplaceAll(doc, "e", "E")
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if d := LineDiff(doc, rewritten); d.Equal() {
			b.Fatal("no diff")
		}
	}
}

// BenchmarkLargePageBrokenReferences checks a 1 MB page with link reference definitions at its end
// against a patch of one section (what every review of a proposal does).
func BenchmarkLargePageBrokenReferences(b *testing.B) {
	doc := largePage() + "[docs]: https://example.com/docs\n[api]: https://example.com/api\n"
	patched, err := ReplaceSection(doc, "## Section 1001", "## Section 1001\n\nPatched, see [docs].\n")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		BrokenReferences(doc, patched)
	}
}
