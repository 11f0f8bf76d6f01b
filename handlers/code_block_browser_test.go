package handlers_test

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"parley/handlers/handlerstest"
)

// codeAnswer is an answer with highlighted code in three languages; greetCode is its Python block.
const greetCode = "def greet(name):\n    \"\"\"Say hello.\"\"\"\n    return f\"Hello, {name}!\"  # a comment\n\n\nprint(greet(\"Ada\"), 42, None)"

var codeAnswer = "Here you are:\n\n```python\n" + greetCode + "\n```\n\nAnd in Go:\n\n```go\npackage main\n\nimport \"fmt\"\n\n// main prints.\nfunc main() {\n\tvar n int = 3\n\tfmt.Println(\"hi\", n, true, 'x', 0x1F)\n}\n```\n\n```js\nconst a = [1, 2.5, /re+/g, `t${x}`]; // end\n```\n"

func openCodeAnswer(t *testing.T) browser {
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		return handlerstest.Reply{Deltas: []string{codeAnswer}}
	})
	app := handlerstest.Start(t, handlerstest.WithUpstream(up))
	b := signInBrowser(t, app)
	b.do("open chat", chromedp.Navigate(app.URL+"/chat/new"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	b.do("send", chromedp.SendKeys(chromedp.CSS(`#query`), "show me code\n"))
	b.waitFor("the finished answer with its code bars", `document.querySelector('[data-role=assistant][data-status=complete] .code-block .code-bar')`)
	return b
}

// contrastJS returns JS that makes sure the answer ends in a block holding one span of each of
// classes (the stream may re-render a finished answer, replacing earlier additions; one
// synchronous script cannot be interleaved with that), then lists, as JSON, every token span
// inside a .chroma block whose text colour has less than 4.5:1 contrast (WCAG AA) with the
// background it is drawn on, as "class color/bg ratio", with how many spans of the answer's own
// code and of the added block it checked.
func contrastJS(classes []string) string {
	list, _ := json.Marshal(classes)
	return `(() => {
  const answer = document.querySelector('[data-role=assistant] [data-testid=answer]');
  if (!answer.querySelector('.code-block.every-class')) {
    const block = document.createElement('div');
    block.className = 'code-block every-class';
    block.innerHTML = '<pre class="chroma"><code></code></pre>';
    for (const c of ` + string(list) + `) { const s = document.createElement('span'); s.className = c; s.textContent = 'tok_' + c + ' '; block.querySelector('code').appendChild(s); }
    answer.appendChild(block);
  }
  const rgb = s => (s.match(/[\d.]+/g) || []).map(Number);
  const lum = c => { const [r, g, b] = c.slice(0, 3).map(v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); }); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const bgOf = el => { for (; el; el = el.parentElement) { const c = rgb(getComputedStyle(el).backgroundColor); if (c.length === 3 || c[3] > 0) return c; } return [255, 255, 255]; };
  const bad = [];
  let own = 0, added = 0;
  document.querySelectorAll('.chroma span[class]').forEach(el => {
    if (!el.textContent.trim()) return;
    if (el.closest('.every-class')) added++; else own++;
    const fg = rgb(getComputedStyle(el).color), bg = bgOf(el);
    const [hi, lo] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (hi + 0.05) / (lo + 0.05);
    if (ratio < 4.5) bad.push(el.className + ' ' + getComputedStyle(el).color + '/' + bg.join(',') + ' ' + ratio.toFixed(2));
  });
  return JSON.stringify({own, added, bad: [...new Set(bad)]});
})()`
}

// Every chroma token class, in a real answer and in a block holding one span of each class, has
// WCAG AA contrast on its background in the light and the dark scheme, computed by Chromium.
func TestCodeTokensHaveAAContrastInLightAndDark(t *testing.T) {
	b := openCodeAnswer(t)
	var classes []string
	for tt, class := range chroma.StandardTypes {
		switch tt {
		case chroma.Background, chroma.PreWrapper, chroma.Line, chroma.CodeLine, chroma.LineTable, chroma.LineTableTD, chroma.LineLink:
			continue
		}
		if class != "" {
			classes = append(classes, class)
		}
	}
	sort.Strings(classes)
	for _, scheme := range []string{"light", "dark"} {
		b.do("prefers-color-scheme: "+scheme, colorScheme(scheme))
		var got struct {
			Own, Added int
			Bad        []string
		}
		if err := json.Unmarshal([]byte(b.eval(contrastJS(classes))), &got); err != nil {
			t.Fatal(err)
		}
		if got.Added != len(classes) || got.Own < 20 {
			t.Fatalf("%s: checked %d spans of every class (want %d) and %d of the answer's code (want ≥ 20)", scheme, got.Added, len(classes), got.Own)
		}
		if len(got.Bad) > 0 {
			t.Errorf("%s scheme: token classes below 4.5:1:\n%s", scheme, strings.Join(got.Bad, "\n"))
		}
	}
}

// colorScheme emulates prefers-color-scheme (light or dark).
func colorScheme(scheme string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: scheme}},
		})
		return chromedp.Void{}, err
	}
}

// stubClipboardJS replaces navigator.clipboard.writeText so window.copied holds what was copied.
const stubClipboardJS = `Object.defineProperty(navigator, 'clipboard', {configurable: true, value: {writeText: function (t) { window.copied = t; return Promise.resolve(); }}}), ''`

// Copy on a code block copies its code exactly, line for line (no doubled newlines); the bar with
// the language label and Copy sits above the code and never covers it; copying the whole answer
// keeps the code's lines single-spaced too.
func TestCopyCodeCopiesTheCodeAsShown(t *testing.T) {
	b := openCodeAnswer(t)
	b.eval(stubClipboardJS)
	first := `document.querySelector('[data-testid=answer] .code-block')`
	if got := b.eval(first + `.querySelector('.code-lang').textContent`); got != "python" {
		t.Errorf("language label %q, want python", got)
	}
	if got := b.eval(`[...document.querySelectorAll('[data-testid=answer] .code-lang')].map(e => e.textContent).join(',')`); got != "python,go,js" {
		t.Errorf("language labels %q, want python,go,js", got)
	}
	covers := b.eval(`(() => {
	  const out = [];
	  document.querySelectorAll('[data-testid=answer] .code-block').forEach((block, i) => {
	    const btn = block.querySelector('.code-copy').getBoundingClientRect();
	    const pre = block.querySelector('pre').getBoundingClientRect();
	    if (btn.bottom > pre.top + 0.5) out.push(i + ': button bottom ' + btn.bottom + ' > code top ' + pre.top);
	  });
	  return out.join('; ');
	})()`)
	if covers != "" {
		t.Errorf("a Copy button overlaps the code: %s", covers)
	}
	b.do("copy the python block", chromedp.Click(chromedp.CSS(`[data-testid=answer] .code-block .code-copy`)))
	b.waitFor("the copy", `typeof window.copied === 'string'`)
	if got := b.eval(`window.copied`); got != greetCode {
		t.Errorf("copied code:\n%q\nwant\n%q", got, greetCode)
	}
	b.waitFor("the button to say Copied", first+`.querySelector('.code-copy').textContent.includes('Copied')`)
	if got := b.eval(first + `.querySelector('pre').innerText.replace(/\n$/, '')`); got != greetCode {
		t.Errorf("the code as shown (innerText):\n%q\nwant\n%q", got, greetCode)
	}

	b.eval(`window.copied = undefined, ''`)
	b.do("copy the whole answer", chromedp.Click(chromedp.CSS(`[data-role=assistant] [data-copy-message]`)))
	b.waitFor("the copy", `typeof window.copied === 'string'`)
	whole := b.eval(`window.copied`)
	if !strings.Contains(whole, "def greet(name):\n    \"\"\"Say hello.\"\"\"\n") || !strings.Contains(whole, "func main() {\n\tvar n int = 3\n") {
		t.Errorf("the copied answer doubles or loses the code's lines:\n%q", whole)
	}
	if strings.Contains(whole, "Copy") || strings.Contains(whole, "python\n") {
		t.Errorf("the copied answer holds the code bars' text:\n%q", whole)
	}
}
