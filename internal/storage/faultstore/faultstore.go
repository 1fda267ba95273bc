// Package faultstore wraps a storage.Store so that tests can make its
// transactions fail at chosen points, deterministically: "Commit fails
// with ErrConflict three times", "the fourth Begin fails". Each hook is a
// function field (litestream's style); a nil hook passes the call through
// to the wrapped store.
package faultstore

import (
	"context"
	"sync/atomic"

	"github.com/dynago/dynago/internal/storage"
)

var _ storage.Store = (*Store)(nil)

// Store is a storage.Store whose calls can be made to fail. Set the hooks
// before the store is used; the counters are safe for concurrent use.
type Store struct {
	storage.Store

	// OnBegin, when set, is called before each Begin with its 1-based
	// number; a non-nil error is returned instead of a transaction.
	OnBegin func(n int64, mode storage.Mode) error
	// OnCommit, when set, is called before each read-write transaction's
	// Commit with its 1-based number; a non-nil error is returned and the
	// transaction is rolled back, nothing written.
	OnCommit func(n int64) error

	begins, commits atomic.Int64
}

// Wrap returns a Store over s with no hooks.
func Wrap(s storage.Store) *Store { return &Store{Store: s} }

// Commits returns how many read-write Commits have been called.
func (s *Store) Commits() int64 { return s.commits.Load() }

// Begin implements storage.Store, through OnBegin.
func (s *Store) Begin(ctx context.Context, mode storage.Mode) (storage.Txn, error) {
	n := s.begins.Add(1)
	if s.OnBegin != nil {
		if err := s.OnBegin(n, mode); err != nil {
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
	if t.s.OnCommit != nil {
		if err := t.s.OnCommit(n); err != nil {
			t.Txn.Rollback()
			return err
		}
	}
	return t.Txn.Commit()
}
