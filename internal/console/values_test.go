package console_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/console"
)

func TestCellOf(t *testing.T) {
	long := strings.Repeat("x", console.CellMax+5)
	tests := []struct {
		av, typ, text string
		cut           bool
	}{
		{``, "", "", false},
		{`{"S":"hello"}`, "S", "hello", false},
		{`{"N":"-12.50"}`, "N", "-12.50", false},
		{`{"BOOL":true}`, "BOOL", "true", false},
		{`{"NULL":true}`, "NULL", "null", false},
		{`{"B":"AQI="}`, "B", "AQI=", false},
		{`{"SS":["a","b"]}`, "SS", "{a, b}", false},
		{`{"NS":["1","2"]}`, "NS", "{1, 2}", false},
		{`{"L":[{"S":"a"},{"N":"1"}]}`, "L", `["a",1]`, false},
		{`{"M":{"k":{"M":{"n":{"N":"1"}}}}}`, "M", `{"k":{"n":1}}`, false},
		{`{"S":"` + long + `"}`, "S", strings.Repeat("x", console.CellMax) + "…", true},
		{`{"S":"a","N":"1"}`, "?", `{"S":"a","N":"1"}`, false},
	}
	for _, tc := range tests {
		c := console.CellOf(json.RawMessage(tc.av))
		if c.Type != tc.typ || c.Text != tc.text || c.Cut != tc.cut {
			t.Errorf("CellOf(%s) = %+v, want %s %q cut=%v", tc.av, c, tc.typ, tc.text, tc.cut)
		}
	}
}

func TestPlainRoundTrip(t *testing.T) {
	text := `{"year":1985,"title":"Brazil","info":{"rating":7.9,"genres":["Drama","Sci-Fi"],"big":12345678901234567890123456789012345678},"seen":true,"gone":null}`
	item, err := console.ItemFromPlain([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(item["year"]); got != `{"N":"1985"}` {
		t.Errorf("year = %s", got)
	}
	plain, err := console.PlainItem(item)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(plain)
	var a, w any
	json.Unmarshal(b, &a)
	json.Unmarshal([]byte(text), &w)
	ab, _ := json.Marshal(a)
	wb, _ := json.Marshal(w)
	if string(ab) != string(wb) {
		t.Errorf("round trip\n got %s\nwant %s", ab, wb)
	}
	if !strings.Contains(string(b), "12345678901234567890123456789012345678") {
		t.Errorf("38-digit number lost: %s", b)
	}
	for _, bad := range []string{``, `[]`, `"x"`, `{"a":1} {}`, `{"a":`} {
		if _, err := console.ItemFromPlain([]byte(bad)); err == nil {
			t.Errorf("ItemFromPlain(%q) accepted", bad)
		}
	}
}

func TestColumns(t *testing.T) {
	items := []console.Item{{"b": nil, "PK": nil}, {"a": nil, "SK": nil}}
	got := strings.Join(console.Columns(items, "PK", "SK"), ",")
	if got != "PK,SK,a,b" {
		t.Errorf("Columns = %s", got)
	}
	// A projection without the sort key: no empty SK column.
	if got := strings.Join(console.Columns([]console.Item{{"PK": nil, "a": nil}}, "PK", "SK"), ","); got != "PK,a" {
		t.Errorf("Columns without SK = %s", got)
	}
	if got := console.Columns(nil, "PK"); len(got) != 0 {
		t.Errorf("Columns of no items = %v", got)
	}
}
