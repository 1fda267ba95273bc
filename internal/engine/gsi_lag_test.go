package engine

import (
	"bytes"
	"testing"
)

// FuzzDecodeIndexOps: the GSI change-queue decoder never panics, and
// whatever it accepts encodes back to the same bytes.
func FuzzDecodeIndexOps(f *testing.F) {
	f.Add(encodeIndexOps([]indexOp{{index: 1, key: []byte("k"), value: []byte("v")}, {index: 2, key: []byte("old")}}))
	f.Add(encodeIndexOps([]indexOp{{index: 7, key: []byte{}, value: []byte{}}}))
	f.Add([]byte{0, 1, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		ops, err := decodeIndexOps(b)
		if err != nil {
			return
		}
		if got := encodeIndexOps(ops); !bytes.Equal(got, b) {
			t.Fatalf("round trip: %x -> %x", b, got)
		}
	})
}
