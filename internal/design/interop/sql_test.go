package interop

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/check"
	"github.com/dynago/dynago/internal/design/designtest"
)

// TestGolden_ImportSQL: seed 002's e-commerce schema, as pg_dump and as
// mysqldump write it, with its query log, drafts a design (golden), the
// notes on what was not read (golden), and the findings dynago design
// check then has on the draft (golden). The draft parses back without a
// diagnostic and has the keys the import promises.
func TestGolden_ImportSQL(t *testing.T) {
	queries, err := os.ReadFile("testdata/sql/queries.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"shop.pg", "shop.mysql"} {
		raw, err := os.ReadFile("testdata/sql/" + name + ".sql")
		if err != nil {
			t.Fatal(err)
		}
		d, notes, err := ImportSQL(name+".sql", raw, "shop", "queries.sql", queries)
		if err != nil {
			t.Fatal(err)
		}
		out, err := YAML(d, []string{"dynago design import --from sql --queries queries.sql " + name + ".sql"})
		if err != nil {
			t.Fatal(err)
		}
		designtest.Golden(t, "import/"+name+".design.yaml", out)
		designtest.Golden(t, "import/"+name+".notes.txt", []byte(strings.Join(notes, "\n")+"\n"))
		back, diags := design.Parse(name+".design.yaml", out)
		if len(diags) > 0 {
			t.Fatalf("%s: the draft does not parse: %v", name, diags)
		}
		var findings bytes.Buffer
		for _, dg := range check.Check(back, check.Rules) {
			findings.WriteString(dg.String() + "\n")
		}
		designtest.Golden(t, "import/"+name+".check.txt", findings.Bytes())

		// The promises: a foreign key is an item collection under the
		// parent, sorted by the indexed column; a unique index a guard
		// put in the owner's transaction; a read by an order's own id
		// goes through a GSI; each query is a pattern.
		order, guard := back.Entity("Order"), back.Entity("UserEmailGuard")
		switch {
		case order == nil || order.Key("PK").Template.Text != "USER#<user_id>" || order.Key("SK").Template.Text != "ORDER#<order_date>#<order_id>":
			t.Errorf("%s: Order's keys: %+v", name, order)
		case back.Entity("OrderItem").Key("PK").Template.Text != "ORDER#<order_id>":
			t.Errorf("%s: OrderItem is not under Order", name)
		case guard == nil || guard.Key("PK").Template.Text != "USER_EMAIL#<email>":
			t.Errorf("%s: the UNIQUE (email) guard: %+v", name, guard)
		case order.Attribute("status") == nil || len(order.Attribute("status").Values) != 4:
			t.Errorf("%s: the enum's values are lost", name)
		}
		byID := map[string]*design.Pattern{}
		for _, p := range back.Patterns {
			byID[p.ID] = p
		}
		if p := byID["get-order"]; p == nil || p.Index != "GSI1" || !strings.Contains(p.Description, "queries.sql:5") {
			t.Errorf("%s: get-order: %+v", name, p)
		}
		if p := byID["orders-of-user"]; p == nil || p.Order != "descending" || p.PageSize != 20 {
			t.Errorf("%s: orders-of-user (the query's ORDER BY ... DESC LIMIT 20): %+v", name, p)
		}
		if p := byID["put-user"]; p == nil || p.Operation != design.TransactWriteItems || len(p.Actions) != 2 ||
			p.Actions[1].Entity != "UserEmailGuard" || p.Actions[1].Condition != design.NotExists || byID["put-user-email-guard"] != nil {
			t.Errorf("%s: the user and its email guard are not one TransactWriteItems of guarded puts: %+v", name, p)
		}
		joined := strings.Join(notes, "\n")
		for _, want := range []string{"queries.sql:10:1: query not read", "JOIN", "GROUP BY", "OR: a key condition ANDs", "only SELECT statements are read, not UPDATE"} {
			if !strings.Contains(joined, want) {
				t.Errorf("%s: the notes do not say %q:\n%s", name, want, joined)
			}
		}
	}
}

// TestImportSQL_Errors: an empty schema, a quote never closed, and a
// query log that cannot be split are errors with the file and position.
func TestImportSQL_Errors(t *testing.T) {
	for _, tc := range []struct{ ddl, queries, want string }{
		{"-- nothing\nSET x = 1;", "", "s.sql: no CREATE TABLE statement to read"},
		{"CREATE TABLE t (a text DEFAULT 'x);", "", "s.sql:1:32: ' opened here is never closed"},
		{"CREATE TABLE t (a int PRIMARY KEY);", "SELECT * FROM t WHERE a = \"x", "q.sql:1:27: \" opened here is never closed"},
	} {
		_, _, err := ImportSQL("s.sql", []byte(tc.ddl), "", "q.sql", []byte(tc.queries))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.ddl, err, tc.want)
		}
	}
}

// FuzzImportSQL: any schema and query log import or are refused with an
// error, never a panic; a draft writes YAML that parses.
func FuzzImportSQL(f *testing.F) {
	files, _ := filepath.Glob("testdata/sql/*.sql")
	queries, _ := os.ReadFile("testdata/sql/queries.sql")
	for _, path := range files {
		if raw, err := os.ReadFile(path); err == nil {
			f.Add(raw, queries)
		}
	}
	f.Fuzz(func(t *testing.T, ddl, queries []byte) {
		d, _, err := ImportSQL("fuzz.sql", ddl, "", "fuzz-queries.sql", queries)
		if err != nil {
			return
		}
		out, err := YAML(d, nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = design.Parse("fuzz.design.yaml", out)
	})
}

// TestImportSQL_Names: a quoted table or column name a key template
// cannot hold becomes a name it can, everywhere the schema and the query
// log use it, and the notes say so.
func TestImportSQL_Names(t *testing.T) {
	ddl := `CREATE TABLE "a<b" ("first name" text PRIMARY KEY);
CREATE TABLE c (id int PRIMARY KEY, "first name" text NOT NULL REFERENCES "a<b" ("first name"));`
	d, notes, err := ImportSQL("odd.sql", []byte(ddl), "", "q.sql", []byte(`SELECT * FROM c WHERE "first name" = ?`))
	if err != nil {
		t.Fatal(err)
	}
	if c := d.Entity("C"); c == nil || c.Key("PK").Template.Text != "A_B#<first_name>" || c.Attribute("first_name") == nil {
		t.Errorf("C: %+v", c)
	}
	if !strings.Contains(strings.Join(notes, "\n"), "odd.sql:2:37: c.first name: attribute first_name") {
		t.Errorf("notes: %v", notes)
	}
	out, _ := YAML(d, nil)
	if _, diags := design.Parse("odd.design.yaml", out); len(diags) > 0 {
		t.Errorf("the draft does not parse: %v\n%s", diags, out)
	}
}

// TestImportSQL_NullableSortColumn: an index on a foreign key and a
// column that may be NULL does not put that column in the child's sort
// key (every item holds its whole primary key: API reference, PutItem),
// and the importer says why; a NOT NULL one does.
func TestImportSQL_NullableSortColumn(t *testing.T) {
	const schema = `CREATE TABLE projects (id bigint PRIMARY KEY);
CREATE TABLE tasks (id bigint PRIMARY KEY, project_id bigint NOT NULL REFERENCES projects(id), due_date date, created_at timestamp NOT NULL);
CREATE INDEX tasks_project_due_idx ON tasks (project_id, due_date);
`
	d, notes, err := ImportSQL("schema.sql", []byte(schema), "app", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if sk := d.Entity("Task").Key("SK").Template.Text; strings.Contains(sk, "due_date") {
		t.Errorf("Task's SK %s holds the nullable due_date", sk)
	}
	if joined := strings.Join(notes, "\n"); !strings.Contains(joined, "due_date sorts Task's collection, but it may be NULL") {
		t.Errorf("notes do not say why due_date is left out:\n%s", joined)
	}
	d, _, err = ImportSQL("schema.sql", []byte(strings.Replace(schema, "(project_id, due_date)", "(project_id, created_at)", 1)), "app", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	if sk := d.Entity("Task").Key("SK").Template.Text; !strings.HasPrefix(sk, "TASK#<created_at>#") {
		t.Errorf("Task's SK %s is not sorted by the NOT NULL created_at", sk)
	}
}
