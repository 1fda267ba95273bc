package attr_test

import (
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/wire"
)

// TestParseNumber checks DynamoDB's canonical form and limits. Expected
// values: ../shared/cases number-precision-range-format and the AWS
// conformance captures in docs/dynamodb-behaviour.md §4.5.
func TestParseNumber(t *testing.T) {
	for _, tc := range []struct{ in, want, err string }{
		{"00042", "42", ""},
		{"1.50", "1.5", ""},
		{"-0", "0", ""},
		{"1.5E2", "150", ""},
		{"+5", "5", ""},
		{".123", "0.123", ""},
		{"5.", "5", ""},
		{"1.0", "1", ""},
		{"3.1400", "3.14", ""},
		{"0e125", "0", ""},
		{"1e-20", "0.00000000000000000001", ""},
		{"1e125", "1" + strings.Repeat("0", 125), ""},
		{"-1e125", "-1" + strings.Repeat("0", 125), ""},
		{"9.9999999999999999999999999999999999999E+125", "99999999999999999999999999999999999999" + strings.Repeat("0", 88), ""},
		{"1E-130", "0." + strings.Repeat("0", 129) + "1", ""},
		{"12345678901234567890123456789012345678", "12345678901234567890123456789012345678", ""},
		{"1234567890123456789012345678901234567800000", "1234567890123456789012345678901234567800000", ""},
		{"8.3", "8.3", ""},
		{"1234567890123456789012345678901234567890", "", "Attempting to store more than 38 significant digits in a Number"},
		{"1E126", "", "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"-1e126", "", "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"1e99999999999", "", "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"1E-131", "", "Number underflow. Attempting to store a number with magnitude smaller than supported range"},
		{`"42.0"`, "", `The parameter cannot be converted to a numeric value: "42.0"`},
		{" 1", "", "The parameter cannot be converted to a numeric value:  1"},
		{"abc", "", "The parameter cannot be converted to a numeric value: abc"},
		{"NaN", "", "The parameter cannot be converted to a numeric value: NaN"},
		{"Infinity", "", "The parameter cannot be converted to a numeric value: Infinity"},
		{"0x10", "", "The parameter cannot be converted to a numeric value: 0x10"},
		{"1e", "", "The parameter cannot be converted to a numeric value: 1e"},
		{"", "", "The parameter cannot be converted to a numeric value: "},
	} {
		got, err := attr.ParseNumber(tc.in)
		if tc.err != "" {
			e, ok := ddberr.As(err)
			if !ok || e.Code != ddberr.ValidationException || e.Message != tc.err {
				t.Errorf("ParseNumber(%q) error = %v, want %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("ParseNumber(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
}

func TestCompareNumbers(t *testing.T) {
	ordered := []string{"-100", "-10.5", "-1", "-0.001", "0", "0.001", "1", "1.5", "10", "100"}
	for i := range ordered {
		for j := range ordered {
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := attr.CompareNumbers(ordered[i], ordered[j]); got != want {
				t.Errorf("CompareNumbers(%s, %s) = %d, want %d", ordered[i], ordered[j], got, want)
			}
		}
	}
}

func decode(t *testing.T, js string) attr.Value {
	t.Helper()
	v, err := attr.ReadValue(wire.NewReader([]byte(js)))
	if err != nil {
		t.Fatalf("ReadValue(%s): %v", js, err)
	}
	return v
}

// TestValidate checks DynamoDB's attribute-value rules and messages
// (docs/dynamodb-behaviour.md §4.3, §4.4).
func TestValidate(t *testing.T) {
	for _, tc := range []struct{ js, err string }{
		{`{"S":""}`, ""},
		{`{"B":""}`, ""},
		{`{"SS":[""]}`, ""},
		{`{"L":[{"S":""}]}`, ""},
		{`{"M":{"a":{"NULL":true}}}`, ""},
		{`{}`, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"},
		{`{"S":"a","N":"1"}`, "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"},
		{`{"NULL":false}`, "One or more parameter values were invalid: Null attribute value types must have the value of true"},
		{`{"SS":[]}`, "One or more parameter values were invalid: An string set  may not be empty"},
		{`{"NS":[]}`, "One or more parameter values were invalid: An number set  may not be empty"},
		{`{"BS":[]}`, "One or more parameter values were invalid: Binary sets should not be empty"},
		{`{"SS":["a","a"]}`, `One or more parameter values were invalid: Input collection ["a", "a"] contains duplicates.`},
		{`{"SS":["b","a","b"]}`, `One or more parameter values were invalid: Input collection ["a", "b", "b"] contains duplicates.`},
		{`{"SS":["c","b","a","b","z","y"]}`, `One or more parameter values were invalid: Input collection ["a", "b", "c", "b", "z", "y"] contains duplicates.`},
		{`{"BS":["/w==","AA==","AA=="]}`, `One or more parameter values were invalid: Input collection ["AA==","/w==","AA=="]of type BS contains duplicates.`},
		{`{"NS":["1","1.0"]}`, "One or more parameter values were invalid: Input collection contains duplicates."},
		{`{"N":""}`, "The parameter cannot be converted to a numeric value: "},
		{`{"N":"1e9223372036854775808"}`, "The parameter cannot be converted to a numeric value: 1e9223372036854775808"},
		{`{"N":"1e9223372036854775807"}`, "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{`{"N":"0e126"}`, "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{`{"N":"0e-131"}`, "Number underflow. Attempting to store a number with magnitude smaller than supported range"},
		{`{"N":"0e125"}`, ""},
		{`{"N":"0.000"}`, ""},
		{`{"M":{"x":{"L":[{"SS":[]}]}}}`, "One or more parameter values were invalid: An string set  may not be empty"},
		{`{"N":"1e126"}`, "Number overflow. Attempting to store a number with magnitude larger than supported range"},
	} {
		_, err := attr.Validate(decode(t, tc.js))
		if tc.err == "" {
			if err != nil {
				t.Errorf("Validate(%s): %v", tc.js, err)
			}
			continue
		}
		e, ok := ddberr.As(err)
		if !ok || e.Message != tc.err {
			t.Errorf("Validate(%s) = %v, want %q", tc.js, err, tc.err)
		}
	}
}

// TestValidateIn_OlderLayer checks the older layer's wording
// (BatchWriteItem, Scan, transactions; docs/dynamodb-behaviour.md §4.4,
// §4.5).
func TestValidateIn_OlderLayer(t *testing.T) {
	for _, tc := range []struct{ js, err string }{
		{`{"SS":["b","a","b"]}`, "One or more parameter values were invalid: Input collection [b, a, b] contains duplicates."},
		{`{"BS":["/w==","AA==","AA=="]}`, "One or more parameter values were invalid: Input collection [/w==, AA==, AA==]of type BS contains duplicates."},
		{`{"NS":["2","1","2"]}`, "Input collection contains duplicates"},
		{`{"N":""}`, "The parameter cannot be converted to a numeric value"},
		{`{"NS":[""]}`, "The parameter cannot be converted to a numeric value"},
		{`{"N":"abc"}`, "The parameter cannot be converted to a numeric value: abc"},
	} {
		_, err := attr.ValidateIn(decode(t, tc.js), attr.OlderLayer)
		e, ok := ddberr.As(err)
		if !ok || e.Message != tc.err {
			t.Errorf("ValidateIn(%s, OlderLayer) = %v, want %q", tc.js, err, tc.err)
		}
	}
}

// TestValidate_NestingDepth: 31 M wrappers above a scalar are accepted, 32
// are not (docs/dynamodb-behaviour.md §4.3).
func TestValidate_NestingDepth(t *testing.T) {
	wrap := func(n int) string {
		return strings.Repeat(`{"M":{"a":`, n) + `{"S":"x"}` + strings.Repeat(`}}`, n)
	}
	if _, err := attr.Validate(decode(t, wrap(31))); err != nil {
		t.Errorf("31 levels: %v", err)
	}
	_, err := attr.Validate(decode(t, wrap(32)))
	if e, ok := ddberr.As(err); !ok || !strings.HasPrefix(e.Message, "Nesting Levels have exceeded supported limits") {
		t.Errorf("32 levels: %v", err)
	}
}

// TestCheckDepth: CheckDepth draws the line exactly where Validate does,
// for a scalar, an empty map and an empty list at the bottom.
func TestCheckDepth(t *testing.T) {
	for _, inner := range []string{`{"S":"x"}`, `{"M":{}}`, `{"L":[]}`} {
		for n := 29; n <= 33; n++ {
			js := strings.Repeat(`{"L":[`, n) + inner + strings.Repeat(`]}`, n)
			_, verr := attr.Validate(decode(t, js))
			derr := attr.CheckDepth(decode(t, js))
			if (verr == nil) != (derr == nil) {
				t.Errorf("%d wraps of %s: Validate %v, CheckDepth %v", n, inner, verr, derr)
			}
		}
	}
}

// TestSize follows the developer guide's item size rules.
func TestSize(t *testing.T) {
	for _, tc := range []struct {
		js   string
		want int
	}{
		{`{"S":"hello"}`, 5},
		{`{"S":"é"}`, 2},
		{`{"B":"AQID"}`, 3},
		{`{"BOOL":true}`, 1},
		{`{"NULL":true}`, 1},
		{`{"N":"123"}`, 3},
		{`{"N":"1"}`, 2},
		{`{"L":[]}`, 3},
		{`{"L":[{"S":"ab"},{"N":"1"}]}`, 3 + 1 + 2 + 1 + 2},
		{`{"M":{"k":{"S":"v"}}}`, 3 + 1 + 1 + 1},
		{`{"SS":["a","bc"]}`, 3},
	} {
		v, err := attr.Validate(decode(t, tc.js))
		if err != nil {
			t.Fatal(err)
		}
		if got := v.Size(); got != tc.want {
			t.Errorf("size of %s = %d, want %d", tc.js, got, tc.want)
		}
	}
	item := attr.Item{"pk": attr.Str("abc"), "n": attr.Num("10")}
	if got := item.Size(); got != 2+3+1+2 {
		t.Errorf("item size = %d", got)
	}
}

// TestRoundTrip: every type encodes and decodes back to an equal value.
func TestRoundTrip(t *testing.T) {
	js := `{"a":{"S":"x\"\u0000\u2028é"},"b":{"N":"-1.5"},"c":{"B":"AP8="},"d":{"BOOL":false},"e":{"NULL":true},` +
		`"f":{"M":{"g":{"L":[{"N":"1"},{"SS":["p","q"]}]}}},"h":{"NS":["1","2"]},"i":{"BS":["AQ==","Ag=="]}}`
	item, _, err := attr.ReadItem(wire.NewReader([]byte(js)))
	if err != nil {
		t.Fatal(err)
	}
	if err := attr.ValidateItem(item); err != nil {
		t.Fatal(err)
	}
	back, err := attr.DecodeItem(attr.AppendItem(nil, item))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range item {
		if !attr.Equal(v, back[k]) {
			t.Errorf("%s: %v != %v", k, v, back[k])
		}
	}
	if len(back) != len(item) {
		t.Errorf("%d attributes back, want %d", len(back), len(item))
	}
}

// TestReadValue_SerializationErrors: a value of the wrong JSON type inside
// an AttributeValue, in DynamoDB's words: docs/dynamodb-behaviour.md §1.1
// (dynalite's assertType table, run against DynamoDB; TRUE_VALUE,
// DECIMAL_VALUE and "Unexpected field type" are the current wording, as
// real answers quoted in localstack#9412 (2023) and connect-dynamodb#100
// (2024) show for NUMBER_VALUE).
func TestReadValue_SerializationErrors(t *testing.T) {
	for _, tc := range []struct{ js, want string }{
		{`{"N":123}`, "NUMBER_VALUE cannot be converted to String"},
		{`{"N":1.5}`, "DECIMAL_VALUE cannot be converted to String"},
		{`{"N":1e5}`, "DECIMAL_VALUE cannot be converted to String"},
		{`{"S":true}`, "TRUE_VALUE cannot be converted to String"},
		{`{"S":false}`, "FALSE_VALUE cannot be converted to String"},
		{`{"S":[]}`, "Unrecognized collection type class java.lang.String"},
		{`{"S":{}}`, "Start of structure or map found where not expected"},
		{`{"BOOL":"x"}`, "Unexpected token received from parser"},
		{`{"BOOL":23}`, "NUMBER_VALUE cannot be converted to Boolean"},
		{`{"NULL":34.56}`, "DECIMAL_VALUE cannot be converted to Boolean"},
		{`{"BOOL":[]}`, "Unrecognized collection type class java.lang.Boolean"},
		{`{"B":"abc"}`, "'abc' can not be converted to a Blob: Base64 encoded length is expected a multiple of 4 bytes but found: 3"},
		{`{"B":5}`, "only base-64-encoded strings are convertible to bytes"},
		{`{"BS":[true]}`, "only base-64-encoded strings are convertible to bytes"},
		{`{"L":{}}`, "Start of structure or map found where not expected"},
		{`{"L":"x"}`, "Unexpected field type"},
		{`{"SS":5}`, "Unexpected field type"},
		{`{"M":"x"}`, "Unexpected field type"},
		{`{"M":[]}`, "Unrecognized collection type java.util.Map<java.lang.String, com.amazonaws.dynamodb.v20120810.AttributeValue>"},
		{`{"L":["x"]}`, "Unexpected value type in payload"},
		{`{"M":{"a":5}}`, "Unexpected value type in payload"},
		{`["S"]`, "Unrecognized collection type class com.amazonaws.dynamodb.v20120810.AttributeValue"},
	} {
		_, err := attr.ReadValue(wire.NewReader([]byte(tc.js)))
		e, ok := ddberr.As(err)
		if !ok || e.Code != ddberr.SerializationException || e.Message != tc.want {
			t.Errorf("%s: got %v, want SerializationException %q", tc.js, err, tc.want)
		}
	}
}

// FuzzReadValue: no input panics; every valid value re-encodes to JSON
// that decodes to an equal value.
func FuzzReadValue(f *testing.F) {
	f.Add([]byte(`{"M":{"a":{"L":[{"N":"1.50"},{"B":"AQ=="}]}}}`))
	f.Add([]byte(`{"SS":["a","b"]}`))
	f.Add([]byte(`{"S":"\ud83d\ude00"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := attr.ReadValue(wire.NewReader(data))
		if err != nil {
			return
		}
		v, err = attr.Validate(v)
		if err != nil {
			return
		}
		enc := attr.AppendValue(nil, v)
		back, err := attr.ReadValue(wire.NewReader(enc))
		if err != nil {
			t.Fatalf("re-decode %s: %v", enc, err)
		}
		if !attr.Equal(v, back) {
			t.Fatalf("round trip of %s differs", enc)
		}
		_ = v.Size()
	})
}

// FuzzParseNumber: canonical output is stable and numerically equal.
func FuzzParseNumber(f *testing.F) {
	for _, s := range []string{"1.5E2", "-0", "00042", ".5", "1e-130", "9.99e125"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := attr.ParseNumber(s)
		if err != nil {
			return
		}
		c2, err := attr.ParseNumber(c)
		if err != nil || c2 != c {
			t.Fatalf("canonical %q of %q is not stable: %q %v", c, s, c2, err)
		}
		if attr.CompareNumbers(c, c2) != 0 {
			t.Fatalf("compare %q", c)
		}
	})
}
