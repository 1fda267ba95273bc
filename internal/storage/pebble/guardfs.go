package pebble

import (
	"errors"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"
)

// errFenced is returned by every change a fenced guardFS is asked to make.
var errFenced = errors.New("pebble: this instance of the store was replaced after a storage fault; it no longer writes")

// walPreallocStep is how much of a WAL file is preallocated at a time.
// Pebble asks for 110% of the memtable size at once (70 MiB with dynago's
// 64 MiB memtables), and keeps several such files for reuse, so a data
// directory holding a few megabytes took over 300 MB (issue 20). Asking
// the filesystem for 1 MiB at a time as the file grows keeps what
// preallocation is for (an fdatasync that need not update the file's
// size) at a footprint that follows the data.
const walPreallocStep = 1 << 20

// guardFS is the filesystem one instance of a Store's Pebble database
// sees. It does three things to the filesystem beneath:
//
//   - Fence: once the instance is replaced after a fault, every change it
//     would still make (a create, write, sync, rename, remove, ...) fails
//     with errFenced, so its background work can never touch the files
//     its successor opened; its reads keep working. Changes in flight
//     when the fence goes up are waited for.
//   - Lock: Pebble's own directory lock is a no-op, because the Store
//     holds the lock (dirLock) for its whole life, across instances.
//   - Preallocation in steps of walPreallocStep (see there).
type guardFS struct {
	vfs.FS
	fenced atomic.Bool
	// inflight is held for reading by every change while it runs, and
	// for writing by fence.
	inflight sync.RWMutex
}

func newGuardFS(fs vfs.FS) *guardFS { return &guardFS{FS: fs} }

// fence makes every later change fail and waits for those running.
func (g *guardFS) fence() {
	g.fenced.Store(true)
	g.inflight.Lock()
	defer g.inflight.Unlock()
}

// fenceWithin is fence waiting at most d for the changes running (one
// may hang on a failing disk for ever); it reports whether they ended.
func (g *guardFS) fenceWithin(d time.Duration) bool {
	done := make(chan struct{})
	go func() { g.fence(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// change runs a change to the filesystem unless fenced.
func (g *guardFS) change(f func() error) error {
	g.inflight.RLock()
	defer g.inflight.RUnlock()
	if g.fenced.Load() {
		return errFenced
	}
	return f()
}

func (g *guardFS) Unwrap() vfs.FS { return g.FS }

func (g *guardFS) Lock(name string) (io.Closer, error) { return noopCloser{}, nil }

type noopCloser struct{}

func (noopCloser) Close() error { return nil }

func (g *guardFS) Create(name string, category vfs.DiskWriteCategory) (vfs.File, error) {
	var f vfs.File
	err := g.change(func() (err error) { f, err = g.FS.Create(name, category); return err })
	return g.wrap(f), err
}

func (g *guardFS) OpenReadWrite(name string, category vfs.DiskWriteCategory, opts ...vfs.OpenOption) (vfs.File, error) {
	var f vfs.File
	err := g.change(func() (err error) { f, err = g.FS.OpenReadWrite(name, category, opts...); return err })
	return g.wrap(f), err
}

func (g *guardFS) ReuseForWrite(oldname, newname string, category vfs.DiskWriteCategory) (vfs.File, error) {
	var f vfs.File
	err := g.change(func() (err error) { f, err = g.FS.ReuseForWrite(oldname, newname, category); return err })
	return g.wrap(f), err
}

func (g *guardFS) Link(oldname, newname string) error {
	return g.change(func() error { return g.FS.Link(oldname, newname) })
}

func (g *guardFS) Remove(name string) error {
	return g.change(func() error { return g.FS.Remove(name) })
}

func (g *guardFS) RemoveAll(name string) error {
	return g.change(func() error { return g.FS.RemoveAll(name) })
}

func (g *guardFS) Rename(oldname, newname string) error {
	return g.change(func() error { return g.FS.Rename(oldname, newname) })
}

func (g *guardFS) MkdirAll(dir string, perm os.FileMode) error {
	return g.change(func() error { return g.FS.MkdirAll(dir, perm) })
}

// OpenDir's file is synced to make renames durable; it is wrapped so
// that a fenced instance's syncs fail too.
func (g *guardFS) OpenDir(name string) (vfs.File, error) {
	f, err := g.FS.OpenDir(name)
	return g.wrap(f), err
}

func (g *guardFS) wrap(f vfs.File) vfs.File {
	if f == nil {
		return nil
	}
	return &guardFile{File: f, g: g}
}

// guardFile is a file opened through a guardFS: writes and syncs are
// fenced; Preallocate asks for at most walPreallocStep beyond what has
// been written.
type guardFile struct {
	vfs.File
	g *guardFS
	// end is the offset sequential writes have reached; allocated how far
	// the file is preallocated; want how far Pebble asked for. Pebble
	// writes and preallocates a file from one goroutine.
	end, allocated, want int64
}

func (f *guardFile) Write(p []byte) (int, error) {
	var n int
	err := f.g.change(func() (err error) {
		if f.want > f.allocated && f.end+int64(len(p)) > f.allocated {
			f.stepPreallocation(f.end + int64(len(p)))
		}
		n, err = f.File.Write(p)
		f.end += int64(n)
		return err
	})
	return n, err
}

func (f *guardFile) WriteAt(p []byte, off int64) (int, error) {
	var n int
	err := f.g.change(func() (err error) { n, err = f.File.WriteAt(p, off); return err })
	return n, err
}

// Preallocate records how far Pebble wants the file preallocated and
// preallocates its first step.
func (f *guardFile) Preallocate(offset, length int64) error {
	return f.g.change(func() error {
		f.want = max(f.want, offset+length)
		return f.stepPreallocation(max(offset, f.end) + 1)
	})
}

// stepPreallocation preallocates up to the step that holds offset need,
// never past want. Preallocation is advisory: its error is dropped, as
// Pebble's own syncingFile drops it.
func (f *guardFile) stepPreallocation(need int64) error {
	if need <= f.allocated || f.allocated >= f.want {
		return nil
	}
	to := min(f.want, (need+walPreallocStep-1)/walPreallocStep*walPreallocStep)
	if to <= f.allocated {
		return nil
	}
	from := f.allocated
	f.allocated = to
	_ = f.File.Preallocate(from, to-from)
	return nil
}

func (f *guardFile) Sync() error {
	return f.g.change(f.File.Sync)
}

func (f *guardFile) SyncData() error {
	return f.g.change(f.File.SyncData)
}

func (f *guardFile) SyncTo(length int64) (fullSync bool, err error) {
	err = f.g.change(func() (err error) { fullSync, err = f.File.SyncTo(length); return err })
	return fullSync, err
}
