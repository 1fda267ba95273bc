package sqlschema

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// summary renders a schema compactly: tables with their columns (type,
// ! for NOT NULL, enum values), primary and foreign keys, then indexes
// and the statements skipped.
func summary(s *Schema) string {
	var b strings.Builder
	for _, t := range s.Tables {
		fmt.Fprintf(&b, "%s(", t.Name)
		for i, c := range t.Columns {
			if i > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "%s:%s", c.Name, c.Type)
			if c.NotNull {
				b.WriteString("!")
			}
			if c.Values != nil {
				fmt.Fprintf(&b, "%v", c.Values)
			}
		}
		fmt.Fprintf(&b, ") pk%v", t.PrimaryKey)
		for _, fk := range t.ForeignKeys {
			fmt.Fprintf(&b, " fk%v>%s%v", fk.Columns, fk.RefTable, fk.RefColumns)
		}
		b.WriteString("; ")
	}
	for _, ix := range s.Indexes {
		u := ""
		if ix.Unique {
			u = "unique "
		}
		fmt.Fprintf(&b, "%sindex %s on %s%v; ", u, ix.Name, ix.Table, ix.Columns)
	}
	for _, sk := range s.Skipped {
		fmt.Fprintf(&b, "skipped %s at %s; ", sk.What, sk.Pos)
	}
	return strings.TrimSuffix(b.String(), "; ")
}

// TestParse: the DDL forms real schemas use, in both dialects, read to
// their tables, keys and indexes.
func TestParse(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"column constraints", `CREATE TABLE users (id serial PRIMARY KEY, email text NOT NULL UNIQUE, org_id int REFERENCES orgs (id) ON DELETE CASCADE);`,
			"users(id:serial! email:text! org_id:int) pk[id] fk[org_id]>orgs[id]; unique index  on users[email]"},
		{"table constraints and quoted names", `create table if not exists "Order Lines" ("Order" bigint not null, line int, constraint pk primary key ("Order", line), foreign key ("Order") references "Orders");`,
			"Order Lines(Order:bigint! line:int!) pk[Order line] fk[Order]>Orders[]"},
		{"MySQL keys, backquotes, options", "CREATE TABLE `t` (`a` int unsigned NOT NULL AUTO_INCREMENT COMMENT 'x', `b` enum('x','y') DEFAULT 'x', `c` varchar(20) CHARACTER SET ascii, PRIMARY KEY (`a`), UNIQUE KEY `ub` (`b`,`c`(10)), KEY `kc` (`c`)) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4;",
			"t(a:int unsigned! b:enum[x y] c:varchar) pk[a]; unique index ub on t[b c]; index kc on t[c]"},
		{"PostgreSQL types, casts, enums, ALTER TABLE", `CREATE TYPE mood AS ENUM ('sad', 'ok');
CREATE TABLE public.p (id bigint NOT NULL, at timestamp(3) with time zone DEFAULT now(), m public.mood DEFAULT 'ok'::public.mood, tags text[] DEFAULT '{}'::text[], n numeric(10, 2) CHECK (n > 0));
ALTER TABLE ONLY public.p ADD CONSTRAINT p_pkey PRIMARY KEY (id);
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS p_at ON ONLY public.p USING btree (at DESC NULLS LAST);`,
			"p(id:bigint! at:timestamp with time zone m:mood[sad ok] tags:text[] n:numeric) pk[id]; unique index p_at on p[at]"},
		{"comments and statements skipped", "-- a dump\n/* block\ncomment */ SET x = 1;\n# mysql comment\nCREATE VIEW v AS SELECT 1;\nCREATE TABLE t (a int);\nINSERT INTO t VALUES (1);",
			"t(a:int) pk[]; skipped SET X at 3:12; skipped CREATE VIEW V at 5:1; skipped INSERT INTO T at 7:1"},
		{"a column named key", `CREATE TABLE kv (key text PRIMARY KEY, index int, KEY by_index (index));`,
			"kv(key:text! index:int) pk[key]; index by_index on kv[index]"},
	} {
		s, err := Parse(tc.src)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := summary(s); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// TestParse_Invalid: a statement that cannot be read is skipped with the
// position and reason of its problem; the rest of the file is read.
func TestParse_Invalid(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"CREATE TABLE t (a int,, b int); CREATE TABLE u (x int);", "1:23: want a column name or a constraint, found \",\""},
		{"CREATE TABLE t (a);", "1:18: column a: want its type, found \")\""},
		{"CREATE TABLE t (a int", "1:22: want ,, found the end of the file"},
		{"CREATE INDEX i ON t (lower(a));", "1:22: an index on an expression (lower(...)) has no attribute a key could hold"},
		{"CREATE TABLE t AS SELECT 1;", "1:16: CREATE TABLE t AS has no column list to read"},
		{"ALTER TABLE t ADD COLUMN c int;", "1:19: ALTER TABLE t ADD: only a constraint"},
		{"CREATE TABLE t (a int CONSTRAINT);", "1:33: want a constraint name, found \")\""},
		{"CREATE TABLE t (a int); CREATE TABLE t (b int);", "1:38: table t is created twice"},
	} {
		s, err := Parse(tc.src)
		if err != nil {
			t.Errorf("%q: %v", tc.src, err)
			continue
		}
		if len(s.Skipped) == 0 || !strings.Contains(s.Skipped[0].Reason, tc.want) {
			t.Errorf("%q: skipped %+v, want a reason with %q", tc.src, s.Skipped, tc.want)
		}
	}
	if s, _ := Parse("CREATE TABLE t (a int,, b int); CREATE TABLE u (x int);"); len(s.Tables) != 1 || s.Tables[0].Name != "u" {
		t.Errorf("the statement after a bad one is not read: %s", summary(s))
	}
	for _, src := range []string{"CREATE TABLE t (a text DEFAULT 'x", "CREATE TABLE \"t (a int)", "SELECT `x"} {
		if _, err := Parse(src); err == nil || !strings.Contains(err.Error(), "opened here is never closed") {
			t.Errorf("%q: %v", src, err)
		}
	}
}

// TestParseQueries: the SELECT forms a pattern can say are read; every
// other form is skipped with the reason.
func TestParseQueries(t *testing.T) {
	qs, skipped, err := ParseQueries(`SELECT * FROM t WHERE a = ? AND t.b = $2 ORDER BY c DESC LIMIT 10;
select x from t as u where u.a = :a and u.c between ? and ?
SELECT * FROM t WHERE a = 'x' AND name LIKE 'abc%';
SELECT * FROM t WHERE a = ? OR b = ?;
SELECT * FROM t WHERE a IN (?, ?);
SELECT * FROM t WHERE a = (SELECT 1);
SELECT * FROM t WHERE lower(a) = ?;
SELECT * FROM t WHERE a LIKE '%x';
SELECT * FROM t WHERE a > ? AND b < ?;
SELECT * FROM t ORDER BY a, b;
DELETE FROM t WHERE a = ?`)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, q := range qs {
		r := ""
		if q.Range != nil {
			r = " " + q.Range.Column + " " + q.Range.Op
		}
		got = append(got, fmt.Sprintf("%s %s eq%v%s order %s desc=%v limit %d", q.Pos, q.Table, q.Eq, r, q.OrderBy, q.Desc, q.Limit))
	}
	want := []string{
		"1:1 t eq[a b] order c desc=true limit 10",
		"2:1 t eq[a] c between order  desc=false limit 0",
		"3:1 t eq[a] name begins_with order  desc=false limit 0",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("queries:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	reasons := []string{"OR: a key condition ANDs", "a IN (...)", "a subquery", "lower(...): a function", "LIKE '%x' is not a prefix match", "a second range", "ORDER BY several columns", "only SELECT statements are read, not DELETE"}
	if len(skipped) != len(reasons) {
		t.Fatalf("skipped %d, want %d: %+v", len(skipped), len(reasons), skipped)
	}
	for i, want := range reasons {
		if !strings.Contains(skipped[i].Reason, want) || skipped[i].Pos.Line != i+4 {
			t.Errorf("skipped[%d] = %+v, want line %d and %q", i, skipped[i], i+4, want)
		}
	}
}

// FuzzParse: any text parses or is refused with an error (as DDL and as a
// query log), never a panic, and what is read has names.
func FuzzParse(f *testing.F) {
	for _, path := range []string{"../design/interop/testdata/sql/shop.pg.sql", "../design/interop/testdata/sql/shop.mysql.sql", "../design/interop/testdata/sql/queries.sql"} {
		if raw, err := os.ReadFile(path); err == nil {
			f.Add(string(raw))
		}
	}
	f.Add("CREATE TABLE t (a int PRIMARY KEY, b text REFERENCES u, UNIQUE (b));")
	f.Fuzz(func(t *testing.T, src string) {
		if s, err := Parse(src); err == nil {
			for _, tb := range s.Tables {
				if tb.Name == "" && len(tb.Columns) == 0 {
					t.Fatalf("a table without a name or columns: %+v", tb)
				}
			}
		}
		if qs, _, err := ParseQueries(src); err == nil {
			for _, q := range qs {
				if q.Table == "" {
					t.Fatalf("a query without a table: %+v", q)
				}
			}
		}
	})
}

// TestParse_Prefixes: every prefix of the sample schemas and query log
// (what an editor holds mid-typing, or a dump cut short) parses or is
// refused with an error, without a panic, and never reads more tables
// than the whole file has. (Fuzzing does not run on every machine; this
// runs wherever the tests do.)
func TestParse_Prefixes(t *testing.T) {
	for _, path := range []string{"../design/interop/testdata/sql/shop.pg.sql", "../design/interop/testdata/sql/shop.mysql.sql", "../design/interop/testdata/sql/queries.sql"} {
		raw, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		full, err := Parse(string(raw))
		if err != nil {
			t.Fatal(err)
		}
		for i := range len(raw) {
			s, err := Parse(string(raw[:i]))
			if err == nil && len(s.Tables) > len(full.Tables) {
				t.Fatalf("%s[:%d]: %d tables, more than the whole file's %d", path, i, len(s.Tables), len(full.Tables))
			}
			_, _, _ = ParseQueries(string(raw[:i]))
			_, _, _ = ParseQueries(string(raw[i:]))
		}
	}
}
