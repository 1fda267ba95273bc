//go:build unix

package pebble

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// dirLock is the exclusive lock a Store holds on its data directory for
// its whole life: an fcntl write lock on the directory's LOCK file, the
// file and the kind of lock Pebble itself takes, so that a dynago and any
// other Pebble user of the directory exclude each other. It is released
// when the file is closed or the process ends (kill -9 included).
type dirLock struct {
	f       *os.File
	release func()
}

// lockDir takes dir's lock, creating dir if needed.
func lockDir(dir string) (*dirLock, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// fcntl locks belong to the process: a second Store in this process
	// would be granted the lock, so the process keeps its own registry.
	release, err := lockInProcess(dir)
	if err != nil {
		return nil, err
	}
	l, err := lockFile(dir)
	if err != nil {
		release()
		return nil, err
	}
	l.release = release
	return l, nil
}

func lockFile(dir string) (*dirLock, error) {
	f, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	spec := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0}
	if err := unix.FcntlFlock(f.Fd(), unix.F_SETLK, &spec); err != nil {
		holder := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0}
		pid := ""
		if unix.FcntlFlock(f.Fd(), unix.F_GETLK, &holder) == nil && holder.Type != unix.F_UNLCK && holder.Pid > 0 {
			pid = fmt.Sprintf(" (pid %d)", holder.Pid)
		}
		f.Close()
		if errors.Is(err, unix.EAGAIN) || errors.Is(err, unix.EACCES) {
			return nil, lockedError(fmt.Sprintf("data directory %s is in use by another dynago%s", dir, pid))
		}
		return nil, fmt.Errorf("lock data directory %s: %w", dir, err)
	}
	return &dirLock{f: f}, nil
}

func (l *dirLock) Close() error {
	err := l.f.Close()
	l.release()
	return err
}
