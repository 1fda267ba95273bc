// Package faultstore wraps a storage.Store so that tests can make its
// transactions fail at chosen points, deterministically: "Commit fails
// with ErrConflict three times", "the fourth Begin fails". Each hook is a
// function field (litestream's style); a nil hook passes the call through
// to the wrapped store.
package faultstore

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/dynago/dynago/internal/storage"
)

var _ storage.Store = (*Store)(nil)

// Store is a storage.Store whose calls can be made to fail. Set the hooks
// before the store is shared, or through Hook while it is in use (an
// engine reads its store from background goroutines); the counters are
// safe for concurrent use.
type Store struct {
	storage.Store

	// OnBegin, when set, is called before each Begin with its 1-based
	// number; a non-nil error is returned instead of a transaction.
	OnBegin func(n int64, mode storage.Mode) error
	// OnCommit, when set, is called before each read-write transaction's
	// Commit with its 1-based number; a non-nil error is returned and the
	// transaction is rolled back, nothing written.
	OnCommit func(n int64) error

	mu              sync.Mutex // guards the hooks while Hook runs
	begins, commits atomic.Int64
}

// Hook runs set with the store's hooks locked, so that a test may change
// OnBegin and OnCommit while other goroutines use the store:
//
//	fs.Hook(func(s *faultstore.Store) { s.OnCommit = nil })
func (s *Store) Hook(set func(s *Store)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	set(s)
}

// hooks returns the current hooks.
func (s *Store) hooks() (onBegin func(int64, storage.Mode) error, onCommit func(int64) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.OnBegin, s.OnCommit
}

// Wrap returns a Store over s with no hooks.
func Wrap(s storage.Store) *Store { return &Store{Store: s} }

// Commits returns how many read-write Commits have been called.
func (s *Store) Commits() int64 { return s.commits.Load() }

// Begin implements storage.Store, through OnBegin.
func (s *Store) Begin(ctx context.Context, mode storage.Mode) (storage.Txn, error) {
	n := s.begins.Add(1)
	if onBegin, _ := s.hooks(); onBegin != nil {
		if err := onBegin(n, mode); err != nil {
			return nil, err
		}
	}
	tx, err := s.Store.Begin(ctx, mode)
	if err != nil || mode != storage.ReadWrite {
		return tx, err
	}
	return &txn{Txn: tx, s: s}, nil
}

// txn is a read-write transaction whose Commit goes through OnCommit.
type txn struct {
	storage.Txn
	s *Store
}

func (t *txn) Commit() error {
	n := t.s.commits.Add(1)
	if _, onCommit := t.s.hooks(); onCommit != nil {
		if err := onCommit(n); err != nil {
			t.Txn.Rollback()
			return err
		}
	}
	return t.Txn.Commit()
}
