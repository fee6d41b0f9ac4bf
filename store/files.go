package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// The SQLite file and its WAL and shared-memory files hold every role, hand
// and PM in clear, so they are the owner's alone (0600) whatever the umask:
// the file is created 0600 before SQLite opens it (SQLite then creates -wal
// and -shm with the main file's mode), and each is tightened again after
// opening, which also fixes a file an older forumgm left world-readable.

const privateMode fs.FileMode = 0o600

// sidecars are the files SQLite keeps next to the database.
var sidecars = []string{"", "-wal", "-shm", "-journal"}

// createPrivate creates path 0600 if it does not exist yet.
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, privateMode)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("store: create %s: %w", path, err)
	}
	// The umask can only have taken bits away (e.g. 0400); set exactly 0600.
	return chmodPrivate(path)
}

// tightenFiles makes the database and its sidecars that exist owner-only.
func tightenFiles(path string) error {
	for _, s := range sidecars {
		if err := chmodPrivate(path + s); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

func chmodPrivate(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.Mode().Perm() == privateMode {
		return nil
	}
	if err := os.Chmod(p, privateMode); err != nil {
		return fmt.Errorf("store: %s is readable by others (mode %v) and cannot be made owner-only: %w", p, fi.Mode().Perm(), err)
	}
	return nil
}
