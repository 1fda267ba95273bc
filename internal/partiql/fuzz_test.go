package partiql_test

import (
	"testing"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/eval"
	"github.com/dynago/dynago/internal/expr"
	"github.com/dynago/dynago/internal/partiql"
)

// FuzzWhere holds a SELECT's WHERE clause to the evaluator's contract:
// whatever parses either becomes a condition the expression checker
// accepts and the evaluator runs on an item without panicking, or is
// refused with a ValidationException; never a panic or another error.
func FuzzWhere(f *testing.F) {
	for _, s := range []string{
		`SELECT * FROM "t" WHERE pk = 'a' AND NOT (x IS NULL OR y IS MISSING)`,
		`SELECT * FROM "t" WHERE size(s) BETWEEN ? AND 3 AND attribute_type(m, 'M') = true`,
		`SELECT * FROM "t" WHERE l IN [1, <<'a'>>, {'k': NULL}] OR begins_with(s, 'x')`,
		`SELECT * FROM "t" WHERE contains(ss, ?) AND m.n[0] <> -1e3`,
	} {
		f.Add(s)
	}
	item := attr.Item{
		"pk": attr.Str("a"), "s": attr.Str("xyz"), "ss": attr.Set(attr.SS, []string{"a", "b"}),
		"m": attr.Map(map[string]attr.Value{"n": attr.List([]attr.Value{attr.Num("1")})}),
		"x": attr.Null(), "l": attr.List(nil),
	}
	f.Fuzz(func(t *testing.T, src string) {
		st, err := partiql.Parse(src)
		if err != nil {
			return
		}
		sel, ok := st.(*partiql.Select)
		if !ok || sel.Where == nil {
			return
		}
		params := make([]attr.Value, partiql.ParamCount(st))
		for i := range params {
			params[i] = attr.Str("p")
		}
		b := partiql.NewBuilder(params)
		text, err := b.Condition(sel.Where)
		if err == nil {
			var e expr.Expr
			e, err = expr.NewContext(b.Names, b.Values).ParseCondition(expr.FilterExpression, text)
			if err == nil {
				eval.Condition(e, item)
				return
			}
		}
		if e, ok := ddberr.As(err); !ok || e.Code != ddberr.ValidationException {
			t.Fatalf("%q: %v is not a ValidationException", src, err)
		}
	})
}
