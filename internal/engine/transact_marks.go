package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/dynago/dynago/internal/catalog"
	"github.com/dynago/dynago/internal/keycodec"
	"github.com/dynago/dynago/internal/storage"
)

// What a TransactWriteItems leaves beside its items: its client request
// token, and a mark on each item it wrote or checked.

// Client request tokens live at "x/<token>": the request's fingerprint
// (32 bytes) and the commit time (Unix ns, 8 bytes BE).
// They are written in the transaction they record, so a token exists if
// and only if its transaction committed.
type token struct {
	fingerprint [32]byte
	at          time.Time
}

func clientTokenKey(t string) []byte { return append([]byte("x/"), t...) }

func readToken(tx storage.Txn, key []byte) (token, bool, error) {
	raw, err := tx.Get(key)
	if errors.Is(err, storage.ErrNotFound) {
		return token{}, false, nil
	}
	if err != nil {
		return token{}, false, fmt.Errorf("read client request token: %w", err)
	}
	if len(raw) < 40 {
		return token{}, false, errors.New("engine: corrupt client request token")
	}
	var t token
	copy(t.fingerprint[:], raw)
	t.at = time.Unix(0, int64(binary.BigEndian.Uint64(raw[32:])))
	return t, true, nil
}

func writeToken(tx storage.Txn, key []byte, t token) error {
	v := append([]byte(nil), t.fingerprint[:]...)
	return tx.Set(key, binary.BigEndian.AppendUint64(v, uint64(t.at.UnixNano())))
}

// txnMarkSpace is the table's reserved key space of transaction marks:
// per item a transaction wrote or checked, the time of its commit.
func txnMarkSpace(t *catalog.Table) keycodec.Space {
	return keycodec.Space{Table: t.Number, Index: catalog.MaxIndexNumber + 1}
}

// markKey returns the transaction-mark key of the item at key.
func markKey(t *catalog.Table, key []byte) []byte {
	n := len(keycodec.AppendSpace(nil, space(t)))
	return append(keycodec.AppendSpace(nil, txnMarkSpace(t)), key[n:]...)
}

func markTransactional(tx storage.Txn, t *catalog.Table, key []byte, now time.Time) error {
	return tx.Set(markKey(t, key), binary.BigEndian.AppendUint64(nil, uint64(now.UnixNano())))
}

// transactionSince reports whether a transaction committed a change to
// (or a check of) the item at key at or after since.
func (e *Engine) transactionSince(ctx context.Context, t *catalog.Table, key []byte, since time.Time) bool {
	found := false
	e.read(ctx, func(tx storage.Txn) error {
		raw, err := tx.Get(markKey(t, key))
		if err == nil && len(raw) == 8 && int64(binary.BigEndian.Uint64(raw)) >= since.UnixNano() {
			found = true
		}
		return nil
	})
	return found
}
