//go:build linux

package realboardtest

import (
	_ "embed"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

type extension struct{ module, pkg string }

// engine is what differs between the boards: the archive, how to install
// it, what a copy must rewrite, and the setup snippet.
type engine struct {
	name        string
	archive     string // file name in the engines dir
	archiveRoot string // its top directory
	extensions  []extension
	// writable paths (relative to the board root) a copy must not share
	// with the pristine copy.
	writable []string
	prefix   string // table prefix
	boot     []byte // php/*_boot.php
	install  func(php, dir string) error
	relocate func(dir, oldRoot string) error
	setup    func(port int, opt Options) string
	// charset sets a copy's charset as its admin would (nil: the engine
	// allows none but UTF-8; noLegacyCharset says why).
	charset func(dir, charset string) error
	// start replaces Start's generic steps for an engine that needs more
	// than files (SMF: a PostgreSQL database).
	start func(t testing.TB, eng *engine, php, archive string, opt Options) *Board
}

var (
	//go:embed php/phpbb_boot.php
	phpbbBoot []byte
	//go:embed php/mybb_boot.php
	mybbBoot []byte
)

var engines = map[string]*engine{
	PhpBB: {
		name: PhpBB, archive: "phpbb-3.3.10.tar.gz", archiveRoot: "phpbb",
		extensions: []extension{{"sqlite3", "php-sqlite3"}, {"dom", "php-xml"}, {"xml", "php-xml"}, {"mbstring", "php-mbstring"}, {"json", "php-cli"}},
		writable:   []string{"cache", "store", "files", filepath.Join("images", "avatars", "upload"), "config.php"},
		prefix:     "phpbb_",
		boot:       phpbbBoot,
		install:    installPhpBB,
		relocate: func(dir, old string) error {
			return rewriteFile(filepath.Join(dir, "config.php"), old, dir)
		},
		setup: func(port int, opt Options) string {
			return fmt.Sprintf("$config->set('server_port', %d);\n", port) + setupCode(opt)
		},
	},
	MyBB: {
		name: MyBB, archive: "mybb-1.8.37.tar.gz", archiveRoot: "mybb",
		extensions: []extension{{"pdo_sqlite", "php-sqlite3"}, {"xml", "php-xml"}, {"mbstring", "php-mbstring"}, {"json", "php-cli"}},
		writable:   []string{"cache", "uploads", filepath.Join("inc", "config.php"), filepath.Join("inc", "settings.php"), filepath.Join("admin", "backups")},
		prefix:     "mybb_",
		boot:       mybbBoot,
		install:    installMyBB,
		relocate: func(dir, old string) error {
			return rewriteFile(filepath.Join(dir, "inc", "config.php"), old, dir)
		},
		charset: func(dir, charset string) error {
			// The language file names the charset every page declares
			// (output_page's Content-Type, headerinclude's <meta>).
			return relinkRewrite(filepath.Join(dir, "inc", "languages", "english.php"),
				`$langinfo['charset'] = "UTF-8";`, `$langinfo['charset'] = "`+charset+`";`)
		},
		setup: func(port int, opt Options) string {
			// Links and redirects are built from bburl: the copy's port.
			return fmt.Sprintf("rb_setting('bburl', 'http://127.0.0.1:%d');\n", port) + setupCode(opt)
		},
	},
}

// noLegacyCharset is why an engine's board cannot be set to a legacy
// charset (Options.Charset), from its source.
var noLegacyCharset = map[string]string{
	PhpBB: "phpBB 3 is UTF-8 only: prosilver's overall_header.html hard-codes <meta charset=\"utf-8\" />, page_header() sends text/html; charset=UTF-8 (includes/functions.php), and every request string goes through htmlspecialchars(…, 'UTF-8') (phpbb/request/type_cast_helper.php), which gives '' for bytes that are not UTF-8",
	SMF:   "SMF 2.1's installer sets global_character_set to UTF-8 (other/install.php: \"Make sure UTF will be used globally\"), its upgrader sets UTF-8 on every PostgreSQL board without converting (other/upgrade.php), and the kit's PostgreSQL is initdb -E UTF8, which refuses the bytes of an ISO-8859-1 form",
}

// setupCode creates the accounts and the game thread (forum 2 is the one
// forum both installers create) and prints what Start needs.
func setupCode(opt Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "$bot = rb_add_user(%s, %s);\n$players = [];\n", phpString(opt.Bot), phpString(password(opt.Bot)))
	for _, p := range opt.Players {
		fmt.Fprintf(&b, "$players[] = rb_add_user(%s, %s);\n", phpString(p), phpString(password(p)))
	}
	fmt.Fprintf(&b, "[$t, $p] = rb_post($bot, 2, 0, %s, %s);\n", phpString(opt.Subject), phpString(opt.Opening))
	b.WriteString("echo json_encode(['Forum' => 2, 'Topic' => $t, 'Post' => $p, 'Bot' => $bot, 'Players' => $players]);\n")
	return b.String()
}

// installPhpBB runs phpBB's CLI installer, then removes install/ (the board
// refuses to run while it exists).
func installPhpBB(php, dir string) error {
	cfg := fmt.Sprintf(`installer:
    admin:
        name: admin
        password: %s
        email: admin@example.com
    board:
        lang: en
        name: forumgm test board
        description: a real phpBB for forumgm's tests
    database:
        dbms: sqlite3
        dbhost: %s
        dbport: ~
        dbuser: ~
        dbpasswd: ~
        dbname: ~
        table_prefix: phpbb_
    email:
        enabled: false
        smtp_delivery: ~
        smtp_host: ~
        smtp_port: ~
        smtp_auth: ~
        smtp_user: ~
        smtp_pass: ~
    server:
        cookie_secure: false
        server_protocol: http://
        force_server_vars: false
        server_name: 127.0.0.1
        server_port: 80
        script_path: /
    extensions: []
`, password("admin"), filepath.Join(dir, "store", "board.sqlite3"))
	yml := dir + ".install.yml"
	if err := os.WriteFile(yml, []byte(cfg), 0o600); err != nil {
		return err
	}
	defer os.Remove(yml)
	cmd := exec.Command(php, "install/phpbbcli.php", "install", yml)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "TZ=UTC")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "installer has finished successfully") {
		return fmt.Errorf("phpBB CLI installer: %v: %s", err, tail(string(out), 3000))
	}
	return os.RemoveAll(filepath.Join(dir, "install"))
}

// installMyBB clicks through install/index.php over HTTP, as an admin
// would, taking every default the installer offers but one: the cookie
// domain it suggests for a board at 127.0.0.1 is ".127.0.0.1", which
// browsers and Go's cookie jar refuse for an IP host (so nobody could log
// in); a board with a host name gets ".host", which works, so the harness
// leaves the domain empty (host-only cookies). Then it removes install/.
func installMyBB(php, dir string) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	cmd := exec.Command(php, "-S", fmt.Sprintf("127.0.0.1:%d", port), "-t", dir)
	cmd.Dir = dir
	cmd.Env = append(filterEnv(os.Environ(), "PHP_CLI_SERVER_WORKERS"), "TZ=UTC")
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 2 * time.Minute}
	step := func(want string, kv ...string) error {
		vals := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			vals.Set(kv[i], kv[i+1])
		}
		var resp *http.Response
		var err error
		for try := 0; try < 100; try++ { // the server may still be starting
			resp, err = client.PostForm(base+"/install/index.php", vals)
			if err == nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), want) {
			return fmt.Errorf("MyBB installer step %s: HTTP %d, no %q in: %s", vals.Get("action"), resp.StatusCode, want, tail(stripTags(string(body)), 2000))
		}
		return nil
	}
	steps := []struct {
		want string
		kv   []string
	}{
		{"License Agreement", []string{"action", "license"}},
		{"Requirements Check", []string{"action", "requirements_check"}},
		{"Database Configuration", []string{"action", "database_info"}},
		{"All tables have been created", []string{"action", "create_tables", "dbengine", "sqlite",
			"config[sqlite][dbname]", filepath.Join(dir, "board.sqlite"), "config[sqlite][tableprefix]", "mybb_"}},
		{"default data has successfully been inserted", []string{"action", "populate_tables"}},
		{"theme and template sets have been successfully inserted", []string{"action", "templates"}},
		{"Board Configuration", []string{"action", "configuration"}},
		{"Administrator", []string{"action", "adminuser", "bbname", "Forums", "bburl", base,
			"websitename", "forumgm tests", "websiteurl", base + "/", "cookiedomain", "",
			"cookiepath", "/", "contactemail", "admin@example.com", "pin", ""}},
		{"successfully been installed", []string{"action", "final", "adminuser", "admin",
			"adminpass", password("admin"), "adminpass2", password("admin"), "adminemail", "admin@example.com"}},
	}
	for _, s := range steps {
		if err := step(s.want, s.kv...); err != nil {
			return err
		}
	}
	return os.RemoveAll(filepath.Join(dir, "install"))
}

func stripTags(s string) string {
	var b strings.Builder
	in := false
	for _, r := range s {
		switch {
		case r == '<':
			in = true
		case r == '>':
			in = false
			b.WriteRune(' ')
		case !in:
			b.WriteRune(r)
		}
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
