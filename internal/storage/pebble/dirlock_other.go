//go:build !unix

package pebble

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// dirLock is the exclusive lock a Store holds on its data directory for
// its whole life (Pebble's own lock on the LOCK file, taken once).
type dirLock struct {
	c       io.Closer
	release func()
}

func lockDir(dir string) (*dirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	release, err := lockInProcess(dir)
	if err != nil {
		return nil, err
	}
	c, err := vfs.Default.Lock(filepath.Join(dir, "LOCK"))
	if err != nil {
		release()
		return nil, lockedError(fmt.Sprintf("data directory %s is in use by another dynago (%v)", dir, err))
	}
	return &dirLock{c, release}, nil
}

func (l *dirLock) Close() error {
	err := l.c.Close()
	l.release()
	return err
}
