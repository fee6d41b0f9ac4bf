//go:build linux

package realboardtest

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"
)

// harnessVersion is part of the cache key: bump it when an install step
// changes so no stale pristine copy is reused.
const harnessVersion = "2"

// rootFile, inside a pristine copy, holds the directory the board was
// installed in (its config names paths under it).
const rootFile = ".realboard-root"

type pristine struct {
	dir  string // the pristine board root
	root string // the directory it was installed as
	cost string // how long the install took, or "cached"
}

var (
	pristineMu  sync.Mutex
	pristineFor = map[string]*pristine{}
)

// pristineCopy returns the engine's installed pristine copy, installing it
// the first time: under the system temp dir, keyed by the archive's hash,
// locked so concurrent test binaries install it once.
func pristineCopy(php string, eng *engine, archive string) (*pristine, error) {
	return pristineCopyWith(eng, archive, func(work string) error { return eng.install(php, work) })
}

// pristineCopyWith is pristineCopy with the install step given (SMF's
// needs a database server).
func pristineCopyWith(eng *engine, archive string, install func(work string) error) (*pristine, error) {
	pristineMu.Lock()
	defer pristineMu.Unlock()
	if p, ok := pristineFor[archive]; ok {
		return p, nil
	}
	sum, err := fileHash(archive)
	if err != nil {
		return nil, err
	}
	base := filepath.Join(os.TempDir(), "forumgm-realboard")
	if err := os.MkdirAll(base, 0o755); err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%s-v%s-%s", eng.name, harnessVersion, sum[:16])
	final := filepath.Join(base, key)
	unlock, err := lockPath(final)
	if err != nil {
		return nil, err
	}
	defer unlock()

	p := &pristine{dir: final, cost: "cached"}
	if root, err := os.ReadFile(filepath.Join(final, rootFile)); err == nil {
		p.root = string(root)
		pristineFor[archive] = p
		return p, nil
	}
	os.RemoveAll(final) // a half-made copy from a killed run
	t0 := time.Now()
	work := fmt.Sprintf("%s.tmp%d", final, os.Getpid())
	os.RemoveAll(work)
	if err := extract(archive, work, eng.archiveRoot); err != nil {
		os.RemoveAll(work)
		return nil, err
	}
	if err := install(work); err != nil {
		os.RemoveAll(work)
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(work, rootFile), []byte(work), 0o644); err != nil {
		return nil, err
	}
	if err := os.Rename(work, final); err != nil {
		return nil, err
	}
	p.root = work
	p.cost = time.Since(t0).Round(100 * time.Millisecond).String()
	pristineFor[archive] = p
	return p, nil
}

// lockPath takes path's lock file (path.lock) for this process, waiting
// while another test binary holds it, and returns its release.
func lockPath(path string) (func(), error) {
	lock, err := os.OpenFile(path+".lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		lock.Close()
		return nil, err
	}
	return func() {
		syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
		lock.Close()
	}, nil
}

func fileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// extract unpacks a .tar.gz, keeping only what is under its top directory
// root (that directory becomes dst).
func extract(archive, dst, root string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	prefix := root + "/"
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(h.Name, "./")
		if !strings.HasPrefix(name, prefix) {
			continue
		}
		rel := filepath.FromSlash(strings.TrimPrefix(name, prefix))
		if rel == "" || strings.HasPrefix(filepath.Clean(rel), "..") {
			continue
		}
		target := filepath.Join(dst, rel)
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			out, err := os.OpenFile(target, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(h.Mode)&0o755|0o644)
			if err != nil {
				return err
			}
			_, err = io.Copy(out, tr)
			if cerr := out.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				return err
			}
		case tar.TypeSymlink:
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(h.Linkname, target); err != nil {
				return err
			}
		}
	}
}

// copyBoard copies the pristine board to dst: paths under writable (and
// the SQLite files) are copied, everything else is hard-linked (the board
// never writes its code), falling back to a copy across file systems.
func copyBoard(src, dst string, writable []string) error {
	isWritable := func(rel string) bool {
		for _, w := range writable {
			if rel == w || strings.HasPrefix(rel, w+string(filepath.Separator)) {
				return true
			}
		}
		return false
	}
	return filepath.Walk(src, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		switch {
		case info.IsDir():
			return os.MkdirAll(target, 0o755)
		case info.Mode()&os.ModeSymlink != 0:
			l, err := os.Readlink(path)
			if err != nil {
				return err
			}
			return os.Symlink(l, target)
		case isWritable(rel) || strings.HasSuffix(rel, ".sqlite") || strings.HasSuffix(rel, ".sqlite3"):
			return copyFile(path, target, info.Mode())
		default:
			if err := os.Link(path, target); err == nil {
				return nil
			}
			return copyFile(path, target, info.Mode())
		}
	})
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode.Perm()|0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// rewriteFile replaces old with new in a (copied, not linked) file.
func rewriteFile(path, old, new string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !strings.Contains(string(data), old) {
		return fmt.Errorf("%s does not name %s", path, old)
	}
	return os.WriteFile(path, []byte(strings.ReplaceAll(string(data), old, new)), 0o644)
}

// relinkRewrite replaces old with new in a copy's file that may be a hard
// link to the pristine copy's: the link is broken first, so the pristine
// copy keeps its own.
func relinkRewrite(path, old, new string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if !strings.Contains(string(data), old) {
		return fmt.Errorf("%s does not hold %s", path, old)
	}
	info, err := os.Stat(path)
	if err != nil {
		return err
	}
	if err := os.Remove(path); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(strings.ReplaceAll(string(data), old, new)), info.Mode().Perm())
}
