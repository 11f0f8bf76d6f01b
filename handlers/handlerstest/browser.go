package handlerstest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Browser returns a chromedp context on a new headless Chromium (Debian's `chromium`), closed when
// the test ends. The test fails on any console error, uncaught exception or failed request of
// the page (browser_errors.go; AllowBrowserErrors lets a test expect some). When the test fails, a full-page screenshot is saved to
// test-artifacts/<TestName>.png at the repository root first.
func Browser(t testing.TB) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium is not installed: run the tests with `make test`, which installs Debian's chromium")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.WindowSize(1280, 900),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	// No timeout on this context: it would stop the whole browser. Bound steps with WithTimeout.
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // start the browser now, so failures point here
		t.Fatalf("starting chromium: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			Screenshot(t, ctx, "failure")
		}
	})
	watchErrors(t, ctx)
	return ctx
}

// Screenshot saves a full-page PNG of the browser's page to test-artifacts/<TestName>-<label>.png.
func Screenshot(t testing.TB, ctx context.Context, label string) string {
	shotCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	png, err := chromedp.Run(shotCtx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Logf("screenshot failed: %v", err)
		return ""
	}
	dir := filepath.Join(repoRoot(), "test-artifacts")
	_ = os.MkdirAll(dir, 0o755)
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name()) + "-" + label + ".png"
	file := filepath.Join(dir, name)
	if err := os.WriteFile(file, png, 0o644); err != nil {
		t.Logf("saving screenshot: %v", err)
		return ""
	}
	t.Logf("screenshot saved: %s", file)
	return file
}

// repoRoot walks up from the working directory to the folder holding go.mod.
func repoRoot() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}
