package wire_test

import (
	"encoding/json"
	"strconv"
	"strings"
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
// TestReader_AcceptStringIntegers: a string holding a whole number (Java's
// Long.parseLong: a sign, digits) reads as that number only after
// AcceptStringIntegers (DynamoDB Local's leniency);
// any other string, and every string by default, is DynamoDB's
// SerializationException.
func TestReader_AcceptStringIntegers(t *testing.T) {
	for _, tc := range []struct {
		in, want string
		n        int64
		err      string
	}{
		{`"5"`, "Long", 5, ""},
		{`"-12"`, "Integer", -12, ""},
		{`"+5"`, "Integer", 5, ""},
		{`"007"`, "Long", 7, ""},
		{`"2147483647"`, "Integer", 2147483647, ""},
		{`"2147483648"`, "Integer", 0, "STRING_VALUE cannot be converted to Integer"},
		{`"99999999999999999999"`, "Long", 0, "STRING_VALUE cannot be converted to Long"},
		{`"7.9"`, "Integer", 0, "STRING_VALUE cannot be converted to Integer"},
		{`"1e3"`, "Long", 0, "STRING_VALUE cannot be converted to Long"},
		{`"+-5"`, "Long", 0, "STRING_VALUE cannot be converted to Long"},
		{`"-"`, "Long", 0, "STRING_VALUE cannot be converted to Long"},
		{`""`, "Long", 0, "STRING_VALUE cannot be converted to Long"},
		{`" 5"`, "Long", 0, "STRING_VALUE cannot be converted to Long"},
		{`"5 "`, "Long", 0, "STRING_VALUE cannot be converted to Long"},
		{`"0x10"`, "Long", 0, "STRING_VALUE cannot be converted to Long"},
		{`"NaN"`, "Long", 0, "STRING_VALUE cannot be converted to Long"},
		{`"five"`, "Long", 0, "STRING_VALUE cannot be converted to Long"},
		{`"5`, "Long", 0, "SerializationException"}, // malformed JSON: DynamoDB's bare error
	} {
		r := wire.NewReader([]byte(tc.in))
		r.AcceptStringIntegers()
		n, _, err := r.Int64(tc.want)
		switch {
		case tc.err == "" && (err != nil || n != tc.n):
			t.Errorf("%s as %s: got %d, %v; want %d", tc.in, tc.want, n, err, tc.n)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s as %s: got %d, %v; want error %q", tc.in, tc.want, n, err, tc.err)
		}
		if _, _, err := wire.NewReader([]byte(tc.in)).Int64(tc.want); err == nil {
			t.Errorf("%s as %s accepted without AcceptStringIntegers", tc.in, tc.want)
		}
	}
}

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

// FuzzInt64: reading an Integer or Long member, strictly and with
// AcceptStringIntegers, never panics; a value accepted strictly is a JSON
// number, and a value accepted leniently is a number or a string holding a
// whole number.
func FuzzInt64(f *testing.F) {
	for _, s := range []string{`5`, `"5"`, `-1.5e2`, `"1e400"`, `"0x1"`, `"`, `null`, `"-"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, lenient := range []bool{false, true} {
			r := wire.NewReader(data)
			if lenient {
				r.AcceptStringIntegers()
			}
			_, ok, err := r.Int64("Long")
			if err != nil || !ok || r.End() != nil {
				continue
			}
			var v any
			if err := json.Unmarshal(data, &v); err != nil {
				t.Fatalf("lenient=%v accepted invalid JSON %q", lenient, data)
			}
			switch v := v.(type) {
			case float64:
			case string:
				if _, err := strconv.ParseInt(v, 10, 64); !lenient || err != nil {
					t.Fatalf("lenient=%v accepted the string %q", lenient, data)
				}
			default:
				t.Fatalf("lenient=%v accepted %q", lenient, data)
			}
		}
	})
}
