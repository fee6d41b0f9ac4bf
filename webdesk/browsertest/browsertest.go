// Package browsertest starts a real headless Chromium (Debian's chromium
// package) for tests, driven through chromedp: the one package of ours that
// uses chromedp. A test skips with the reason when there is no Chromium,
// unless FORUMGM_REQUIRE_BROWSER=1 (as CI sets), when that is a failure.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Required says whether a missing browser fails the tests.
func Required() bool { return os.Getenv("FORUMGM_REQUIRE_BROWSER") == "1" }

// Path finds Chromium: $FORUMGM_CHROMIUM, or chromium / chromium-browser /
// google-chrome on the PATH.
func Path() (string, bool) {
	if p := os.Getenv("FORUMGM_CHROMIUM"); p != "" {
		return p, true
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(n); err == nil {
			return p, true
		}
	}
	return "", false
}

// Start opens a tab for t in the test binary's one headless browser (started
// by the first call), closed when t ends. Each tab has its own browser
// context (its own cookies and storage, as a fresh profile), so nothing
// leaks between tests, and tests may run side by side. Call Stop from
// TestMain after m.Run to end the browser and remove its profile.
func Start(t testing.TB, timeout time.Duration) context.Context {
	t.Helper()
	path, ok := Path()
	if !ok {
		if Required() {
			t.Fatal("no Chromium found (FORUMGM_REQUIRE_BROWSER=1): apt-get install chromium, or set FORUMGM_CHROMIUM")
		}
		t.Skip("no Chromium on this machine (apt-get install chromium); browser tests skipped")
	}
	root, err := browser(path)
	if err != nil {
		if Required() {
			t.Fatalf("starting Chromium at %s: %v", path, err)
		}
		t.Skipf("Chromium at %s does not start (%v); browser tests skipped", path, err)
	}
	ctx, cancelCtx := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
	tctx, cancelT := context.WithTimeout(ctx, timeout)
	t.Cleanup(func() { cancelT(); cancelCtx() })
	if err := chromedp.Do(tctx); err != nil { // opens the tab
		t.Fatalf("opening a tab in Chromium: %v", err)
	}
	// The page's viewport, not the window's outer size, is 1280×900.
	if err := Desktop(tctx); err != nil {
		t.Fatalf("sizing the window: %v", err)
	}
	return tctx
}

// shared is the test binary's browser: starting one takes a second or two
// of a small machine's CPU, a tab a few milliseconds.
var shared struct {
	sync.Mutex
	ctx    context.Context
	cancel func()
	dir    string
	err    error
}

// browser starts the shared browser once and returns its context.
func browser(path string) (context.Context, error) {
	shared.Lock()
	defer shared.Unlock()
	if shared.ctx != nil || shared.err != nil {
		return shared.ctx, shared.err
	}
	dir, err := os.MkdirTemp("", "forumgm-chromium-")
	if err != nil {
		shared.err = err
		return nil, err
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.UserDataDir(dir),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("no-sandbox", os.Geteuid() == 0), // Chromium refuses its sandbox as root
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(actx)
	// Not bound to any test's time: the browser lives as long as the binary.
	if err := chromedp.Do(ctx); err != nil {
		cancelCtx()
		cancelAlloc()
		os.RemoveAll(dir)
		shared.err = err
		return nil, err
	}
	shared.ctx, shared.dir = ctx, dir
	shared.cancel = func() { cancelCtx(); cancelAlloc() }
	return ctx, nil
}

// Stop ends the shared browser, if one was started, and removes its
// profile.
func Stop() {
	shared.Lock()
	defer shared.Unlock()
	if shared.cancel != nil {
		shared.cancel()
		os.RemoveAll(shared.dir)
	}
	shared.ctx, shared.cancel, shared.err = nil, nil, nil
}

// Screenshot saves what the window shows (1280×900) as a PNG at path,
// when path is not "".
func Screenshot(ctx context.Context, path string) error {
	if path == "" {
		return nil
	}
	buf, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, buf, 0o644)
}

// ElementScreenshot saves the first element matching css as a PNG at
// path, when path is not "".
func ElementScreenshot(ctx context.Context, css, path string) error {
	if path == "" {
		return nil
	}
	buf, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(css)))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, buf, 0o644)
}

// Phone makes the window a phone's (390×844 CSS pixels, a touch screen
// that honours the page's viewport); Desktop makes it 1280×900 again.
func Phone(ctx context.Context) error {
	return chromedp.Do(ctx, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateTouch))
}

// Desktop undoes Phone.
func Desktop(ctx context.Context) error {
	return chromedp.Do(ctx, chromedp.EmulateViewport(1280, 900))
}
