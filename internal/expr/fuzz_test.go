package expr_test

import (
	"testing"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/eval"
	"github.com/dynago/dynago/internal/expr"
)

// The fuzz targets hold every expression kind to the same contract: any
// input either parses, prints and parses back to the same tree, and
// evaluates against an item without panicking, or is rejected with a
// DynamoDB ValidationException.

// fuzzItem is an item with every attribute type, named so the fuzz
// contexts' names and paths reach them.
func fuzzItem() attr.Item {
	return attr.Item{
		"a":          attr.Map(map[string]attr.Value{"b": attr.List([]attr.Value{attr.Num("1"), attr.Str("x")})}),
		"b":          attr.Num("5"),
		"c":          attr.Str("xyz"),
		"name":       attr.Set(attr.SS, []string{"a", "b"}),
		"status":     attr.Bool(true),
		"string_set": attr.Set(attr.SS, []string{"a"}),
		"d":          attr.List([]attr.Value{attr.Num("1"), attr.Null()}),
		"e":          attr.BinString("\x00\x01"),
	}
}

// wantValidation fails t unless err is a DynamoDB ValidationException.
func wantValidation(t *testing.T, src string, err error) {
	t.Helper()
	e, ok := ddberr.As(err)
	if !ok || e.Code != ddberr.ValidationException || e.Message == "" {
		t.Fatalf("%q: %v is not a DynamoDB ValidationException", src, err)
	}
}

func FuzzParseCondition(f *testing.F) {
	for _, s := range []string{"a = :s", "((a))", "a.b[1] IN (:s,:t)", "NOT (a < :n)", "size(a.b) BETWEEN :n AND :m", "#n.#s[0]",
		"contains(#n, :s) OR begins_with(c, :t)", "attribute_type(b, :type) AND attribute_exists(a.b[0])"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		e, err := ctx().ParseCondition(expr.FilterExpression, src)
		if err != nil {
			wantValidation(t, src, err)
			return
		}
		again, err := ctx().ParseCondition(expr.FilterExpression, e.String())
		if err != nil || again.String() != e.String() {
			t.Fatalf("round trip of %q: %q, %v", src, e.String(), err)
		}
		eval.Condition(e, fuzzItem())
	})
}

func FuzzParseKeyCondition(f *testing.F) {
	for _, s := range []string{"a = :s", "a = :s AND b BETWEEN :n AND :m", "begins_with(b, :s) AND a = :s", "#n = :s AND #s >= :n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if _, err := ctx().ParseKeyCondition(src); err != nil {
			wantValidation(t, src, err)
		}
	})
}

func FuzzParseProjection(f *testing.F) {
	for _, s := range []string{"a, b.c[1], #n", "a.b[0], a.b[1], d[1]", "#s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		paths, err := ctx().ParseProjection(src)
		if err != nil {
			wantValidation(t, src, err)
			return
		}
		eval.NewProjection(paths).Apply(fuzzItem())
	})
}

func FuzzParseUpdate(f *testing.F) {
	for _, s := range []string{"SET a = :s", "SET a.b[1] = if_not_exists(a.b[1], :n) + :n REMOVE c ADD d :n DELETE e :ss", "SET (a) = :s",
		"SET d = list_append(d, :l), b = b - :n REMOVE a.b[0] DELETE #ss :ss ADD #n :ss"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		u, err := updateCtx().ParseUpdate(src)
		if err != nil {
			wantValidation(t, src, err)
			return
		}
		again, err := updateCtx().ParseUpdate(u.String())
		if err != nil || again.String() != u.String() {
			t.Fatalf("round trip of %q: %q %v", src, u.String(), err)
		}
		if _, err := eval.ApplyUpdate(fuzzItem(), u); err != nil {
			wantValidation(t, src, err)
		}
	})
}
