package tikv

import (
	"bytes"
	"testing"
)

// TestValueEscape: the values TiKV cannot hold as they are round-trip,
// and every other value is stored unchanged.
func TestValueEscape(t *testing.T) {
	for _, tc := range []struct{ in, stored string }{
		{"", "\x00"},
		{"\x00", "\x00\x00"},
		{"\x00abc", "\x00\x00abc"},
		{"abc", "abc"},
		{"\x01", "\x01"},
	} {
		if got := string(encodeValue([]byte(tc.in))); got != tc.stored {
			t.Errorf("encodeValue(%q) = %q, want %q", tc.in, got, tc.stored)
		}
		if got := string(decodeValue([]byte(tc.stored))); got != tc.in {
			t.Errorf("decodeValue(%q) = %q, want %q", tc.stored, got, tc.in)
		}
	}
}

// FuzzValueEscape: every value round-trips, no stored value is empty,
// and decoding any stored bytes never panics.
func FuzzValueEscape(f *testing.F) {
	for _, s := range []string{"", "\x00", "\x00\x00x", "plain"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		stored := encodeValue(v)
		if len(stored) == 0 {
			t.Fatalf("%q stored as an empty value", v)
		}
		if got := decodeValue(stored); !bytes.Equal(got, v) {
			t.Fatalf("%q → %q → %q", v, stored, got)
		}
		_ = decodeValue(v)
	})
}
