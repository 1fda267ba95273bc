package eval_test

import (
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/eval"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/wire"
)

func item(t testing.TB, js string) attr.Item {
	t.Helper()
	it, _, err := attr.ReadItem(wire.NewReader([]byte(js)))
	if err != nil {
		t.Fatal(err)
	}
	if err := attr.ValidateItem(it); err != nil {
		t.Fatal(err)
	}
	return it
}

const sample = `{"pk":{"S":"p"},"s":{"S":"hello wörld"},"n":{"N":"10"},"b":{"B":"AQID"},"t":{"BOOL":true},"z":{"NULL":true},` +
	`"ss":{"SS":["a","b"]},"ns":{"NS":["1","2","3"]},"l":{"L":[{"S":"x"},{"N":"2"},{"L":[]}]},"m":{"M":{"k":{"S":"v"},"deep":{"M":{"x":{"N":"1"}}}}}}`

func values() map[string]attr.Value {
	return map[string]attr.Value{
		":hello": attr.Str("hello"), ":wor": attr.Str("wör"), ":ten": attr.Num("10"), ":nine": attr.Num("9.99"), ":two": attr.Num("2"),
		":tenS": attr.Str("10"), ":a": attr.Str("a"), ":x": attr.Str("x"), ":b01": attr.BinString("\x01"), ":S": attr.Str("S"),
		":SS": attr.Str("SS"), ":L": attr.Str("L"), ":eleven": attr.Num("11"), ":v": attr.Str("v"), ":one": attr.Num("1"),
		":three": attr.Num("3"), ":lst": attr.List([]attr.Value{attr.Str("x"), attr.Num("2"), attr.List(nil)}),
	}
}

// TestCondition follows the developer guide's operator and function
// rules; comparisons across types are false, never errors; a absentattr
// attribute is not equal to anything.
func TestCondition(t *testing.T) {
	it := item(t, sample)
	for _, tc := range []struct {
		expr string
		want bool
	}{
		{"n = :ten", true},
		{"n = :tenS", false},
		{"n <> :tenS", true},
		{"absentattr <> :ten", true},
		{"absentattr = :ten", false},
		{"absentattr < :ten", false},
		{"n > :nine AND n < :eleven", true},
		{"s < :hello", false},
		{"s > :hello", true},
		{"n BETWEEN :nine AND :ten", true},
		{"n BETWEEN :a AND :x", false},
		{"n IN (:one, :two, :ten)", true},
		{"s IN (:a, :x)", false},
		{"contains(s, :wor)", true},
		{"contains(ss, :a)", true},
		{"contains(ns, :two)", true},
		{"contains(ns, :tenS)", false},
		{"contains(l, :x)", true},
		{"contains(l, :two)", true},
		{"begins_with(s, :hello)", true},
		{"begins_with(b, :b01)", true},
		{"begins_with(n, :hello)", false},
		{"attribute_type(s, :S)", true},
		{"attribute_type(ss, :SS)", true},
		{"attribute_type(l, :L)", true},
		{"attribute_type(absentattr, :S)", false},
		{"attribute_exists(m.deep.x)", true},
		{"attribute_exists(m.deep.y)", false},
		{"attribute_not_exists(l[3])", true},
		{"attribute_exists(l[2])", true},
		{"size(s) = :eleven", true},
		{"size(b) = :three", true},
		{"size(ns) = :three", true},
		{"size(l) = :three", true},
		{"size(m) = :two", true},
		{"size(n) = :two", false},
		{"NOT size(n) = :two", true},
		{"m.k = :v OR absentattr = :v", true},
		{"NOT (m.k = :v AND t = :x)", true},
		{"l[0] = :x AND l[1] = :two", true},
		{"l = :lst", true},
	} {
		c := expr.NewContext(nil, values())
		e, err := c.ParseCondition(expr.ConditionExpression, tc.expr)
		if err != nil {
			t.Fatalf("%s: %v", tc.expr, err)
		}
		if got := eval.Condition(e, it); got != tc.want {
			t.Errorf("%s = %v, want %v", tc.expr, got, tc.want)
		}
		if got := eval.Condition(e, nil); got && !strings.Contains(tc.expr, "<>") && !strings.Contains(tc.expr, "not_exists") && !strings.HasPrefix(tc.expr, "NOT") {
			t.Errorf("%s holds on no item", tc.expr)
		}
	}
}

func TestProjection(t *testing.T) {
	it := item(t, sample)
	c := expr.NewContext(nil, nil)
	paths, err := c.ParseProjection("m.deep.x, m.k, l[2], l[0], absentattr, s")
	if err != nil {
		t.Fatal(err)
	}
	got := attr.AppendItem(nil, eval.NewProjection(paths).Apply(it))
	want := `{"l":{"L":[{"S":"x"},{"L":[]}]},"m":{"M":{"deep":{"M":{"x":{"N":"1"}}},"k":{"S":"v"}}},"s":{"S":"hello wörld"}}`
	if string(got) != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

// TestApplyUpdate: UpdateExpression semantics (developer guide, "Update
// expressions").
func TestApplyUpdate(t *testing.T) {
	vals := map[string]attr.Value{
		":one": attr.Num("1"), ":s": attr.Str("new"), ":l": attr.List([]attr.Value{attr.Str("y")}),
		":ss": attr.Set(attr.SS, []string{"b", "c"}), ":ssab": attr.Set(attr.SS, []string{"a", "b"}),
		":big": attr.Num("99999999999999999999999999999999999999"), ":tiny": attr.Num("0.1"),
		":m": attr.Map(map[string]attr.Value{"q": attr.Num("5")}),
	}
	for _, tc := range []struct{ update, want, err string }{
		{"SET n = n + :one", `"n":{"N":"11"}`, ""},
		{"SET n = :one - n", `"n":{"N":"-9"}`, ""},
		{"SET c = if_not_exists(c, :one)", `"c":{"N":"1"}`, ""},
		{"SET n = if_not_exists(n, :one)", `"n":{"N":"10"}`, ""},
		{"SET l = list_append(l, :l)", `"l":{"L":[{"S":"x"},{"N":"2"},{"L":[]},{"S":"y"}]}`, ""},
		{"SET l = list_append(:l, l)", `"l":{"L":[{"S":"y"},{"S":"x"},{"N":"2"},{"L":[]}]}`, ""},
		{"SET l[10] = :s", `"l":{"L":[{"S":"x"},{"N":"2"},{"L":[]},{"S":"new"}]}`, ""},
		{"SET l[1] = :s", `"l":{"L":[{"S":"x"},{"S":"new"},{"L":[]}]}`, ""},
		{"SET m.deep.y = :s", `"m":{"M":{"deep":{"M":{"x":{"N":"1"},"y":{"S":"new"}}},"k":{"S":"v"}}}`, ""},
		{"SET m.nope.y = :s", "", "The document path provided in the update expression is invalid for update"},
		{"SET s.x = :s", "", "The document path provided in the update expression is invalid for update"},
		{"SET a = absentattr", "", "The provided expression refers to an attribute that does not exist in the item"},
		{"SET n = s + :one", "", "An operand in the update expression has an incorrect data type"},
		// A result past 38 digits gets DynamoDB's overflow message
		// (Alternator's test_number.py::test_update_expression_plus_imprecise,
		// against DynamoDB); nothing is rounded.
		{"SET n = :big + :tiny", "", "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"SET n = :big + :big", "", "Number overflow. Attempting to store a number with magnitude larger than supported range"},
		{"SET n = :big + :one", `"n":{"N":"100000000000000000000000000000000000000"}`, ""},
		{"REMOVE l[0], l[2]", `"l":{"L":[{"N":"2"}]}`, ""},
		{"REMOVE m.k, nothere", `"m":{"M":{"deep":{"M":{"x":{"N":"1"}}}}}`, ""},
		{"ADD n :one", `"n":{"N":"11"}`, ""},
		{"ADD newnum :one", `"newnum":{"N":"1"}`, ""},
		{"ADD ss :ss", `"ss":{"SS":["a","b","c"]}`, ""},
		{"ADD newset :ss", `"newset":{"SS":["b","c"]}`, ""},
		{"ADD s :one", "", "An operand in the update expression has an incorrect data type"},
		{"DELETE ss :ss", `"ss":{"SS":["a"]}`, ""},
		{"DELETE ss :ssab", `"ss":<absent>`, ""},
		{"DELETE absentattr :ss", `"absentattr":<absent>`, ""},
		{"SET m = :m REMOVE s", `"m":{"M":{"q":{"N":"5"}}}`, ""},
		{"SET a = n, n = :s", `"a":{"N":"10"}`, ""},
	} {
		t.Run(tc.update, func(t *testing.T) {
			c := expr.NewContext(nil, vals)
			u, err := c.ParseUpdate(tc.update)
			if err != nil {
				t.Fatal(err)
			}
			orig := item(t, sample)
			before := string(attr.AppendItem(nil, orig))
			got, err := eval.ApplyUpdate(orig, u)
			if string(attr.AppendItem(nil, orig)) != before {
				t.Fatal("ApplyUpdate modified its input")
			}
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err %v, want %s", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			js := string(attr.AppendItem(nil, got))
			if strings.HasSuffix(tc.want, "<absent>") {
				name := strings.TrimSuffix(tc.want, ":<absent>")
				if strings.Contains(js, name+":") {
					t.Fatalf("%s still present in %s", name, js)
				}
				return
			}
			if !strings.Contains(js, tc.want) {
				t.Fatalf("got %s\nwant it to contain %s", js, tc.want)
			}
		})
	}
}

func TestApplyAttributeUpdates(t *testing.T) {
	it := item(t, `{"pk":{"S":"p"},"number":{"N":"10"},"ss":{"SS":["a","b"]},"l":{"L":[{"N":"1"}]}}`)
	num := attr.Num("20")
	ss := attr.Set(attr.SS, []string{"a", "b"})
	l := attr.List([]attr.Value{attr.Num("2")})
	got, err := eval.ApplyAttributeUpdates(it, map[string]expr.LegacyUpdate{
		"number": {Action: "ADD", Value: &num},
		"ss":     {Action: "DELETE", Value: &ss},
		"l":      {Action: "ADD", Value: &l},
		"new":    {Action: "PUT", Value: &num}, // the request decoder makes an absent Action PUT
	})
	if err != nil {
		t.Fatal(err)
	}
	js := string(attr.AppendItem(nil, got))
	want := `{"l":{"L":[{"N":"1"},{"N":"2"}]},"new":{"N":"20"},"number":{"N":"30"},"pk":{"S":"p"}}`
	if js != want {
		t.Fatalf("got  %s\nwant %s", js, want)
	}
}

// BenchmarkParseAndEvaluate reports parse + evaluate cost per expression.
func BenchmarkParseAndEvaluate(b *testing.B) {
	it := item(b, sample)
	for _, bc := range []struct{ name, src string }{
		{"condition=simple", "n = :ten"},
		{"condition=compound", "n BETWEEN :nine AND :ten AND contains(ss, :a) AND size(l) = :three AND m.k = :v"},
		{"update=counter", "SET n = n + :one"},
		{"update=mixed", "SET a = if_not_exists(a, :one) + :one, l = list_append(l, :lst) REMOVE s ADD ns :two"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			vals := values()
			vals[":two"] = attr.Set(attr.NS, []string{"2"})
			for i := 0; i < b.N; i++ {
				c := expr.NewContext(nil, vals)
				if strings.HasPrefix(bc.name, "update") {
					u, err := c.ParseUpdate(bc.src)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := eval.ApplyUpdate(it, u); err != nil {
						b.Fatal(err)
					}
					continue
				}
				e, err := c.ParseCondition(expr.ConditionExpression, bc.src)
				if err != nil {
					b.Fatal(err)
				}
				eval.Condition(e, it)
			}
		})
	}
}
