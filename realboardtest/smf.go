//go:build linux

package realboardtest

import (
	"bytes"
	"database/sql"
	_ "embed"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"
	_ "github.com/lib/pq"

	"github.com/forumgm/forumgm/store/pgtest"
)

// SMF is Simple Machines Forum 2.1.4 on PostgreSQL (SMF 2.1 has no SQLite).
const SMF = "smf"

//go:embed php/smf_boot.php
var smfBoot []byte

// smfRole owns every SMF database of a test binary's PostgreSQL server.
const smfRole = "smf"

// smfDump, inside a pristine SMF copy, is pg_dump's plain SQL of the
// installed database; smfURLFile holds the URL the board was installed at.
const (
	smfDump    = ".realboard-smf.sql"
	smfURLFile = ".realboard-url"
)

func init() {
	engines[SMF] = &engine{
		name: SMF, archive: "smf-2.1.4.tar.gz", archiveRoot: "smf",
		extensions: []extension{{"pgsql", "php-pgsql"}, {"mbstring", "php-mbstring"}, {"json", "php-cli"}, {"xml", "php-xml"}},
		writable:   []string{"cache", "attachments", "custom_avatar", "Settings.php", "Settings_bak.php"},
		prefix:     "smf_",
		boot:       smfBoot,
		start:      startSMF,
	}
}

// smfServer is the test binary's PostgreSQL server as SMF reaches it, and
// the template database holding the pristine install (one per binary).
type smfServer struct {
	port  int
	admin string // DSN of the postgres role on the postgres database
	tpl   string // template database name, "" until restored
	n     int
	mu    sync.Mutex
}

var (
	smfSrvOnce sync.Once
	smfSrv     *smfServer
	smfSrvErr  error
)

// smfPostgres gets the test binary's PostgreSQL (store/pgtest) and
// makes sure the smf role exists.
func smfPostgres(t testing.TB) (*smfServer, error) {
	dsn, err := pgtest.TryDSN(t)
	if err != nil {
		return nil, err
	}
	smfSrvOnce.Do(func() {
		u, err := url.Parse(dsn)
		if err != nil {
			smfSrvErr = err
			return
		}
		port, _ := strconv.Atoi(u.Port())
		u.Path = "/postgres"
		s := &smfServer{port: port, admin: u.String()}
		db, err := sql.Open("postgres", s.admin)
		if err != nil {
			smfSrvErr = err
			return
		}
		defer db.Close()
		var n int
		if err := db.QueryRow(`SELECT count(*) FROM pg_roles WHERE rolname = $1`, smfRole).Scan(&n); err != nil {
			smfSrvErr = err
			return
		}
		if n == 0 {
			if _, err := db.Exec(`CREATE ROLE ` + smfRole + ` LOGIN CREATEDB`); err != nil {
				smfSrvErr = err
				return
			}
		}
		smfSrv = s
	})
	return smfSrv, smfSrvErr
}

func (s *smfServer) exec(q string) error {
	db, err := sql.Open("postgres", s.admin)
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.Exec(q)
	return err
}

// newDB creates an empty database owned by the smf role, or a copy of the
// template when there is one.
func (s *smfServer) newDB(fromTemplate bool) (string, error) {
	s.mu.Lock()
	s.n++
	name := fmt.Sprintf("smf_%d_%d", os.Getpid(), s.n)
	s.mu.Unlock()
	q := `CREATE DATABASE ` + name + ` OWNER ` + smfRole
	if fromTemplate {
		q += ` TEMPLATE ` + s.tpl
	}
	return name, s.exec(q)
}

// relocateDB moves the URLs and paths the install stored in the settings
// and themes tables (theme_dir, theme_url, smileys_url, …) to the copy.
func (s *smfServer) relocateDB(name, oldURL, newURL, oldRoot, newRoot string) error {
	db, err := sql.Open("postgres", s.dsn(name))
	if err != nil {
		return err
	}
	defer db.Close()
	for _, table := range []string{"smf_settings", "smf_themes"} {
		if _, err := db.Exec(`UPDATE `+table+` SET value = REPLACE(REPLACE(value, $1, $2), $3, $4)`, oldURL, newURL, oldRoot, newRoot); err != nil {
			return err
		}
	}
	return nil
}

// dsn is a database's DSN as the smf role.
func (s *smfServer) dsn(name string) string {
	u, _ := url.Parse(s.admin)
	u.User = url.User(smfRole)
	u.Path = "/" + name
	return u.String()
}

// SMFFloodControl gives an SMF board on PostgreSQL the flood control SMF
// has on MySQL. SMF 2.1.4's spamProtection() takes "affected rows != 1"
// after its REPLACE into log_floodcontrol to mean "posted too recently"
// (MySQL's REPLACE reports 2 when it replaced a row), but on PostgreSQL
// the REPLACE is INSERT … ON CONFLICT DO UPDATE, which reports 1 either
// way: an SMF board on PostgreSQL never refuses a post, PM or login as too
// quick. A trigger that skips the UPDATE makes a recent row stay and
// report 0, so the board refuses as it does on MySQL (rows older than
// the wait are deleted first, as always).
func (b *Board) SMFFloodControl(t testing.TB) {
	t.Helper()
	if b.Engine != SMF {
		t.Fatalf("realboardtest: SMFFloodControl on %s", b.Engine)
	}
	db, err := sql.Open("postgres", b.dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE OR REPLACE FUNCTION rb_keep_flood_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$`,
		`CREATE TRIGGER rb_keep_flood_row BEFORE UPDATE ON smf_log_floodcontrol FOR EACH ROW EXECUTE FUNCTION rb_keep_flood_row()`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("realboardtest: SMF flood control: %v", err)
		}
	}
}

// template restores the pristine dump into this server's template
// database, once per test binary.
func (s *smfServer) template(dump string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.tpl != "" {
		return nil
	}
	name := fmt.Sprintf("smf_tpl_%d", os.Getpid())
	if err := s.exec(`CREATE DATABASE ` + name + ` OWNER ` + smfRole); err != nil {
		return err
	}
	psql, err := pgTool("psql")
	if err != nil {
		return err
	}
	cmd := exec.Command(psql, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", strconv.Itoa(s.port),
		"-U", smfRole, "-d", name, "-f", dump)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("restoring the SMF dump: %v: %s", err, tail(string(out), 2000))
	}
	s.tpl = name
	return nil
}

// pgTool finds a PostgreSQL client program: in FORUMGM_PG_BIN, the newest
// /usr/lib/postgresql/N/bin, or on PATH.
func pgTool(name string) (string, error) {
	if d := os.Getenv("FORUMGM_PG_BIN"); d != "" {
		return filepath.Join(d, name), nil
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/" + name)
	sort.Slice(found, func(i, j int) bool { return pgMajor(found[i]) < pgMajor(found[j]) })
	if len(found) > 0 {
		return found[len(found)-1], nil
	}
	return exec.LookPath(name)
}

func pgMajor(p string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(p))))
	return n
}

// startSMF is Start for SMF: the pristine copy's files are copied as for
// the other engines, its database is a copy of the template restored from
// the cached dump, and Settings.php plus the URLs and paths SMF stores in
// its settings and themes tables are moved to the copy.
func startSMF(t testing.TB, eng *engine, php, archive string, opt Options) *Board {
	t.Helper()
	srv, err := smfPostgres(t)
	if err != nil {
		unavailable(t, "no PostgreSQL for SMF: %v", err)
	}
	pristine, err := pristineSMF(php, eng, archive, srv)
	if err != nil {
		t.Fatalf("realboardtest: installing smf: %v", err)
	}
	opt = defaults(opt)
	t0 := time.Now()
	if err := srv.template(filepath.Join(pristine.dir, smfDump)); err != nil {
		t.Fatalf("realboardtest: %v", err)
	}
	dbName, err := srv.newDB(true)
	if err != nil {
		t.Fatalf("realboardtest: SMF database: %v", err)
	}
	dir := filepath.Join(t.TempDir(), eng.name)
	if err := copyBoard(pristine.dir, dir, eng.writable); err != nil {
		t.Fatalf("realboardtest: copying the pristine smf: %v", err)
	}
	os.Remove(filepath.Join(dir, smfDump))
	port, err := freePort()
	if err != nil {
		t.Fatalf("realboardtest: %v", err)
	}
	oldURL, _ := os.ReadFile(filepath.Join(pristine.dir, smfURLFile))
	b := &Board{Engine: eng.name, Dir: dir, eng: eng, php: php, logf: filepath.Join(filepath.Dir(dir), "php-server.log")}
	b.URL = fmt.Sprintf("http://127.0.0.1:%d/", port)
	b.dsn = srv.dsn(dbName)
	if err := relocateSMF(dir, pristine.root, string(oldURL), strings.TrimSuffix(b.URL, "/"), dbName, srv.port); err != nil {
		t.Fatalf("realboardtest: %v", err)
	}
	if err := srv.relocateDB(dbName, string(oldURL), strings.TrimSuffix(b.URL, "/"), pristine.root, dir); err != nil {
		t.Fatalf("realboardtest: moving the SMF database's URLs and paths: %v", err)
	}
	var setup struct {
		Forum, Topic, Post int
		Bot                int
		Players            []int
	}
	if err := b.phpJSON(smfSetupCode(opt), &setup); err != nil {
		t.Fatalf("realboardtest: setting up the smf board: %v", err)
	}
	b.ForumID, b.ThreadID, b.OpeningPostID = setup.Forum, setup.Topic, setup.Post
	b.Bot = Account{Name: opt.Bot, Password: password(opt.Bot), ID: setup.Bot}
	for i, name := range opt.Players {
		b.Players = append(b.Players, Account{Name: name, Password: password(name), ID: setup.Players[i]})
	}
	if err := b.serve(port); err != nil {
		b.Stop()
		t.Fatalf("realboardtest: starting php -S for smf: %v\n%s", err, b.ServerLog())
	}
	t.Cleanup(b.Stop)
	t.Logf("realboardtest: smf at %s (database %s; copy and start %.1fs; install %s)", b.URL, dbName, time.Since(t0).Seconds(), pristine.cost)
	return b
}

// relocateSMF points the copy's Settings.php at its directory, URL and
// database (SMF stores absolute paths and the URL there).
func relocateSMF(dir, oldRoot, oldURL, newURL, dbName string, port int) error {
	path := filepath.Join(dir, "Settings.php")
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	s := strings.ReplaceAll(string(data), oldRoot, dir)
	s = strings.ReplaceAll(s, oldURL, newURL)
	s = setPHPVar(s, "db_name", "'"+dbName+"'")
	s = setPHPVar(s, "db_port", strconv.Itoa(port))
	return os.WriteFile(path, []byte(s), 0o644)
}

// setPHPVar replaces the value of `$name = …;` in a Settings.php.
func setPHPVar(src, name, value string) string {
	re := regexp.MustCompile(`(?m)^\$` + name + `\s*=\s*[^;]*;`)
	return re.ReplaceAllLiteralString(src, "$"+name+" = "+value+";")
}

// smfSetupCode creates the accounts and the game thread (board 1, the one
// board the installer creates).
func smfSetupCode(opt Options) string {
	var b strings.Builder
	fmt.Fprintf(&b, "$bot = rb_add_user(%s, %s);\n$players = [];\n", phpString(opt.Bot), phpString(password(opt.Bot)))
	for _, p := range opt.Players {
		fmt.Fprintf(&b, "$players[] = rb_add_user(%s, %s);\n", phpString(p), phpString(password(p)))
	}
	fmt.Fprintf(&b, "[$t, $p] = rb_post($bot, 1, 0, %s, %s);\n", phpString(opt.Subject), phpString(opt.Opening))
	b.WriteString("echo json_encode(['Forum' => 1, 'Topic' => $t, 'Post' => $p, 'Bot' => $bot, 'Players' => $players]);\n")
	return b.String()
}

// pristineSMF is pristineCopy for SMF: the install needs a database, and
// the cache keeps a dump of it beside the files.
func pristineSMF(php string, eng *engine, archive string, srv *smfServer) (*pristine, error) {
	return pristineCopyWith(eng, archive, func(work string) error {
		return installSMF(php, work, srv)
	})
}

// installSMF clicks through install.php over HTTP as an admin would (each
// step is a form: every field it holds is sent back, with the database
// and admin fields filled in), removes the installer, and dumps the
// database into the copy.
func installSMF(php, dir string, srv *smfServer) error {
	for _, f := range []string{"install.php", "Settings.php", "Settings_bak.php", "install_2-1_postgresql.sql"} {
		if err := copyFile(filepath.Join(dir, "other", f), filepath.Join(dir, f), 0o644); err != nil {
			return err
		}
	}
	dbName, err := srv.newDB(false)
	if err != nil {
		return err
	}
	port, err := freePort()
	if err != nil {
		return err
	}
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	// The installer asks its own board whether it redirects to https (a
	// request to itself, which a one-process php -S answers only after
	// that request ends): each of two steps waited out PHP's 60 s socket
	// timeout, two of the install's two minutes. Two seconds give the same
	// answer (no redirect) at once.
	cmd := exec.Command(php, "-d", "default_socket_timeout=2", "-S", fmt.Sprintf("127.0.0.1:%d", port), "-t", dir)
	cmd.Dir = dir
	cmd.Env = append(filterEnv(os.Environ(), "PHP_CLI_SERVER_WORKERS"), "TZ=UTC")
	var serverLog bytes.Buffer
	cmd.Stdout, cmd.Stderr = &serverLog, &serverLog
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, Timeout: 5 * time.Minute}
	fill := map[string]string{
		"db_type": "postgresql", "db_server": "127.0.0.1", "db_port": strconv.Itoa(srv.port),
		"db_user": smfRole, "db_passwd": "", "db_name": dbName, "db_prefix": "smf_",
		"boardurl": base, "mbname": "forumgm test board",
		"username": "admin", "password1": password("admin"), "password2": password("admin"),
		"email": "admin@example.com", "server_email": "admin@example.com",
	}
	var resp *http.Response
	for try := 0; try < 100; try++ { // the server may still be starting
		resp, err = client.Get(base + "/install.php")
		if err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	for step := 0; ; step++ {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		page := string(body)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("SMF installer: HTTP %d: %s", resp.StatusCode, tail(stripTags(page), 2000))
		}
		if strings.Contains(page, "doTheDelete") || strings.Contains(page, "Congratulations, the installation process is complete") {
			break
		}
		if step > 20 {
			return fmt.Errorf("SMF installer does not finish: %s", tail(stripTags(page), 2000))
		}
		doc, err := goquery.NewDocumentFromReader(strings.NewReader(page))
		if err != nil {
			return err
		}
		if e := strings.TrimSpace(doc.Find("div.errorbox, #errors, .error_content").First().Text()); e != "" {
			return fmt.Errorf("SMF installer: %s", e)
		}
		form := doc.Find(`form[method="post"]`).First()
		action, ok := form.Attr("action")
		if !ok {
			return fmt.Errorf("SMF installer: no form on: %s", tail(stripTags(page), 2000))
		}
		vals := url.Values{}
		form.Find("input, select, textarea").Each(func(_ int, s *goquery.Selection) {
			name, ok := s.Attr("name")
			if !ok || name == "" {
				return
			}
			typ, _ := s.Attr("type")
			switch {
			case goquery.NodeName(s) == "select":
				v, _ := s.Find("option[selected]").First().Attr("value")
				if v == "" {
					v, _ = s.Find("option").First().Attr("value")
				}
				vals.Set(name, v)
			case typ == "checkbox" || typ == "radio":
				if _, on := s.Attr("checked"); on {
					v, ok := s.Attr("value")
					if !ok {
						v = "on"
					}
					vals.Set(name, v)
				}
			case typ == "submit":
				v, _ := s.Attr("value")
				vals.Set(name, v)
			default:
				v, _ := s.Attr("value")
				if goquery.NodeName(s) == "textarea" {
					v = s.Text()
				}
				vals.Set(name, v)
			}
		})
		for k, v := range fill {
			if _, present := vals[k]; present || form.Find(fmt.Sprintf(`[name=%q]`, k)).Length() > 0 {
				vals.Set(k, v)
			}
		}
		vals.Del("force_ssl")
		target, err := url.Parse(action)
		if err != nil {
			return err
		}
		resp, err = client.PostForm(resolveURL(base+"/install.php", target), vals)
		if err != nil {
			return fmt.Errorf("SMF installer step %d: %v", step, err)
		}
	}
	os.Remove(filepath.Join(dir, "install.php"))
	os.Remove(filepath.Join(dir, "install_2-1_postgresql.sql"))
	pgDump, err := pgTool("pg_dump")
	if err != nil {
		return err
	}
	dump := exec.Command(pgDump, "--no-owner", "--no-privileges", "-h", "127.0.0.1", "-p", strconv.Itoa(srv.port),
		"-U", smfRole, "-f", filepath.Join(dir, smfDump), dbName)
	if out, err := dump.CombinedOutput(); err != nil {
		return fmt.Errorf("pg_dump: %v: %s", err, out)
	}
	if err := clearDir(filepath.Join(dir, "cache"), "index.php", ".htaccess"); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, smfURLFile), []byte(base), 0o644)
}

func resolveURL(base string, ref *url.URL) string {
	b, _ := url.Parse(base)
	return b.ResolveReference(ref).String()
}

// clearDir removes the files of a directory but those named in keep (SMF's
// file cache written during the install names the install's URL).
func clearDir(dir string, keep ...string) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	for _, e := range entries {
		kept := false
		for _, k := range keep {
			kept = kept || e.Name() == k
		}
		if !kept && !e.IsDir() {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// PostErr is Post returning its error instead of failing the test (for
// simulated players running beside the moderator).
func (b *Board) PostErr(as Account, text string) (int, error) {
	var id int
	err := b.phpJSON(fmt.Sprintf("[$t, $p] = rb_post(%d, %d, %d, %s, %s); echo json_encode($p);",
		as.ID, b.ForumID, b.ThreadID, phpString("Re: game"), phpString(text)), &id)
	return id, err
}

// PMErr is PM returning its error instead of failing the test.
func (b *Board) PMErr(from, to Account, subject, text string) (int, error) {
	var id int
	err := b.phpJSON(fmt.Sprintf("echo json_encode(rb_pm(%d, %d, %s, %s));", from.ID, to.ID, phpString(subject), phpString(text)), &id)
	return id, err
}
