package store_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/forumgm/forumgm/store"
)

// TestSQLiteFilesOwnerOnly: the database, its WAL and its SHM file hold
// every role and PM in clear; whatever the umask they are created 0600, and
// a file an older version left world-readable is tightened on open.
func TestSQLiteFilesOwnerOnly(t *testing.T) {
	old := syscall.Umask(0) // the most permissive umask: nothing taken away
	defer syscall.Umask(old)
	dir := t.TempDir()
	path := filepath.Join(dir, "g.db")
	db, err := store.Open(ctx, path)
	must(t, err)
	newGame(t, db, "g")
	checkModes := func(when string) {
		t.Helper()
		for _, s := range []string{"", "-wal", "-shm"} {
			fi, err := os.Stat(path + s)
			if err != nil {
				t.Fatalf("%s: %v", when, err) // WAL mode: all three exist while open
			}
			if m := fi.Mode().Perm(); m != 0o600 {
				t.Errorf("%s: %s has mode %v, want 0600", when, filepath.Base(path+s), m)
			}
		}
	}
	checkModes("new database")
	must(t, db.Close())

	for _, s := range []string{"", "-wal", "-shm"} {
		os.Chmod(path+s, 0o644) // as an older forumgm left it (if still there)
	}
	db, err = store.Open(ctx, path)
	must(t, err)
	newGame(t, db, "h")
	checkModes("reopened")
	must(t, db.Close())
}

// TestDSNPasswordNeverEchoed: whatever is wrong with a database URL, the
// error names it without its password.
func TestDSNPasswordNeverEchoed(t *testing.T) {
	const pw = "Hunter2secret"
	dsns := []string{
		"postgres://user:" + pw + "@host:badport/db",
		"postgres://user:" + pw + "@ho st/db",
		"postgres://user:" + pw + "@[::1/db",
		"postgresql://user:" + pw + "@127.0.0.1:1/db?sslmode=bogus",
		"postgres://user:" + pw + "@127.0.0.1:1/db?connect_timeout=1", // refused connection
		"postgres://user:Hun%zzter2secret@127.0.0.1:1/db",
		"postgres://user:" + pw + "@with@at/db",
		"postgres:/user:" + pw + "@host/db",   // a slash missing
		"postgres//user:" + pw + "@host/db",   // the colon missing
		"postgress://user:" + pw + "@host/db", // scheme misspelt
		"mysql://user:" + pw + "@host/db",
		"user:" + pw + "@host/db",
	}
	for _, dsn := range dsns {
		db, err := store.Open(ctx, dsn)
		if err == nil {
			db.Close()
			t.Errorf("%s: opened", store.Redact(dsn))
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "Hunter2") || strings.Contains(msg, "secret") || strings.Contains(msg, "%zz") {
			t.Errorf("the password leaks: %s", msg)
		}
		if strings.Contains(msg, "parse") && !strings.Contains(msg, "xxxxx") {
			t.Errorf("the error does not say which URL: %s", msg)
		}
		if _, err := os.Stat(dsn); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: a file was created for it", store.Redact(dsn))
		}
	}
}

func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://u:p@h/db", "postgres://u:xxxxx@h/db"},
		{"postgres://u@h/db", "postgres://u@h/db"},
		{"postgres://h/db", "postgres://h/db"},
		{"postgres://u:p@ss/w@h:5432/db?sslmode=disable", "postgres://u:xxxxx@h:5432/db?sslmode=disable"},
		{"postgres:/u:p@h/db", "postgres:/u:xxxxx@h/db"},
		{"u:p@h/db", "u:xxxxx@h/db"},
		{"host=h user=u password=s3cr3t dbname=d", "host=h user=u password=xxxxx dbname=d"},
		{"host=h password='a b' dbname=d", "host=h password=xxxxx dbname=d"},
		{"forumgm.db", "forumgm.db"},
		{"/var/lib/forumgm/a:b.db", "/var/lib/forumgm/a:b.db"},
	}
	for _, tc := range tests {
		if got := store.Redact(tc.in); got != tc.want {
			t.Errorf("Redact(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
