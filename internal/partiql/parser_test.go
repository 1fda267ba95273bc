package partiql_test

import (
	"testing"

	"github.com/dynago/dynago/internal/ddberr"
	"github.com/dynago/dynago/internal/partiql"
)

// TestParse_Valid: statements DynamoDB accepts parse, and print as the
// canonical form shown (which parses back to itself).
func TestParse_Valid(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		// Developer guide, "PartiQL select statements for DynamoDB".
		{`SELECT * FROM "Music" WHERE Artist = 'No One You Know'`, `SELECT * FROM "Music" WHERE Artist = 'No One You Know'`},
		{`select a, b.c[2], "d e" from "t"."ix"`, `SELECT a, b.c[2], "d e" FROM "t"."ix"`},
		{`SELECT * FROM t WHERE pk IN ['a', 'b'] AND sk BETWEEN 1 AND 2`, `SELECT * FROM "t" WHERE pk IN ['a', 'b'] AND sk BETWEEN 1 AND 2`},
		{`SELECT * FROM "t" WHERE pk = 'x' ORDER BY sk DESC`, `SELECT * FROM "t" WHERE pk = 'x' ORDER BY sk DESC`},
		{`SELECT * FROM "t" WHERE pk = 'x' ORDER BY sk ASC;`, `SELECT * FROM "t" WHERE pk = 'x' ORDER BY sk`},
		{`SELECT * FROM "t" WHERE pk = 'x' ORDER BY sk DESC, b ASC`, `SELECT * FROM "t" WHERE pk = 'x' ORDER BY sk DESC, b`},
		// grammar.test.ts: exponents, no leading digit, comments.
		{`SELECT * FROM "t" WHERE pk = 7.31E+6`, `SELECT * FROM "t" WHERE pk = 7.31E+6`},
		{`SELECT * FROM "t" WHERE pk = -.73e1`, `SELECT * FROM "t" WHERE pk = -.73e1`},
		{"-- a note\nSELECT * FROM \"t\" /* x */ WHERE pk = 'a' -- b", `SELECT * FROM "t" WHERE pk = 'a'`},
		// whereFunctions.test.ts: IS and functions.
		{`SELECT * FROM "t" WHERE x IS NOT NULL AND y IS MISSING AND z IS DOUBLE PRECISION`, `SELECT * FROM "t" WHERE x IS NOT NULL AND y IS MISSING AND z IS DOUBLE PRECISION`},
		{`SELECT * FROM "t" WHERE NOT attribute_exists(a) OR size(s) >= ?`, `SELECT * FROM "t" WHERE NOT attribute_exists(a) OR size(s) >= ?`},
		{`SELECT * FROM "t" WHERE a != 'it''s' AND NOT b NOT IN [1]`, `SELECT * FROM "t" WHERE a != 'it''s' AND NOT b NOT IN [1]`},
		// Developer guide, "PartiQL insert statements".
		{`INSERT INTO "t" VALUE {'pk': 'a', 's': <<'x', 'y'>>, 'l': [1, TRUE, NULL], 'm': {'k': ?}}`, `INSERT INTO "t" VALUE {'pk': 'a', 's': <<'x', 'y'>>, 'l': [1, TRUE, NULL], 'm': {'k': ?}}`},
		// Developer guide, "PartiQL update statements"; fromFirstUpdate.test.ts.
		{`UPDATE "t" SET a = a + 1, b = set_add(b, <<'x'>>) REMOVE c WHERE pk = 'a' RETURNING ALL NEW *`, `UPDATE "t" SET a = a + 1 SET b = set_add(b, <<'x'>>) REMOVE c WHERE pk = 'a' RETURNING ALL NEW *`},
		{`from "t" where pk = ? set c = ?`, `FROM "t" WHERE pk = ? SET c = ?`},
		// Developer guide, "PartiQL delete statements".
		{`DELETE FROM "t" WHERE pk = 'a' AND sk = 1 RETURNING ALL OLD *`, `DELETE FROM "t" WHERE pk = 'a' AND sk = 1 RETURNING ALL OLD *`},
		// partiqlFunctions.test.ts: EXISTS(SELECT ...) in ExecuteTransaction.
		{`EXISTS(SELECT * FROM "t" WHERE pk = 'a' AND attribute_exists(b))`, `EXISTS(SELECT * FROM "t" WHERE pk = 'a' AND attribute_exists(b))`},
		// partiqlGrammar.test.ts: a bare expression parses (and is refused to run).
		{`x IS INT4`, `x IS INT4`},
		{`SELECT COUNT(*) FROM "t"`, `SELECT COUNT(*) FROM "t"`},
		{`SELECT * FROM "Movies" WHERE "year" = 1985 AND m."value" = size(x)`, `SELECT * FROM "Movies" WHERE "year" = 1985 AND m."value" = size(x)`},
	} {
		st, err := partiql.Parse(tc.src)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.src, err)
			continue
		}
		if got := st.String(); got != tc.want {
			t.Errorf("Parse(%q).String() = %q, want %q", tc.src, got, tc.want)
			continue
		}
		again, err := partiql.Parse(st.String())
		if err != nil || again.String() != st.String() {
			t.Errorf("round trip of %q: %v, %v", st.String(), again, err)
		}
	}
}

// TestParse_Invalid: DynamoDB's messages for statements it cannot read
// (tests/tier3/error-messages/partiqlGrammar.test.ts and
// partiqlFunctions.test.ts in ../shared/conformance, captured from real
// DynamoDB, October 2026).
func TestParse_Invalid(t *testing.T) {
	const nwf = "Statement wasn't well formed, can't be processed: "
	for _, tc := range []struct{ src, want string }{
		{`SELECT * FROM "t" WHERE pk = 1 foo`, nwf + "Unexpected token after expression"},
		{`SELECT * FROM "t" WHERE pk = 1 e5`, nwf + "Unexpected token after expression"},
		{`INSERT INTO "t" VALUE {'pk': 1} foo`, nwf + "Unexpected token after expression"},
		{`SELECT * FROM "t" WHERE pk = 1)`, nwf + "Unexpected token after expression"},
		{`DELETE FROM "t" WHERE pk = 1 ORDER BY pk`, nwf + "Unexpected token after expression"},
		{`SELECT * FROM "t" ORDER BY pk WHERE pk = 1`, nwf + "Unexpected token after expression"},
		{`INSERT INTO "t" t VALUE {'pk': 'x'}`, nwf + "Unexpected token after expression"},
		{`FROM "t" SET c = 1 WHERE pk = 'x'`, nwf + "Unexpected token after expression"},
		{`SELECT * FROM "t" WHERE pk = 1e2147483648`, nwf},
		{`SELECT * FROM "t" WHERE pk = 1.5e-2147483647`, nwf},
		{`SELECT * FROM "t" WHERE pk = 1 # note`, nwf},
		{`SELECT * FROM "t" WHERE pk = 1 /* note`, nwf},
		{`SELECT * FROM "t" t WHERE pk = 'x'`, "Aliasing is not supported"},
		{`SELECT * FROM "t" AS t WHERE pk = 'x'`, "Aliasing is not supported"},
		{`UPDATE "t" t SET a = 3 WHERE pk = 'x'`, "Aliasing is not supported"},
		{`DELETE FROM "t" t WHERE pk = 'x'`, "Aliasing is not supported"},
		{`SELECT * FROM "t" WHERE`, nwf + "Unexpected term"},
		{`SELECT * FROM "t" WHERE;`, nwf + "Unexpected term"},
		{`SELECT * FROM "t" WHERE NOT`, nwf + "Unexpected term"},
		{`SELECT * FROM "t" WHERE (`, nwf + "Unexpected term"},
		{`UPDATE "t" SET a = 1 WHERE`, nwf + "Unexpected term"},
		{`SELECT * FROM`, nwf + "Unexpected term"},
		{`SELECT * FROM "t" WHERE pk = 'p1' AND`, nwf + "Missing right-hand side expression of infix operator"},
		{`SELECT * FROM "t" WHERE pk = 'p1' OR`, nwf + "Missing right-hand side expression of infix operator"},
		{`SELECT * FROM "t" WHERE ORDER BY pk`, nwf + "Unexpected keyword"},
		{`SELECT * FROM "t" WHERE pk = 'a' AND x IS FOO`, nwf + "Expected type name"},
		{`SELECT * FROM "t" WHERE IS NULL`, nwf + "Unexpected operator"},
		{`SELECT * FROM "t" WHERE pk = LIKE`, nwf + "Unexpected operator"},
		{`DELETE FROM`, nwf + "Expected identifier for simple path"},
		{`DELETE FROM;`, nwf + "Expected identifier for simple path"},
		{`DELETE FROM WHERE pk = 'a'`, nwf + "Expected identifier for simple path"},
		{`SELECT * FROM "t" WHERE attribute_exists(m.inner)`, nwf + "Invalid path dot component"},
		// PartiQL's reserved words name nothing unless quoted (DynamoDB
		// Local refuses WHERE pad = 'none'; the list is PartiQL's).
		{`SELECT * FROM "Movies" WHERE year = 1985`, nwf + "Unexpected keyword"},
		{`SELECT * FROM "t" WHERE m.value = 1`, nwf + "Invalid path dot component"},
		{`SELECT * FROM "t" WHERE pk = 'a' LIMIT 5`, "Unsupported clause: LIMIT"},
	} {
		_, err := partiql.Parse(tc.src)
		e, ok := ddberr.As(err)
		if !ok || e.Code != ddberr.ValidationException || e.Message != tc.want {
			t.Errorf("Parse(%q) = %v, want ValidationException %q", tc.src, err, tc.want)
		}
	}
}

// FuzzParse: any input either parses, and its String parses back to the
// same String, or is refused with a DynamoDB ValidationException; never a
// panic.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`SELECT * FROM "t" WHERE pk = 'a' AND sk BETWEEN 1 AND 2 ORDER BY sk DESC`,
		`INSERT INTO "t" VALUE {'pk': 'a', 's': <<1, 2>>, 'l': [?, {'m': NULL}]}`,
		`UPDATE "t" SET a = list_append(a, [1]) REMOVE b[0] WHERE pk = ? RETURNING MODIFIED OLD *`,
		`FROM "t" WHERE pk = 'a' SET x = set_delete(x, <<'y'>>)`,
		`DELETE FROM "t"."i" WHERE NOT (a IS MISSING OR b IN (1, 2)) -- c`,
		`EXISTS(SELECT * FROM "t" WHERE pk = 'a' AND size(x) > .5e-3)`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		st, err := partiql.Parse(src)
		if err != nil {
			if e, ok := ddberr.As(err); !ok || e.Code != ddberr.ValidationException {
				t.Fatalf("Parse(%q): %v is not a ValidationException", src, err)
			}
			return
		}
		again, err := partiql.Parse(st.String())
		if err != nil || again.String() != st.String() {
			t.Fatalf("round trip of %q: %q, %v", src, st.String(), err)
		}
	})
}
