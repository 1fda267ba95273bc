package keycodec_test

import (
	"bytes"
	"testing"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/keycodec"
)

func num(t testing.TB, s string) attr.Value {
	t.Helper()
	c, err := attr.ParseNumber(s)
	if err != nil {
		t.Fatalf("ParseNumber(%q): %v", s, err)
	}
	return attr.Num(c)
}

// TestValue_Order_Numbers lists numbers in ascending order; their encodings
// must sort the same way.
func TestValue_Order_Numbers(t *testing.T) {
	ordered := []string{
		"-9.9999999999999999999999999999999999999E+125", "-1E10", "-100", "-10.5", "-10",
		"-1.55", "-1.5", "-1", "-0.5", "-1E-130", "0", "1E-130", "0.001", "0.5", "1",
		"1.5", "1.55", "10", "10.5", "100", "1E10", "9.9999999999999999999999999999999999999E+125",
	}
	var prev []byte
	for i, s := range ordered {
		enc := keycodec.AppendValue(nil, num(t, s))
		if i > 0 && bytes.Compare(prev, enc) >= 0 {
			t.Errorf("encoding of %s is not after %s", s, ordered[i-1])
		}
		prev = enc
	}
}

func TestValue_Order_Strings(t *testing.T) {
	ordered := []string{"", "\x00", "\x00\x00", "\x00a", "a", "a\x00", "a\x00b", "aa", "b", "\xc3\xa9", "\xf0\x9f\x98\x80"}
	var prev []byte
	for i, s := range ordered {
		enc := keycodec.AppendValue(nil, attr.Str(s))
		if i > 0 && bytes.Compare(prev, enc) >= 0 {
			t.Errorf("encoding of %q is not after %q", s, ordered[i-1])
		}
		prev = enc
	}
}

func TestAppendPrefixValue_IsPrefixOfEveryExtension(t *testing.T) {
	for _, tc := range []struct{ prefix, full string }{
		{"a", "abc"}, {"a\x00", "a\x00\x00z"}, {"", "x"}, {"USER#", "USER#42"},
	} {
		p := keycodec.AppendPrefixValue(nil, attr.Str(tc.prefix))
		f := keycodec.AppendValue(nil, attr.Str(tc.full))
		if !bytes.HasPrefix(f, p) {
			t.Errorf("prefix %q: %x is not a prefix of %x", tc.prefix, p, f)
		}
	}
}

func TestDecodeKey_RoundTrip(t *testing.T) {
	s := keycodec.Space{Table: 7, Index: 2}
	pk := attr.Str("USER#42")
	sk := num(t, "-12.75")
	k := keycodec.AppendKey(nil, s, pk, sk)
	gs, gpk, gsorts, err := keycodec.DecodeKey(k, attr.S, attr.N)
	if err != nil {
		t.Fatal(err)
	}
	if gs != s || !attr.Equal(gpk, pk) || len(gsorts) != 1 || !attr.Equal(gsorts[0], sk) {
		t.Fatalf("round trip: got %v %v %v", gs, gpk, gsorts)
	}
}

func TestHashBound_SegmentsCoverEveryKey(t *testing.T) {
	s := keycodec.Space{Table: 1}
	const segments = 7
	for i := 0; i < 200; i++ {
		k := keycodec.AppendKey(nil, s, attr.Str(string(rune('a'+i%26))+string(rune(i))))
		hits := 0
		for seg := uint64(0); seg < segments; seg++ {
			lo := keycodec.HashBound(s, seg*(^uint64(0)/segments+1))
			var hi []byte
			if seg == segments-1 {
				_, hi = keycodec.SpaceBounds(s)
			} else {
				hi = keycodec.HashBound(s, (seg+1)*(^uint64(0)/segments+1))
			}
			if bytes.Compare(k, lo) >= 0 && bytes.Compare(k, hi) < 0 {
				hits++
			}
		}
		if hits != 1 {
			t.Fatalf("key %x in %d segments", k, hits)
		}
	}
}

// FuzzRoundTrip: any S, B or valid N round-trips through the encoding.
func FuzzRoundTrip(f *testing.F) {
	f.Add("hello", uint8(0))
	f.Add("\x00\xff", uint8(1))
	f.Add("-1.5E-20", uint8(2))
	f.Add("123456789012345678901234567890", uint8(2))
	f.Fuzz(func(t *testing.T, s string, kind uint8) {
		var v attr.Value
		var k attr.Kind
		switch kind % 3 {
		case 0:
			v, k = attr.Str(s), attr.S
		case 1:
			v, k = attr.BinString(s), attr.B
		default:
			c, err := attr.ParseNumber(s)
			if err != nil {
				return
			}
			v, k = attr.Num(c), attr.N
		}
		enc := keycodec.AppendValue(nil, v)
		enc = append(enc, 0x42) // trailing bytes must be left alone
		got, rest, err := keycodec.DecodeValue(enc, k)
		if err != nil {
			t.Fatalf("decode %x: %v", enc, err)
		}
		if !attr.Equal(got, v) || !bytes.Equal(rest, []byte{0x42}) {
			t.Fatalf("round trip of %q (%v): got %q rest %x", s, k, got.Text(), rest)
		}
	})
}

// FuzzOrder: the encoding order equals DynamoDB's order for two values of
// the same type.
func FuzzOrder(f *testing.F) {
	f.Add("a", "b", false)
	f.Add("1.5", "1.55", true)
	f.Add("-1.5", "-1.55", true)
	f.Add("a\x00", "a", false)
	f.Fuzz(func(t *testing.T, a, b string, numeric bool) {
		var va, vb attr.Value
		if numeric {
			ca, err1 := attr.ParseNumber(a)
			cb, err2 := attr.ParseNumber(b)
			if err1 != nil || err2 != nil {
				return
			}
			va, vb = attr.Num(ca), attr.Num(cb)
		} else {
			va, vb = attr.Str(a), attr.Str(b)
		}
		want, _ := attr.Compare(va, vb)
		got := bytes.Compare(keycodec.AppendValue(nil, va), keycodec.AppendValue(nil, vb))
		if got != want {
			t.Fatalf("order of %q vs %q: encoding says %d, DynamoDB %d", a, b, got, want)
		}
	})
}

// FuzzDecodeValue: decoding arbitrary bytes never panics.
func FuzzDecodeValue(f *testing.F) {
	f.Add([]byte{3, 130, 2, 0}, uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, kind uint8) {
		k := []attr.Kind{attr.S, attr.B, attr.N}[kind%3]
		keycodec.DecodeValue(data, k)
		keycodec.DecodeKey(data, k, k)
	})
}

// TestAppendPartitionValues: one value gives AppendPartition's key; more
// values hash and encode all of them, so different splits of the same
// bytes are different partitions.
func TestAppendPartitionValues(t *testing.T) {
	s := keycodec.Space{Table: 3, Index: 2}
	a, b := attr.Str("ab"), attr.Str("c")
	if got, want := keycodec.AppendPartitionValues(nil, s, a), keycodec.AppendPartition(nil, s, a); !bytes.Equal(got, want) {
		t.Fatalf("one value: %x, want %x", got, want)
	}
	ab := keycodec.AppendPartitionValues(nil, s, a, b)
	split := keycodec.AppendPartitionValues(nil, s, attr.Str("a"), attr.Str("bc"))
	if bytes.Equal(ab, split) {
		t.Fatal("(ab, c) and (a, bc) share a partition key")
	}
	if h1, _ := keycodec.KeyHash(ab); h1 == 0 {
		t.Fatal("no hash")
	}
	if sp, ok := keycodec.KeySpace(ab); !ok || sp != s {
		t.Fatalf("KeySpace = %v, %v", sp, ok)
	}
}
