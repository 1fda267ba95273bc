package wire_test

import (
	"encoding/json"
	"testing"

	"github.com/dynago/dynago/internal/wire"
)

func TestAppendString_IsValidJSON(t *testing.T) {
	for _, s := range []string{"", "plain", "q\"uote", "back\\slash", "\x00\x01\x1f", "é😀", "\u2028\u2029", "<tag>&"} {
		enc := wire.AppendString(nil, s)
		var back string
		if err := json.Unmarshal(enc, &back); err != nil || back != s {
			t.Errorf("AppendString(%q) = %s: %v %q", s, enc, err, back)
		}
	}
}

func TestReader_Strings(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`"abc"`, "abc"},
		{`"a\"b\\c\/d\n\t"`, "a\"b\\c/d\n\t"},
		{`"\u00e9\ud83d\ude00"`, "é😀"},
	} {
		got, ok, err := wire.NewReader([]byte(tc.in)).String()
		if err != nil || !ok || got != tc.want {
			t.Errorf("%s: got %q %v %v", tc.in, got, ok, err)
		}
	}
	for _, bad := range []string{`"abc`, `"\x"`, `"\ud83d"`, "\"\xff\"", "\"a\nb\""} {
		if _, _, err := wire.NewReader([]byte(bad)).String(); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestReader_Int64_Truncates(t *testing.T) {
	for in, want := range map[string]int64{"10": 10, "10.9": 10, "-3.5": -3, "1e3": 1000, "2147483647": 1<<31 - 1} {
		got, ok, err := wire.NewReader([]byte(in)).Int64("Integer")
		if err != nil || !ok || got != want {
			t.Errorf("%s: got %d %v %v, want %d", in, got, ok, err, want)
		}
	}
	for _, big := range []string{"2147483648", "-2147483649", "1e30", "92219887385440"} {
		if _, _, err := wire.NewReader([]byte(big)).Int64("Integer"); err == nil || err.Error() != "SerializationException: NUMBER_VALUE cannot be converted to Integer" {
			t.Errorf("%s as Integer: %v", big, err)
		}
	}
	if n, _, err := wire.NewReader([]byte("1e15")).Int64("Long"); err != nil || n != 1e15 {
		t.Errorf("1e15 as Long: %d %v", n, err)
	}
	if _, _, err := wire.NewReader([]byte("1e30")).Int64("Long"); err == nil {
		t.Errorf("1e30 as Long accepted")
	}
	if _, _, err := wire.NewReader([]byte(`"5"`)).Int64("Integer"); err == nil || err.Error() != "SerializationException: STRING_VALUE cannot be converted to Integer" {
		t.Errorf("string as Integer: %v", err)
	}
}

// FuzzReader: walking arbitrary input with Skip never panics, and agrees
// with encoding/json on what is valid JSON.
func FuzzReader(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"d"}`, `[]`, `"x"`, `{"a":1e5}`, `[[[[`, `{"a":tru}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := wire.NewReader(data)
		err := r.Skip()
		if err == nil {
			err = r.End()
		}
		if err == nil && !json.Valid(data) {
			t.Fatalf("accepted invalid JSON %q", data)
		}
	})
}
