package design_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/designtest"
	"github.com/dynago/dynago/internal/partiql"
)

// The rules these tests hold statements to are DynamoDB's (developer
// guide, "PartiQL select statements",
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ql-reference.select.html):
// a WHERE that fixes the partition key with = or IN is a Query (one per
// value), anything else a full Scan; FROM "table"."index" reads an index;
// INSERT, UPDATE and DELETE write the one item whose key they name
// (ql-reference.insert.html, ql-reference.update.html,
// ql-reference.delete.html).

func parseStatement(t *testing.T, src string) partiql.Statement {
	t.Helper()
	st, err := partiql.Parse(src)
	if err != nil {
		t.Fatalf("%s: %v", src, err)
	}
	return st
}

// TestTraffic_StatementAccesses: ExecuteStatement traffic on the seed 004
// design's table is classified by the same patterns as the GetItem and
// Query requests it stands for (TestTraffic_Classify's cases, written as
// PartiQL), and a SELECT that leaves the partition key open as a Scan.
func TestTraffic_StatementAccesses(t *testing.T) {
	d := designtest.Load(t, "../../examples/ecommerce.design.yaml")
	tr, err := design.NewTraffic([]*design.Design{d})
	if err != nil {
		t.Fatal(err)
	}
	s := func(v string) attr.Value { return attr.Str(v) }
	for _, tc := range []struct {
		stmt    string
		params  []attr.Value
		ops     []string // the operations of the accesses, in order
		pattern string   // the first access's pattern, "" for undeclared
		path    string   // the first access's path when undeclared
	}{
		{`SELECT * FROM "ecommerce" WHERE PK = ? AND SK = ?`, []attr.Value{s("USER#alice"), s("USER#alice")}, []string{"GetItem"}, "1", ""},
		{`SELECT * FROM "ecommerce"."GSI2" WHERE "Type" = 'USER'`, nil, []string{"Query"}, "2", ""},
		{`SELECT * FROM "ecommerce"."GSI2" WHERE "Type" = 'PRODUCT' AND SK = ?`, []attr.Value{s("PRODUCT#Widget")}, []string{"Query"}, "5", ""},
		{`SELECT * FROM "ecommerce" WHERE PK = 'CATEGORY#toys' AND begins_with(SK, 'PRODUCT#')`, nil, []string{"Query"}, "4", ""},
		{`SELECT * FROM "ecommerce"."GSI2" WHERE "Type" = 'ORDER' AND SK BETWEEN 'ORDER#1' AND 'ORDER#5'`, nil, []string{"Query"}, "8", ""},
		{`SELECT * FROM "ecommerce"."GSI2" WHERE SK BETWEEN 'ORDER#1' AND 'ORDER#5' AND "Type" = 'ORDER' AND TotalCents > 100`, nil, []string{"Query"}, "8", ""},
		{`SELECT * FROM "ecommerce" WHERE PK = 'USER#alice'`, nil, []string{"Query"}, "", "Query table: PK = USER#<UserName>"},
		{`SELECT * FROM "ecommerce" WHERE PK IN ['CATEGORY#toys', 'CATEGORY#books'] AND begins_with(SK, 'PRODUCT#')`, nil, []string{"Query", "Query"}, "", "Query table: PK = CATEGORY#<CategoryName>"},
		{`SELECT * FROM "ecommerce" WHERE Status = 'open'`, nil, []string{"Scan"}, "", "Scan table"},
		{`SELECT * FROM "ecommerce"."GSI1"`, nil, []string{"Scan"}, "", "Scan GSI1"},
		{`SELECT * FROM "ecommerce" WHERE PK = 'USER#alice' OR Status = 'open'`, nil, []string{"Scan"}, "", "Scan table"},
		{`INSERT INTO "ecommerce" VALUE {'PK': 'USER#alice', 'SK': 'ORDER#9', 'Status': 'open'}`, nil, []string{"PutItem"}, "", "PutItem Order"},
		{`UPDATE "ecommerce" SET Status = 'paid' WHERE PK = ? AND SK = ?`, []attr.Value{s("USER#alice"), s("ORDER#9")}, []string{"UpdateItem"}, "", "UpdateItem Order"},
		{`DELETE FROM "ecommerce" WHERE PK = 'JUNK#1' AND SK = 'X'`, nil, []string{"DeleteItem"}, "", "DeleteItem (no entity)"},
		// What the engine refuses has no access: a parameter missing, no key.
		{`SELECT * FROM "ecommerce" WHERE PK = ?`, nil, nil, "", ""},
		{`DELETE FROM "ecommerce" WHERE PK = 'USER#alice'`, nil, nil, "", ""},
		{`SELECT * FROM "other" WHERE PK = 'x'`, nil, nil, "", ""},
	} {
		got := tr.StatementAccesses(parseStatement(t, tc.stmt), tc.params)
		var ops []string
		for _, a := range got {
			ops = append(ops, a.Operation)
		}
		if !slices.Equal(ops, tc.ops) {
			t.Errorf("%s: operations %v, want %v (%+v)", tc.stmt, ops, tc.ops, got)
			continue
		}
		if len(got) == 0 {
			continue
		}
		pattern, path, ok := tr.Classify(got[0])
		if pattern != tc.pattern || ok != (tc.pattern != "") || (tc.path != "" && path != tc.path) {
			t.Errorf("%s: pattern %q path %q declared %v, want pattern %q path %q", tc.stmt, pattern, path, ok, tc.pattern, tc.path)
		}
	}
}

// statementOf writes pattern p of d as the PartiQL statement a user would:
// each key condition in PartiQL's words, values as quoted templates.
func statementOf(d *design.Design, p *design.Pattern) string {
	from := `"` + d.Table.Name + `"`
	if p.Index != "" {
		from += `."` + p.Index + `"`
	}
	var where []string
	for _, c := range p.Conditions {
		q := func(i int) string { return "'" + c.Values[i].String() + "'" }
		switch c.Op {
		case "begins_with":
			where = append(where, fmt.Sprintf(`begins_with("%s", %s)`, c.Attr, q(0)))
		case "between":
			where = append(where, fmt.Sprintf(`"%s" BETWEEN %s AND %s`, c.Attr, q(0), q(1)))
		default:
			where = append(where, fmt.Sprintf(`"%s" %s %s`, c.Attr, c.Op, q(0)))
		}
	}
	stmt := "SELECT * FROM " + from
	if len(where) > 0 {
		stmt += " WHERE " + strings.Join(where, " AND ")
	}
	if p.Order == "descending" {
		_, sk, _ := d.KeySchema(p.Index)
		stmt += ` ORDER BY "` + sk[0].Name + `" DESC`
	}
	return stmt
}

// TestParse_PartiQLPatterns: every read pattern of every example design,
// rewritten as a PartiQL statement (partiql:), parses to the same
// operation, index, key conditions and order as its key: form, so that
// check, analyze, run and gen-go see the same pattern.
func TestParse_PartiQLPatterns(t *testing.T) {
	examples, _ := filepath.Glob("../../examples/*.design.yaml")
	if len(examples) < 3 {
		t.Fatalf("examples: %v", examples)
	}
	for _, path := range examples {
		d := designtest.Load(t, path)
		var b strings.Builder
		for _, p := range d.Patterns {
			if p.Kind != "read" || p.Multi() {
				continue // a BatchGetItem has no one statement
			}
			fmt.Fprintf(&b, "  - id: %q\n    partiql: %q\n    returns: [%s]\n", p.ID, statementOf(d, p), strings.Join(p.Returns, ", "))
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		head, _, _ := strings.Cut(string(raw), "\npatterns:")
		src := head + "\npatterns:\n" + b.String()
		got, diags := design.Parse(path+" (as PartiQL)", []byte(src))
		if len(diags) > 0 {
			t.Fatalf("%s as PartiQL: %v\n%s", path, diags, b.String())
		}
		var reads []*design.Pattern
		for _, p := range d.Patterns {
			if p.Kind == "read" && !p.Multi() {
				reads = append(reads, p)
			}
		}
		if len(got.Patterns) != len(reads) {
			t.Fatalf("%s: %d patterns, want %d", path, len(got.Patterns), len(reads))
		}
		for i, p := range reads {
			g := got.Patterns[i]
			if g.Statement == "" || g.Kind != "read" || got.Operation(g) != d.Operation(p) || g.Index != p.Index ||
				g.Order != orderWritten(p.Order) || fmt.Sprint(g.Conditions) != fmt.Sprint(p.Conditions) {
				t.Errorf("%s pattern %s:\n  %s\ngives %s %s %v order %q, want %s %s %v order %q", path, p.ID, g.Statement,
					got.Operation(g), g.Index, g.Conditions, g.Order, d.Operation(p), p.Index, p.Conditions, p.Order)
			}
		}
	}
}

// orderWritten is the order a pattern's statement gives: "" for
// ascending, which a statement without ORDER BY ... DESC reads in.
func orderWritten(order string) string {
	if order == "ascending" {
		return ""
	}
	return order
}

// TestParse_PartiQLPatternForms: the kinds of statement a pattern may be
// written as, what each becomes, and the mistakes refused with the line of
// the statement.
func TestParse_PartiQLPatternForms(t *testing.T) {
	const head = `table:
  name: app
  partitionKey: {name: PK, type: S}
  sortKey: {name: SK, type: S}
  indexes:
    - name: GSI1
      partitionKey: {name: GSI1PK, type: S}
      sortKey: {name: GSI1SK, type: S}
entities:
  User:
    attributes: {UserId: S, Email: S, Name: S, Visits: N}
    keys:
      PK: USER#<UserId>
      SK: PROFILE
      GSI1PK: EMAIL#<Email>
      GSI1SK: USER
patterns:
`
	for _, tc := range []struct {
		name, pattern string
		want          string // operation index conditions order kind updates needs
		err           string // a diagnostic's text, when refused
	}{
		{"a GetItem", `partiql: SELECT * FROM "app" WHERE PK = 'USER#<UserId>' AND SK = 'PROFILE'
    returns: [User]`, "GetItem||PK = USER#<UserId>, SK = PROFILE||read|[]|[]", ""},
		{"a Query of an index, projected", `partiql: SELECT Name, "Email" FROM "app"."GSI1" WHERE GSI1PK = 'EMAIL#<Email>'
    returns: [User]`, "Query|GSI1|GSI1PK = EMAIL#<Email>||read|[]|[Name Email]", ""},
		{"descending, with a range", `partiql: SELECT * FROM "app" WHERE PK = 'USER#<UserId>' AND SK > 'A' ORDER BY SK DESC
    returns: [User]`, "Query||PK = USER#<UserId>, SK > A|descending|read|[]|[]", ""},
		{"a Scan", `partiql: SELECT * FROM "app" WHERE Email = 'x'
    returns: [User]`, "Scan||||read|[]|[]", ""},
		{"an UPDATE", `partiql: UPDATE "app" SET Visits = 1 SET Name = 'x' REMOVE Email WHERE PK = 'USER#<UserId>' AND SK = 'PROFILE'
    entity: User`, "UpdateItem||||write|[Visits Name Email]|[]", ""},
		// A statement with ": " in it is a YAML block scalar (or quoted).
		{"an INSERT", `partiql: >-
      INSERT INTO "app" VALUE {'PK': 'USER#<UserId>', 'SK': 'PROFILE'}
    entity: User`, "PutItem||||write|[]|[]", ""},
		{"a DELETE", `partiql: DELETE FROM "app" WHERE PK = 'USER#<UserId>' AND SK = 'PROFILE'
    entity: User`, "DeleteItem||||write|[]|[]", ""},
		{"parameters", `partiql: SELECT * FROM "app" WHERE PK = ?
    returns: [User]`, "", `pattern p: partiql: write the values as templates in quotes ('USER#<UserId>'), not ?`},
		{"another table", `partiql: SELECT * FROM "other" WHERE PK = 'x'
    returns: [User]`, "", `the statement names table "other"; the design's table is "app"`},
		{"a filter", `partiql: SELECT * FROM "app" WHERE PK = 'USER#<UserId>' AND SK = 'PROFILE' AND Email = '<Email>'
    returns: [User]`, "", `pattern p: partiql: Email = '<Email>' is not a key condition: a pattern reads by key`},
		{"two conditions on the sort key", `partiql: SELECT * FROM "app" WHERE PK = 'USER#<UserId>' AND SK > 'A' AND SK < 'Z'
    returns: [User]`, "", `SK < 'Z' is not a key condition`},
		{"a {'k': v} item without quotes", `partiql: INSERT INTO "app" VALUE {'PK': 'USER#<UserId>', 'SK': 'PROFILE'}
    entity: User`, "", `needs quotes or a block scalar: partiql: >-`},
		{"several partitions", `partiql: SELECT * FROM "app" WHERE PK IN ['USER#1', 'USER#2']
    returns: [User]`, "", "the statement reads 2 partitions"},
		{"an unknown index", `partiql: SELECT * FROM "app"."GSI9" WHERE GSI1PK = 'x'
    returns: [User]`, "", "the table has no index GSI9"},
		{"a key beside it", `partiql: SELECT * FROM "app" WHERE PK = 'USER#<UserId>'
    key: PK = USER#<UserId>
    returns: [User]`, "", "the partiql statement says the key itself; leave key: out"},
		{"not PartiQL", `partiql: SELECT FROM "app"
    returns: [User]`, "", "pattern p: partiql: Statement wasn't well formed, can't be processed: Unexpected keyword"},
	} {
		src := head + "  - id: p\n    " + tc.pattern + "\n"
		d, diags := design.Parse("t.design.yaml", []byte(src))
		if tc.err != "" {
			if len(diags) == 0 || !strings.Contains(fmt.Sprint(diags), tc.err) {
				t.Errorf("%s: diagnostics %v, want one containing %q", tc.name, diags, tc.err)
			} else if line := map[bool]string{true: ":20:", false: ":19:"}[strings.Contains(tc.pattern, "key:")]; !strings.Contains(fmt.Sprint(diags), "t.design.yaml"+line) {
				t.Errorf("%s: diagnostics %v, want them at line %s (the statement, or the field beside it)", tc.name, diags, line)
			}
			continue
		}
		if len(diags) > 0 {
			t.Errorf("%s: %v", tc.name, diags)
			continue
		}
		p := d.Patterns[0]
		var conds []string
		for _, c := range p.Conditions {
			conds = append(conds, c.String())
		}
		op := d.Operation(p)
		if p.Kind == "write" {
			op = p.Operation
		}
		got := fmt.Sprintf("%s|%s|%s|%s|%s|%v|%v", op, p.Index, strings.Join(conds, ", "), p.Order, p.Kind, p.Updates, p.Needs)
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
