package realboardtest_test

import (
	"fmt"
	"io"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/forumgm/forumgm/realboardtest"
)

// TestSettingWhileServing changes a board setting again and again while
// the board answers reads: no read may get an error page. The bot obeys a
// 503's Retry-After (MyBB's error page says 1800 s), so one error page in a
// test that changes a setting mid-game holds the bot for 5 minutes. (MyBB's
// own rebuild_settings rewrites inc/settings.php in place; rb_setting
// renames a whole file into place. The in-place race did not show in 1,000
// reads here, so this guards the harness rather than proving the cause of
// the CI run whose MyBB game stalled for exactly 5 minutes.)
func TestSettingWhileServing(t *testing.T) {
	t.Parallel()
	for _, engine := range []string{realboardtest.PhpBB, realboardtest.MyBB} {
		t.Run(engine, func(t *testing.T) {
			b := realboardtest.Start(t, engine, realboardtest.Options{Players: []string{"Alice"}})
			name := map[string]string{realboardtest.PhpBB: "flood_interval", realboardtest.MyBB: "postfloodsecs"}[engine]
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var mu sync.Mutex
			reads, bad := 0, []string{}
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := &http.Client{Timeout: 30 * time.Second}
				for {
					select {
					case <-stop:
						return
					default:
					}
					resp, err := c.Get(b.URL + "index.php")
					if err != nil {
						mu.Lock()
						bad = append(bad, err.Error())
						mu.Unlock()
						continue
					}
					body, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					mu.Lock()
					reads++
					if resp.StatusCode != http.StatusOK {
						bad = append(bad, fmt.Sprintf("HTTP %d Retry-After %q: %.200s", resp.StatusCode, resp.Header.Get("Retry-After"), body))
					}
					mu.Unlock()
				}
			}()
			for i := range 30 {
				b.Setting(t, name, fmt.Sprint(2+i%2))
			}
			close(stop)
			wg.Wait()
			t.Logf("%d reads while the setting changed 30 times", reads)
			if len(bad) > 0 {
				t.Errorf("%d of %d reads failed; the first: %s", len(bad), reads, bad[0])
			}
		})
	}
}
