package handlers_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"parley/config"
	"parley/handlers/handlerstest"
)

// corpusSentinel starts every batch of vectors, so a surface that rendered nothing cannot pass.
const corpusSentinel = "corpus-sentinel"

// plantedHost counts every request a browser makes to it: a vector that loads anything from it
// (an image, a script, a frame, an htmx call) leaks.
type plantedHost struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func startPlantedHost(t *testing.T) *plantedHost {
	p := &plantedHost{}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.hits = append(p.hits, r.Method+" "+r.URL.String())
		p.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(p.Close)
	return p
}

func (p *plantedHost) requests() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.hits...)
}

// loadVectors reads testdata/xss/vectors.txt with PLANTED (and PLANTEDHOST) filled in.
func loadVectors(t *testing.T, planted string) []string {
	raw, err := os.ReadFile("testdata/xss/vectors.txt")
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(planted, "http://")
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		line = strings.ReplaceAll(line, `\n`, "\n")
		line = strings.ReplaceAll(strings.ReplaceAll(line, "PLANTEDHOST", host), "PLANTED", planted)
		out = append(out, line)
	}
	return out
}

// batches cuts the vectors into groups of n, each a markdown document headed by the sentinel.
func batches(vectors []string, n int) []string {
	var out []string
	for i := 0; i < len(vectors); i += n {
		end := min(i+n, len(vectors))
		out = append(out, fmt.Sprintf("%s %d\n\n%s", corpusSentinel, i/n, strings.Join(vectors[i:end], "\n\n")))
	}
	return out
}

// checkNothingRan is the verdict on one loaded surface: the sentinel shows, and after hovering
// and focusing every element no vector set the marker global, opened a dialog, reached the
// planted host, or survived as an executable attribute, URL or element.
const checkNothingRan = `(() => {
	const problems = [];
	if (!document.body.innerText.includes('` + corpusSentinel + `') && !document.title.includes('` + corpusSentinel + `')) problems.push('the corpus is not on the page');
	for (const el of document.querySelectorAll('*')) {
		for (const type of ['mouseover', 'mouseenter', 'focus', 'animationstart']) el.dispatchEvent(new Event(type, {bubbles: true}));
	}
	if (window.__xss !== undefined) problems.push('the marker global was set');
	for (const el of document.querySelectorAll('*')) {
		for (const a of el.attributes) {
			const name = a.name.toLowerCase(), value = a.value.replace(/[\s\x00-\x1f]/g, '').toLowerCase();
			if (name.startsWith('on')) problems.push('<' + el.localName + ' ' + name + '>');
			if (['href', 'src', 'action', 'formaction', 'xlink:href', 'data', 'poster', 'srcset', 'background'].includes(name) &&
				/^(javascript|vbscript|data:text|data:image\/svg)/.test(value)) problems.push('<' + el.localName + ' ' + name + '=' + value.slice(0, 40) + '>');
		}
	}
	for (const el of document.querySelectorAll('.prose *, [data-testid=user-text] *, [data-testid=page-body] *, #history-results a *')) {
		for (const a of el.attributes) {
			if (/^(data-)?hx-|^sse-/.test(a.name)) problems.push('<' + el.localName + ' ' + a.name + '> in content');
		}
	}
	for (const s of document.scripts) if (!s.src.startsWith(location.origin + '/static/')) problems.push('script ' + (s.src || s.text.slice(0, 40)));
	for (const el of document.querySelectorAll('iframe, object, embed, base, frame, frameset, meta[http-equiv], form:not([action^="/"]):not([hx-post]):not([hx-get]):not([hx-put])')) {
		if (el.localName !== 'form' || el.getAttribute('action') !== null) problems.push('element ' + el.outerHTML.slice(0, 60));
	}
	const main = document.getElementById('main');
	if (!main || main.innerText.trim() === 'main taken over') problems.push('#main was replaced');
	return JSON.stringify(problems);
})()`

// Over 100 hostile vectors (event handlers, javascript:/data: links in every markdown spelling, raw
// HTML blocks, SVG/MathML mutation, htmx attributes, fence info strings, link titles) rendered
// through model output (stored and streamed), user text, titles, search hits, page content, the
// preview, a proposal's diff, agent fields, the public agent page, the embed and the share page
// never run in Chromium — with the CSP switched off, so the sanitiser alone is tested — and never
// make the browser request the planted host. Vectors are batched, one page load per surface.
func TestBrowserXSSCorpusNeverRuns(t *testing.T) {
	planted := startPlantedHost(t)
	vectors := loadVectors(t, planted.URL)
	if len(vectors) < 100 {
		t.Fatalf("the corpus has %d vectors, want at least 100", len(vectors))
	}
	groups := batches(vectors, 12)
	corpus := corpusSentinel + "\n\n" + strings.Join(vectors, "\n\n")

	var pageMode atomic.Bool // the next model call is the page assistant's
	up := handlerstest.FakeOpenAI(t, func(int64) handlerstest.Reply {
		if pageMode.CompareAndSwap(true, false) {
			args := fmt.Sprintf(`{"content": %q, "reasoning": %q}`, corpus, vectors[0]+" "+vectors[1])
			return handlerstest.Reply{ToolCalls: []handlerstest.ToolCallDelta{{ID: "call_1", Name: "replace_entire_document", Args: args}}}
		}
		var deltas []string
		for i := 0; i < len(corpus); i += 400 {
			deltas = append(deltas, corpus[i:min(i+400, len(corpus))])
		}
		return handlerstest.Reply{Deltas: deltas, Gap: 5 * time.Millisecond}
	})
	app := handlerstest.Start(t, handlerstest.WithUpstream(up), func(cfg *config.Config) { cfg.MaxQueryChars = 100000 })
	b := signInBrowser(t, app)
	// Vectors with relative image URLs ask this server for images it does not have.
	handlerstest.AllowBrowserErrors(b.ctx, "status of 404 (Image)")
	c := app.Client(t)
	c.SignIn("ada@example.com", "correct horse")

	// Stored content: a conversation whose questions and answers are the batches, and titles made
	// of vectors (the sidebar and search show them).
	texts := []string{}
	for _, g := range groups {
		texts = append(texts, g, g)
	}
	stored, _ := seedConversation(t, app, "ada@example.com", corpusSentinel+" "+vectors[0], time.Now().Add(-time.Hour), texts...)
	for i := 0; i < len(vectors); i += 5 {
		title := corpusSentinel + " " + strings.Join(vectors[i:min(i+5, len(vectors))], " ")
		seedConversation(t, app, "ada@example.com", title, time.Now().Add(-time.Duration(i)*time.Minute), "onerror question", "answer")
	}
	if res := c.PostForm(fmt.Sprintf("/sessions/%d/share", stored), nil); res.Status != http.StatusSeeOther {
		t.Fatalf("share: %d", res.Status)
	}
	var token string
	_ = app.Store.DB.Get(&token, `SELECT token FROM chat_share WHERE exchange_id = $1`, stored)

	// A page holding the corpus, and a proposal from a hostile model rewriting it as the corpus again.
	pageID := newPage(t, c, corpusSentinel+" <img src=x onerror=__xss=1>", "# Notes\n\n"+corpus)
	pageMode.Store(true)
	askPage(t, app, c, pageID, "rewrite it")

	// An agent whose fields are vectors (stored as a hostile administrator's would be).
	agentID := createAgent(t, c, agentForm("xssagent"))
	app.Store.DB.MustExec(`UPDATE agents SET name = $2, description = $3, welcome_message = $4 WHERE id = $1`,
		agentID, corpusSentinel+" "+vectors[0], strings.Join(vectors[:20], " "), corpus)

	var dialogs atomic.Int64
	go func() {
		for _, err := range chromedp.Events(b.ctx, page.JavascriptDialogOpening) {
			if err != nil {
				return
			}
			dialogs.Add(1)
			go chromedp.Do(b.ctx, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
				return err
			}))
		}
	}()
	b.do("switch the CSP off", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, page.SetBypassCSP, page.SetBypassCSPParams{Enabled: true})
		return err
	}))

	verdict := func(surface string) {
		t.Helper()
		time.Sleep(300 * time.Millisecond) // let anything a vector started (loads, htmx triggers) happen
		if got := b.eval(checkNothingRan); got != "[]" {
			handlerstest.Screenshot(t, b.ctx, "xss-"+surface)
			t.Errorf("%s: %s", surface, got)
		}
		if n := dialogs.Load(); n != 0 {
			t.Errorf("%s: %d dialogs opened", surface, n)
		}
		if hits := planted.requests(); len(hits) != 0 {
			t.Errorf("%s: the planted host was asked for %v", surface, hits)
		}
	}
	load := func(surface, path, ready string) {
		t.Helper()
		b.do(surface, chromedp.Navigate(app.URL+path))
		b.waitFor(surface+" to render", ready)
		verdict(surface)
	}

	// Model output streamed live into the page, then the stored user text and answers.
	b.do("open a new chat", chromedp.Navigate(app.URL+"/chat/new"), chromedp.WaitVisible(chromedp.CSS(`#query`)))
	b.do("send a batch as the question", chromedp.SetValue(chromedp.CSS(`#query`), groups[0]), chromedp.Click(chromedp.CSS(`#send`)))
	b.waitFor("the streamed answer", `document.querySelector('[data-role=assistant][data-status=complete]')`)
	verdict("streamed model output")
	load("stored conversation and titles", fmt.Sprintf("/sessions/%d/chat", stored), `document.querySelectorAll('[data-testid=answer]').length >= 10`)
	b.do("search the history", chromedp.SendKeys(chromedp.CSS(`#history-search`), "onerror"))
	b.waitFor("search hits", `document.getElementById('history-results').innerText.includes('`+corpusSentinel+`')`)
	verdict("search hits")
	load("page view", fmt.Sprintf("/pages/%d", pageID), `document.querySelector('[data-testid=page-body]')`)
	load("page editor with the proposal", fmt.Sprintf("/pages/%d/edit", pageID), `document.querySelector('[data-testid=page-content]') && document.querySelector('[data-testid=proposal] [data-testid=accept]')`)
	res := c.PostForm(fmt.Sprintf("/pages/%d/preview", pageID), url.Values{"content": {corpus}})
	if bad := executableMarkup(t, res.Body); res.Status != http.StatusOK || len(bad) != 0 || !strings.Contains(res.Body, corpusSentinel) {
		t.Errorf("preview: %d %v", res.Status, bad)
	}
	load("agents list", "/agents", `document.body.innerText.includes('`+corpusSentinel+`')`)
	load("public agent page", "/chat/xssagent", `document.querySelector('.prose')`)
	load("embed", "/embed/agent/xssagent", `document.querySelector('.prose')`)
	load("share page", "/share/"+token, `document.querySelectorAll('.prose').length >= 10`)
}

// executableMarkup lists what in an HTML fragment could run or load: on* attributes, script-like
// URLs, hx-* attributes and script-like elements.
func executableMarkup(t *testing.T, fragment string) []string {
	var bad []string
	d := doc(t, fragment)
	d.Find("script, style, iframe, object, embed, base, meta, link, form, svg, math").Each(func(_ int, s *goquery.Selection) {
		bad = append(bad, goquery.NodeName(s))
	})
	d.Find("*").Each(func(_ int, s *goquery.Selection) {
		for _, a := range s.Nodes[0].Attr {
			name, value := strings.ToLower(a.Key), strings.ToLower(strings.TrimSpace(a.Val))
			if strings.HasPrefix(name, "on") || strings.HasPrefix(name, "hx-") || strings.HasPrefix(name, "data-hx") || name == "style" ||
				(name == "href" || name == "src") && (strings.HasPrefix(value, "javascript:") || strings.HasPrefix(value, "data:text")) {
				bad = append(bad, goquery.NodeName(s)+" "+name+"="+a.Val)
			}
		}
	})
	return bad
}
