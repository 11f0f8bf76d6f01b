package markdown

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/PuerkitoBio/goquery"
)

// rasterData matches the data: images the image policy shows inline.
var rasterData = regexp.MustCompile(`^data:image/(png|jpeg|gif|webp|avif|bmp)[;,]`)

func parseHTML(t *testing.T, html string) *goquery.Document {
	t.Helper()
	doc, err := goquery.NewDocumentFromReader(strings.NewReader(html))
	if err != nil {
		t.Fatalf("parse rendered HTML: %v", err)
	}
	return doc
}

// assertNothingExecutable fails when rendered HTML holds anything a browser
// or htmx could run or that could collide with the app.
func assertNothingExecutable(t *testing.T, html string) {
	t.Helper()
	doc := parseHTML(t, html)
	if n := doc.Find("script, style, iframe, object, embed, form, button, textarea, select, link, meta, base, svg, math").Length(); n > 0 {
		t.Errorf("dangerous element survived (%d): %s", n, html)
	}
	doc.Find("*").Each(func(_ int, s *goquery.Selection) {
		for _, a := range s.Nodes[0].Attr {
			name := strings.ToLower(a.Key)
			val := strings.ToLower(strings.TrimSpace(a.Val))
			switch {
			case strings.HasPrefix(name, "on"),
				strings.HasPrefix(name, "hx-"), strings.HasPrefix(name, "data-"),
				name == "style", name == "id", name == "name", name == "formaction", name == "srcdoc":
				t.Errorf("attribute %s=%q survived on <%s>: %s", a.Key, a.Val, s.Nodes[0].Data, html)
			case name == "src" && s.Nodes[0].Data == "img" && rasterData.MatchString(val):
				// a raster data: image (images.go) cannot run anything
			case name == "href" || name == "src":
				if strings.HasPrefix(val, "javascript:") || strings.HasPrefix(val, "data:") || strings.HasPrefix(val, "vbscript:") {
					t.Errorf("dangerous URL %s=%q survived: %s", a.Key, a.Val, html)
				}
			}
		}
	})
	doc.Find("input").Each(func(_ int, s *goquery.Selection) {
		if typ, _ := s.Attr("type"); typ != "checkbox" {
			t.Errorf("input of type %q survived: %s", typ, html)
		}
		if _, ok := s.Attr("disabled"); !ok {
			t.Errorf("enabled checkbox: %s", html)
		}
	})
}

func TestRenderRemovesHostileMarkup(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		wantText  string // visible text that must remain, if any
	}{
		{"img onerror", `<img src=x onerror=alert(1)>`, ""},
		{"script block", "<script>alert(1)</script>", ""},
		{"script inline", "hello <script>alert(1)</script> world", "hello"},
		{"javascript link", "[x](javascript:alert(1))", "x"},
		{"javascript link mixed case", "[x](JaVaScRiPt:alert(1))", "x"},
		{"javascript link entity", "[x](&#106;avascript:alert(1))", "x"},
		{"data link", "[x](data:text/html,<script>alert(1)</script>)", "x"},
		{"data link base64", "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)", "x"},
		{"vbscript link", "[x](vbscript:msgbox(1))", "x"},
		{"data image", "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)", ""},
		{"javascript autolink", "<javascript:alert(1)>", ""},
		{"reference link", "[x][r]\n\n[r]: javascript:alert(1)", "x"},
		{"htmx div", `<div hx-get="/x" hx-trigger="load">boom</div>`, ""},
		{"data-hx div", `<div data-hx-post="/x" data-hx-trigger="load">boom</div>`, ""},
		{"onclick anchor", `<a href="x" onclick="alert(1)">x</a>`, ""},
		{"iframe", `<iframe src="https://evil.example"></iframe>`, ""},
		{"style tag", "<style>body{display:none}</style>", ""},
		{"html comment", "<!-- <script>alert(1)</script> -->", ""},
		{"svg", `<svg onload=alert(1)>`, ""},
		{"form", `<form action="/logout"><button>x</button></form>`, ""},
		{"fence info injection", "```go\" onmouseover=\"alert(1)\nx := 1\n```", "x := 1"},
		{"open fence with script", "```html\n<script>alert(1)</script>\n", "<script>alert(1)</script>"},
		{"closed fence with script", "```html\n<script>alert(1)</script>\n```", "<script>alert(1)</script>"},
		{"code span", "`<script>alert(1)</script>`", "<script>alert(1)</script>"},
		{"title attribute quote", `[x](https://example.com "a\" onmouseover=\"alert(1)")`, "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := Render(tc.src)
			assertNothingExecutable(t, out)
			if tc.wantText != "" && !strings.Contains(parseHTML(t, out).Text(), tc.wantText) {
				t.Errorf("text %q lost: %s", tc.wantText, out)
			}
		})
	}
}

func TestRenderLinksGetNofollowNoopener(t *testing.T) {
	for _, tc := range []struct {
		name, src, href string
		blank           bool
	}{
		{"absolute", "[x](https://example.com/a)", "https://example.com/a", true},
		{"protocol relative", "[x](//example.com/a)", "//example.com/a", true},
		{"relative", "[x](/pages/3)", "/pages/3", false},
		{"mailto", "[x](mailto:a@example.com)", "mailto:a@example.com", false},
		{"autolink", "<https://example.com>", "https://example.com", true},
		{"linkify url", "see https://example.com/x now", "https://example.com/x", true},
		{"linkify www", "see www.example.com now", "http://www.example.com", true},
		{"linkify email", "write to a@example.com", "mailto:a@example.com", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := Render(tc.src)
			a := parseHTML(t, out).Find("a")
			if a.Length() != 1 {
				t.Fatalf("want one link, got %d: %s", a.Length(), out)
			}
			if href, _ := a.Attr("href"); href != tc.href {
				t.Errorf("href = %q, want %q", href, tc.href)
			}
			if rel, _ := a.Attr("rel"); rel != "nofollow noopener" {
				t.Errorf("rel = %q, want \"nofollow noopener\": %s", rel, out)
			}
			target, has := a.Attr("target")
			if tc.blank != has || (has && target != "_blank") {
				t.Errorf("target = %q (present %v), want _blank %v: %s", target, has, tc.blank, out)
			}
		})
	}
}

func TestRenderFencedGoCodeGetsChromaClasses(t *testing.T) {
	out := Render("Here:\n\n```go\nfunc main() {\n\tfmt.Println(\"hi\")\n}\n```\n")
	doc := parseHTML(t, out)
	block := doc.Find("div.code-block.language-go")
	if block.Length() != 1 {
		t.Fatalf("want one div.code-block.language-go: %s", out)
	}
	if block.Find("pre.chroma code").Length() != 1 {
		t.Errorf("want pre.chroma > code inside the wrapper: %s", out)
	}
	if block.Find("span.kd").Length() == 0 || block.Find("span.nf, span.nx").Length() == 0 {
		t.Errorf("want chroma token classes (kd, nf/nx): %s", out)
	}
	if !strings.Contains(block.Text(), `fmt.Println("hi")`) {
		t.Errorf("code text changed: %q", block.Text())
	}
}

func TestRenderUnknownLanguageIsPlainWrappedCode(t *testing.T) {
	out := Render("```nosuchlang\n<b>x</b>\n```\n")
	doc := parseHTML(t, out)
	if doc.Find("div.code-block.language-nosuchlang > pre > code").Length() != 1 {
		t.Fatalf("want wrapper > pre > code: %s", out)
	}
	if doc.Find("b").Length() != 0 || !strings.Contains(doc.Text(), "<b>x</b>") {
		t.Errorf("code must be escaped text: %s", out)
	}
}

func TestRenderUnclosedFenceRunsToTheEnd(t *testing.T) {
	// As while an answer streams: the closing fence has not arrived yet.
	out := Render("Try this:\n\n```python\nprint('a')\n# not a heading\n")
	doc := parseHTML(t, out)
	if doc.Find("h1").Length() != 0 {
		t.Errorf("a comment in an open fence became a heading: %s", out)
	}
	code := doc.Find("div.code-block pre").Text()
	if !strings.Contains(code, "print('a')") || !strings.Contains(code, "# not a heading") {
		t.Errorf("open fence should hold the rest of the text: %s", out)
	}
}

func TestRenderHighlightsAFenceOnceItCloses(t *testing.T) {
	open := "```go\nfunc f() {}\n"
	if out := Render(open); strings.Contains(out, "chroma") || !strings.Contains(out, "func f() {}") {
		t.Errorf("an open fence should be plain code: %s", out)
	}
	closed := open + "```\n"
	first := Render(closed)
	if !strings.Contains(first, `<pre class="chroma">`) {
		t.Fatalf("a closed fence should be highlighted: %s", first)
	}
	if again := Render(closed); again != first {
		t.Errorf("cached render differs:\n%s\n%s", first, again)
	}
}

func TestRenderIsSafeForConcurrentUse(t *testing.T) {
	want := Render(benchAnswer)
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				if got := Render(benchAnswer); got != want {
					errs <- got
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for got := range errs {
		t.Errorf("concurrent render differs: %.200s", got)
	}
}

func TestRenderGFMTable(t *testing.T) {
	out := Render("| a | b |\n|:--|--:|\n| 1 | **2** |\n")
	doc := parseHTML(t, out)
	if doc.Find("table thead th").Length() != 2 || doc.Find("table tbody td").Length() != 2 {
		t.Fatalf("want a 2×1 table: %s", out)
	}
	if al, _ := doc.Find("th").Eq(1).Attr("align"); al != "right" {
		t.Errorf("alignment lost (align=%q): %s", al, out)
	}
	if doc.Find("td strong").Text() != "2" {
		t.Errorf("inline markup in cell lost: %s", out)
	}
}

func TestRenderTaskList(t *testing.T) {
	out := Render("- [x] done\n- [ ] todo\n")
	assertNothingExecutable(t, out)
	boxes := parseHTML(t, out).Find("li input[type=checkbox][disabled]")
	if boxes.Length() != 2 {
		t.Fatalf("want two disabled checkboxes: %s", out)
	}
	if _, ok := boxes.Eq(0).Attr("checked"); !ok {
		t.Errorf("first box should be checked: %s", out)
	}
	if _, ok := boxes.Eq(1).Attr("checked"); ok {
		t.Errorf("second box should not be checked: %s", out)
	}
}

func TestRenderHeadingsHaveNoID(t *testing.T) {
	out := Render("# Title\n\n## Sub\n")
	if parseHTML(t, out).Find("[id]").Length() != 0 {
		t.Errorf("headings must not get ids: %s", out)
	}
	if !strings.Contains(out, "<h1>Title</h1>") {
		t.Errorf("heading lost: %s", out)
	}
}

func TestRenderStrikethroughAndImages(t *testing.T) {
	out := Render("~~old~~ ![logo](/static/img/l.png \"Logo\")")
	doc := parseHTML(t, out)
	if doc.Find("del").Text() != "old" {
		t.Errorf("strikethrough lost: %s", out)
	}
	if src, _ := doc.Find("img").Attr("src"); src != "/static/img/l.png" {
		t.Errorf("image src = %q: %s", src, out)
	}
}

func TestChromaCSSHasLightAndDarkRules(t *testing.T) {
	css := ChromaCSS()
	dark := strings.Index(css, "@media (prefers-color-scheme: dark) {")
	if dark < 0 {
		t.Fatalf("no dark media block:\n%s", css)
	}
	if !strings.Contains(css[:dark], ".chroma .kd {") || !strings.Contains(css[dark:], ".chroma .kd {") {
		t.Errorf("want .chroma .kd rules in both themes:\n%s", css)
	}
	if strings.Contains(css, ".bg ") {
		t.Errorf("the bare .bg rule must be left out")
	}
	if css != ChromaCSS() {
		t.Errorf("ChromaCSS is not deterministic")
	}
}

// benchAnswer is a ~4 KB assistant answer: prose, a list, a table and a
// Go code block.
var benchAnswer = func() string {
	var b strings.Builder
	b.WriteString("## Reading a file line by line\n\nHere is a **short** answer with a [link](https://pkg.go.dev/bufio) and `inline code`.\n\n")
	b.WriteString("- first point, with *emphasis*\n- second point\n- [x] a task\n\n| option | meaning |\n|---|---|\n| `-n` | count lines |\n| `-v` | verbose |\n\n")
	b.WriteString("```go\npackage main\n\nimport (\n\t\"bufio\"\n\t\"fmt\"\n\t\"os\"\n)\n\n")
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&b, "// step%d reads the file and prints every line with its number.\nfunc step%d(path string) error {\n\tf, err := os.Open(path)\n\tif err != nil {\n\t\treturn err\n\t}\n\tdefer f.Close()\n\tsc := bufio.NewScanner(f)\n\tfor n := 1; sc.Scan(); n++ {\n\t\tfmt.Println(n, sc.Text())\n\t}\n\treturn sc.Err()\n}\n\n", i, i)
	}
	b.WriteString("```\n\nThat is all; see www.example.com for more.\n")
	return b.String()
}()

// BenchmarkRender is the cold cost: every iteration has new code, so the
// highlight cache never hits.
func BenchmarkRender(b *testing.B) {
	b.SetBytes(int64(len(benchAnswer)))
	i := 0
	for b.Loop() {
		i++
		Render(strings.Replace(benchAnswer, "package main", fmt.Sprintf("package main // %d", i), 1))
	}
}

// BenchmarkRenderCached re-renders the same finished answer, as a streamed
// answer's earlier code blocks are: chroma's output comes from the cache.
func BenchmarkRenderCached(b *testing.B) {
	b.SetBytes(int64(len(benchAnswer)))
	for b.Loop() {
		Render(benchAnswer)
	}
}

// BenchmarkRenderStreaming renders an answer cut inside its code block,
// which stays plain until the closing fence arrives.
func BenchmarkRenderStreaming(b *testing.B) {
	partial := benchAnswer[:strings.LastIndex(benchAnswer, "```")]
	b.SetBytes(int64(len(partial)))
	for b.Loop() {
		Render(partial)
	}
}

func TestRenderFinalMatchesRender(t *testing.T) {
	for _, src := range []string{"", "# Hi\n\n```go\nfunc main() {}\n```\n", "<script>x</script> [a](javascript:1)"} {
		want := Render(src)
		for range 2 { // the second call is served from the cache
			if got := RenderFinal(src); got != want {
				t.Fatalf("RenderFinal(%q) = %q, want %q", src, got, want)
			}
		}
	}
}
