package partiql_test

import (
	"testing"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/partiql"
)

func where(t *testing.T, cond string) partiql.Expr {
	t.Helper()
	st, err := partiql.Parse(`SELECT * FROM "t" WHERE ` + cond)
	if err != nil {
		t.Fatalf("parse %q: %v", cond, err)
	}
	return st.(*partiql.Select).Where
}

// TestPartitionValues: a SELECT is a Query exactly when every OR branch
// fixes the partition key with = or IN (developer guide, "PartiQL select
// statements": https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html;
// whereOverlap.test.ts for OR branches on one partition).
func TestPartitionValues(t *testing.T) {
	for _, tc := range []struct {
		cond  string
		query bool
		n     int
	}{
		{`pk = 'a'`, true, 1},
		{`'a' = pk AND x > 1`, true, 1},
		{`pk IN ['a', 'b', 'a']`, true, 2},
		{`pk = 'a' AND x = 1 OR pk = 'a' AND sk = '2'`, true, 1},
		{`pk = 'a' OR pk = 'b'`, true, 2},
		{`pk = 'a' OR x = 1`, false, 0},
		{`NOT pk = 'a'`, false, 0},
		{`pk > 'a'`, false, 0},
		{`x = 1 AND (pk = 'a' OR pk = 'b')`, false, 0},
		{`pk = other`, false, 0},
		{`pk = ?`, true, 1},
	} {
		vals, query, err := partiql.PartitionValues(where(t, tc.cond), "pk", []attr.Value{attr.Str("p")})
		if err != nil || query != tc.query || len(vals) != tc.n {
			t.Errorf("%s: %d values, query %v, %v; want %d, %v", tc.cond, len(vals), query, err, tc.n, tc.query)
		}
	}
}

// TestKeyOf: an UPDATE or DELETE names its item with an equality on every
// key attribute; the rest of the WHERE is the write's condition
// (partiqlGrammar.test.ts: "Where clause does not contain a mandatory
// equality on all key attributes").
func TestKeyOf(t *testing.T) {
	for _, tc := range []struct {
		cond string
		ok   bool
		rest int
	}{
		{`pk = 'a' AND sk = 1`, true, 0},
		{`sk = 1 AND x = 2 AND pk = 'a'`, true, 1},
		{`pk = 'a'`, false, 0},
		{`pk = 'a' AND sk > 1`, false, 1},
		{`pk = 'a' AND sk = 1 OR pk = 'b' AND sk = 1`, false, 1},
	} {
		key, rest, ok, err := partiql.KeyOf(where(t, tc.cond), []string{"pk", "sk"}, nil)
		if err != nil || ok != tc.ok || len(rest) != tc.rest {
			t.Errorf("%s: key %v rest %d ok %v %v; want ok %v rest %d", tc.cond, key, len(rest), ok, err, tc.ok, tc.rest)
		}
	}
}

// TestCheckOverlap: OR branches where one selects a sort-key range and
// another the whole partition under a non-key condition are refused;
// negated and <> sort-key conditions run (partiqlGrammar.test.ts,
// whereOverlap.test.ts).
func TestCheckOverlap(t *testing.T) {
	for _, tc := range []struct {
		cond    string
		refused bool
	}{
		{`pk = 'a' AND x = '1' OR pk = 'a' AND sk = '2'`, true},
		{`pk = 'a' AND x <> '1' OR pk = 'a' AND sk = '2'`, true},
		{`pk = 'a' AND NOT sk = '1' OR pk = 'a' AND sk = '2'`, false},
		{`pk = 'a' AND sk <> '1' OR pk = 'a' AND sk = '2'`, false},
		{`pk = 'a' AND NOT sk IN ['1', '3'] OR pk = 'a' AND sk = '2'`, false},
		{`pk = 'a' OR pk = 'a' AND NOT sk = '1'`, false},
		{`pk = 'a' AND x = 1`, false},
	} {
		err := partiql.CheckOverlap(where(t, tc.cond), "pk", "sk")
		if (err != nil) != tc.refused {
			t.Errorf("%s: %v, want refused %v", tc.cond, err, tc.refused)
		}
		if err != nil {
			if e, _ := ddberr.As(err); e.Message != partiql.MsgOverlap {
				t.Errorf("%s: %v", tc.cond, err)
			}
		}
	}
}

// TestCheckParams: parameters are read as DynamoDB reads them
// (partiqlParameterNumbers.test.ts, real DynamoDB, October 2026).
func TestCheckParams(t *testing.T) {
	deep := attr.Str("leaf")
	for range 40 {
		deep = attr.Map(map[string]attr.Value{"n": deep})
	}
	for _, tc := range []struct {
		v    attr.Value
		want string
	}{
		{attr.Num("1e99999999999"), "The parameter cannot be converted to a numeric value: 1e99999999999"},
		{attr.Num("1e-2147483648"), "The parameter cannot be converted to a numeric value: 1e-2147483648"},
		{attr.Num(""), "The parameter cannot be converted to a numeric value"},
		{attr.Num("abc"), "The parameter cannot be converted to a numeric value: abc"},
		{attr.Num("1e2147483647"), "Number underflow. Attempting to store a number with magnitude smaller than supported range"},
		{attr.Set(attr.NS, []string{"1", "1e99999999999"}), "The parameter cannot be converted to a numeric value: 1e99999999999"},
		{deep, "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"},
		{attr.Num("7.30"), ""},
	} {
		_, err := partiql.CheckParams([]attr.Value{tc.v})
		got := ""
		if e, ok := ddberr.As(err); ok {
			got = e.Message
		}
		if got != tc.want {
			t.Errorf("%v: %q, want %q", tc.v, got, tc.want)
		}
	}
}

// TestBuilder_Condition: PartiQL conditions become expression text the
// expression language checks with DynamoDB's rules.
func TestBuilder_Condition(t *testing.T) {
	for _, tc := range []struct{ cond, want string }{
		{`a = 1 AND (b <> 'x' OR NOT c IS NULL)`, `#n0 = :v0 AND (#n1 <> :v1 OR NOT attribute_type(#n2, :v2))`},
		{`attribute_exists(a) = false`, `NOT attribute_exists(#n0)`},
		{`a IS MISSING AND b NOT IN [1, 2]`, `attribute_not_exists(#n0) AND NOT (#n1 IN (:v0, :v1))`},
		{`m.n[2] != size(s)`, `#n0.#n1[2] <> size(#n2)`},
		// Nothing is in an empty list (the expression language cannot write one).
		{`a IN [] OR a NOT IN []`, `:v0 <> :v0 OR :v1 = :v1`},
	} {
		got, err := partiql.NewBuilder(nil).Condition(where(t, tc.cond))
		if err != nil || got != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.cond, got, err, tc.want)
		}
	}
	_, err := partiql.NewBuilder(nil).Condition(where(t, `set_add(a, <<1>>) = a`))
	if e, ok := ddberr.As(err); !ok || e.Message != "Unrecognized function: set_add at 1:25:7" {
		t.Errorf("set_add in a WHERE: %v", err)
	}
}
