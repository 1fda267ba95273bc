package interop

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/design/designtest"
)

// summary is what a design holds, as comparable text: table, indexes,
// entities with discriminators, attribute types and key templates, and,
// unless keysOnly, patterns and workload.
func summary(d *design.Design, workbench bool) []string {
	var out []string
	typ := func(t string) string {
		if workbench {
			return workbenchType(t)
		}
		return t
	}
	out = append(out, fmt.Sprintf("table %s pk %v sk %v billing %s ttl %s stream %s", d.Table.Name, d.Table.PartitionKey, d.Table.SortKey, d.Table.BillingMode, d.Table.TTL, d.Table.Stream))
	for _, ix := range d.Table.Indexes {
		out = append(out, fmt.Sprintf("index %s local %v pk %v sk %v projection %s %v", ix.Name, ix.Local, ix.PartitionKey, ix.SortKey, ix.Projection, ix.Include))
	}
	for _, e := range d.Entities {
		out = append(out, fmt.Sprintf("entity %s discriminator %s=%s", e.Name, e.Discriminator, e.DiscriminatorValue))
		for _, a := range e.Attributes {
			s := fmt.Sprintf("  attribute %s %s", a.Name, typ(a.Type))
			if !workbench {
				s += fmt.Sprintf(" optional %v values %v cardinality %d size %d", a.Optional, a.Values, a.Cardinality, a.Size)
			}
			out = append(out, s)
		}
		for _, k := range e.Keys {
			s := fmt.Sprintf("  key %s = %s", k.Attr, k.Template.Text)
			if workbench && k.Shard != nil {
				// The format holds no shard rule: the key comes back as
				// an attribute of its own.
				s = fmt.Sprintf("  attribute %s S", k.Attr)
			}
			if !workbench {
				s += fmt.Sprintf(" shard %v sparse %v", k.Shard, k.Sparse)
			}
			out = append(out, s)
		}
	}
	if workbench {
		slices.Sort(out)
		return out
	}
	for _, p := range d.Patterns {
		out = append(out, fmt.Sprintf("pattern %s %q %s %s %s %q %v %s %v %v given %#v %s %d shards %s expects %s %v %v %v", p.ID, p.Description, p.Kind, p.Operation, p.Index, p.KeyCondition, p.Returns, p.Entity, p.Updates, p.Needs, p.Given, p.Order, p.PageSize, p.Shards, p.Expects, p.Rate, p.Consistent, p.Transaction))
		for _, a := range append(slices.Clone(p.Actions), p.Write) {
			if a == nil {
				continue
			}
			out = append(out, fmt.Sprintf("  action %s %s set %v add %v condition %s version %s count %d", a.Kind, a.Entity, a.Set, a.Add, a.Condition, a.Version, a.Count))
		}
	}
	out = append(out, fmt.Sprintf("workload items %v", d.Workload.Items))
	for name, sk := range d.Workload.Skew {
		out = append(out, fmt.Sprintf("skew %s zipf %g top %v", name, sk.Zipf, sk.Top))
	}
	slices.Sort(out)
	return out
}

// TestYAML_RoundTrip: every example and testdata design without syntax
// errors, written back as YAML, parses to the same design.
func TestYAML_RoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../../../examples/*.design.yaml")
	more, _ := filepath.Glob("../analyze/testdata/*.design.yaml")
	more = append(more, "../check/testdata/ok.design.yaml", "../check/testdata/multiitem.design.yaml", "../gengo/testdata/accounts.design.yaml")
	for _, path := range append(files, more...) {
		d := designtest.Load(t, path)
		raw, err := YAML(d, []string{"round trip"})
		if err != nil {
			t.Fatal(err)
		}
		back, diags := design.Parse(path, raw)
		if len(diags) > 0 {
			t.Fatalf("%s: the written YAML does not parse: %v\n%s", path, diags, raw)
		}
		if got, want := strings.Join(summary(back, false), "\n"), strings.Join(summary(d, false), "\n"); got != want {
			t.Errorf("%s: round trip differs:\n--- got\n%s\n--- want\n%s", path, got, want)
		}
	}
}

// TestWorkbench_RoundTrip: the seed designs exported as NoSQL Workbench
// models (Version 3.0, one facet per entity with its key templates as
// aliases, sample items) and imported back keep everything the format
// holds: table, keys, billing mode, indexes and projections, entities,
// discriminators, attribute types (timestamp and epoch as S and N), and
// every key template, the index ones read back from the sample items
// (testdata/workbench/coincidences.design.yaml builds them from
// attributes whose sample values once coincided; a sharded key comes back
// as an attribute, not as one shard's constant).
func TestWorkbench_RoundTrip(t *testing.T) {
	files, _ := filepath.Glob("../../../examples/*.design.yaml")
	for _, path := range append(files, "testdata/workbench/coincidences.design.yaml") {
		d := designtest.Load(t, path)
		raw, err := ExportWorkbench(d, time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		var m WorkbenchModel
		if err := json.Unmarshal(raw, &m); err != nil || m.ModelMetadata.Version != "3.0" || len(m.DataModel) != 1 || len(m.DataModel[0].TableFacets) != len(d.Entities) {
			t.Fatalf("%s: exported model: %v %+v", path, err, m.ModelMetadata)
		}
		if filepath.Base(path) == "ecommerce.design.yaml" {
			designtest.Golden(t, "workbench/ecommerce.json", raw)
		}
		back, notes, err := ImportWorkbench("model.json", raw, "")
		if err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Join(summary(back, true), "\n"), strings.Join(summary(d, true), "\n"); got != want {
			t.Errorf("%s: Workbench round trip differs (notes %v):\n--- got\n%s\n--- want\n%s", path, notes, got, want)
		}
	}
}

// TestImportWorkbench_Lenient: a model in NoSQL Workbench's shape with
// fields dynago does not know, sample items inside the facets, an alias
// that names an attribute (SongId) and a constant alias (DETAILS) imports
// to a design that parses, with the index key read from the items.
func TestImportWorkbench_Lenient(t *testing.T) {
	raw, err := os.ReadFile("testdata/workbench/music.json")
	if err != nil {
		t.Fatal(err)
	}
	d, notes, err := ImportWorkbench("music.json", raw, "")
	if err != nil {
		t.Fatal(err)
	}
	out, err := YAML(d, nil)
	if err != nil {
		t.Fatal(err)
	}
	designtest.Golden(t, "workbench/music.design.yaml", out)
	if _, diags := design.Parse("music.design.yaml", out); len(diags) > 0 {
		t.Fatalf("the imported design does not parse: %v\n%s", diags, out)
	}
	if e := d.Entity("MonthlyDownloads"); e == nil || e.Key("DownloadsByMonth") == nil || e.Key("DownloadsByMonth").Template.Text != "<Month>" {
		t.Errorf("MonthlyDownloads' index key (notes %v):\n%s", notes, out)
	}
	if e := d.Entity("SongDetails"); e == nil || e.Key("Id").Template.Text != "<SongId>" || e.Key("Metadata").Template.Text != "DETAILS" {
		t.Errorf("SongDetails' keys:\n%s", out)
	}
}

// TestImportWorkbench_Errors: what cannot be imported says why.
func TestImportWorkbench_Errors(t *testing.T) {
	two := `{"DataModel":[{"TableName":"a","KeyAttributes":{"PartitionKey":{"AttributeName":"pk","AttributeType":"S"}}},` +
		`{"TableName":"b","KeyAttributes":{"PartitionKey":{"AttributeName":"pk","AttributeType":"S"}},"TableFacets":[{"FacetName":"F","KeyAttributeAlias":{"PartitionKeyAlias":"F#<id>"}}]}]}`
	for _, tc := range []struct{ raw, table, want string }{
		{`{"DataModel": [`, "", "not a NoSQL Workbench model"},
		{`[]`, "", "not a NoSQL Workbench model"},
		{`{}`, "", "the model has no table"},
		{two, "", "the model has 2 tables (a, b): choose one with --table"},
		{two, "c", `no table "c" in the model (a, b)`},
		{`{"DataModel":[{"TableName":"a"}]}`, "", "table a has no partition key"},
		{two, "a", "table a has no facets"},
		{`{"DataModel":[{"TableName":"a","KeyAttributes":{"PartitionKey":{"AttributeName":"pk"}},"TableFacets":[{"FacetName":"F","KeyAttributeAlias":{"PartitionKeyAlias":"X#<open"}}]}]}`, "", `facet F: key alias "X#<open"`},
	} {
		if _, _, err := ImportWorkbench("m.json", []byte(tc.raw), tc.table); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.raw, err, tc.want)
		}
	}
	if _, _, err := ImportWorkbench("m.json", []byte(two), "b"); err != nil {
		t.Errorf("--table b: %v", err)
	}
}

// FuzzImportWorkbench: any bytes import or are refused with an error,
// never a panic; an imported design writes YAML that parses.
func FuzzImportWorkbench(f *testing.F) {
	for _, path := range []string{"testdata/workbench/music.json", "testdata/golden/workbench/ecommerce.json"} {
		if raw, err := os.ReadFile(path); err == nil {
			f.Add(raw)
		}
	}
	f.Add([]byte(`{"DataModel":[{"TableName":"t","KeyAttributes":{"PartitionKey":{"AttributeName":"pk"}}}]}`))
	f.Fuzz(func(t *testing.T, raw []byte) {
		d, _, err := ImportWorkbench("fuzz.json", raw, "")
		if err != nil {
			return
		}
		if _, err := YAML(d, nil); err != nil {
			t.Fatal(err)
		}
	})
}

// TestImport_OneTableAndMCP: a OneTable schema and a DynamoDB MCP
// schema.json import to designs that parse back from their YAML, match
// their golden files and carry the source's keys, indexes and (MCP)
// access patterns.
func TestImport_OneTableAndMCP(t *testing.T) {
	for _, tc := range []struct {
		file, table string
		imp         func(string, []byte, string) (*design.Design, []string, error)
		check       func(*design.Design) string
	}{
		{"testdata/onetable/crm.json", "crm", ImportOneTable, func(d *design.Design) string {
			u := d.Entity("User")
			switch {
			case u == nil || u.Key("gs1pk").Template.Text != "user#<email>" || u.Discriminator != "_type" || u.DiscriminatorValue != "User":
				return "User"
			case d.Index("ls1") == nil || !d.Index("ls1").Local || d.Index("ls1").Projection != "KEYS_ONLY" || d.Index("gs1").Projection != "INCLUDE":
				return "indexes"
			case d.Entity("Account").Attribute("created").Type != "timestamp" || d.Entity("Account").Attribute("balance").Type != "N":
				return "types"
			}
			return ""
		}},
		{"testdata/mcp/shop.json", "", ImportMCP, func(d *design.Design) string {
			o := d.Entity("Order")
			switch {
			case o == nil || o.Key("status_pk").Template.Text != "STATUS#<status>" || o.Key("store").Template.Text != "<store>":
				return "Order keys"
			case len(d.Index("RegionIndex").PartitionKey) != 2:
				return "multi-attribute GSI key"
			case len(d.Patterns) != 9:
				return fmt.Sprintf("%d patterns", len(d.Patterns))
			}
			byID := map[string]*design.Pattern{}
			for _, p := range d.Patterns {
				byID[p.ID] = p
			}
			switch p8, p9, p5 := byID["8"], byID["9"], byID["5"]; {
			// mixed_data: every entity under the customer's key, no
			// sort-key condition (the whole item collection).
			case p8 == nil || !slices.Equal(p8.Returns, []string{"Customer", "Order"}) || p8.KeyCondition != "pk = CUSTOMER#<customer_id>":
				return fmt.Sprintf("mixed_data pattern 8: %+v", p8)
			// A begins_with parameter stays in the bound.
			case p9 == nil || p9.KeyCondition != "pk = CUSTOMER#<customer_id> AND sk begins_with ORDER#<month_prefix>" || !slices.Equal(p9.Given, []string{"customer_id", "month_prefix"}):
				return fmt.Sprintf("prefix parameter pattern 9: %+v", p9)
			case p5 == nil || p5.KeyCondition != "status_pk = STATUS#<status> AND created_sk > <after>":
				return fmt.Sprintf("range parameter pattern 5: %+v", p5)
			}
			return ""
		}},
	} {
		raw, err := os.ReadFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		d, notes, err := tc.imp(tc.file, raw, tc.table)
		if err != nil {
			t.Fatal(err)
		}
		if what := tc.check(d); what != "" {
			t.Errorf("%s: %s wrong (notes %v)", tc.file, what, notes)
		}
		out, err := YAML(d, nil)
		if err != nil {
			t.Fatal(err)
		}
		designtest.Golden(t, "import/"+filepath.Base(filepath.Dir(tc.file))+".design.yaml", out)
		back, diags := design.Parse("imported.design.yaml", out)
		if len(diags) > 0 {
			t.Fatalf("%s: the imported design does not parse: %v\n%s", tc.file, diags, out)
		}
		if got, want := strings.Join(summary(back, false), "\n"), strings.Join(summary(d, false), "\n"); got != want {
			t.Errorf("%s: YAML round trip differs:\n--- got\n%s\n--- want\n%s", tc.file, got, want)
		}
	}
	for _, tc := range []struct {
		imp       func(string, []byte, string) (*design.Design, []string, error)
		raw, want string
	}{
		{ImportOneTable, `{"models":{}}`, "no primary index"},
		{ImportOneTable, `{"indexes":{"primary":{"hash":"pk"}}}`, "no models"},
		{ImportOneTable, `{"indexes":{"primary":{"hash":"pk"}},"models":{"A":{"pk":{"value":"a#<b>"}}}}`, "has < or >"},
		{ImportOneTable, `[1]`, "not a OneTable schema"},
		{ImportMCP, `{"tables":[]}`, "no tables"},
		{ImportMCP, `{"tables":[{"table_config":{"table_name":"a","partition_key":"pk"}},{"table_config":{"table_name":"b","partition_key":"pk"}}]}`, "choose one with --table"},
		{ImportMCP, `{"tables":[{"table_config":{"table_name":"a"}}]}`, "needs one partition_key"},
		{ImportMCP, `{"tables":[{"table_config":{"table_name":"a","partition_key":"pk"},"entities":{"E":{"pk_template":"X","gsi_mappings":[{"name":"G"}]}}}]}`, "which gsi_list does not declare"},
		{ImportMCP, `{"tables":[{"table_config":{"table_name":"a","partition_key":"pk"},"entities":{"E":{"pk_template":"X#{a}#{b"}}}]}`, "has a { or } that is not a {variable}"},
	} {
		if _, _, err := tc.imp("f.json", []byte(tc.raw), ""); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.raw, err, tc.want)
		}
	}
}

// FuzzImportOneTableAndMCP: any bytes import or are refused with an
// error, never a panic; a design imported writes YAML that parses.
func FuzzImportOneTableAndMCP(f *testing.F) {
	for _, path := range []string{"testdata/onetable/crm.json", "testdata/mcp/shop.json"} {
		if raw, err := os.ReadFile(path); err == nil {
			f.Add(raw)
		}
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, imp := range []func(string, []byte, string) (*design.Design, []string, error){ImportOneTable, ImportMCP} {
			d, _, err := imp("fuzz.json", raw, "")
			if err != nil {
				continue
			}
			out, err := YAML(d, nil)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = design.Parse("fuzz.design.yaml", out)
		}
	})
}

// TestImportWorkbench_FacetData: each facet reads its own sample items
// (not another facet's that its aliases would also build), an alias that
// names the key attribute itself is that attribute, and the
// discriminator comes from the facets' own items.
func TestImportWorkbench_FacetData(t *testing.T) {
	const model = `{"DataModel":[{"TableName":"music",
	 "KeyAttributes":{"PartitionKey":{"AttributeName":"PK","AttributeType":"S"},"SortKey":{"AttributeName":"SK","AttributeType":"S"}},
	 "NonKeyAttributes":[{"AttributeName":"SongId","AttributeType":"S"},{"AttributeName":"Title","AttributeType":"S"},{"AttributeName":"Kind","AttributeType":"S"},{"AttributeName":"GSI1PK","AttributeType":"S"},{"AttributeName":"DownloadId","AttributeType":"S"}],
	 "GlobalSecondaryIndexes":[{"IndexName":"GSI1","KeyAttributes":{"PartitionKey":{"AttributeName":"GSI1PK","AttributeType":"S"}},"Projection":{"ProjectionType":"ALL"}}],
	 "TableFacets":[
	  {"FacetName":"Song","KeyAttributeAlias":{"PartitionKeyAlias":"SongId","SortKeyAlias":"SONG"},"NonKeyAttributes":["Title","Kind","GSI1PK"],
	   "TableData":[{"PK":{"S":"s1"},"SK":{"S":"SONG"},"Title":{"S":"Blue"},"Kind":{"S":"song"},"GSI1PK":{"S":"TITLE#Blue"}},
	                {"PK":{"S":"s2"},"SK":{"S":"SONG"},"Title":{"S":"Red"},"Kind":{"S":"song"},"GSI1PK":{"S":"TITLE#Red"}}]},
	  {"FacetName":"Download","KeyAttributeAlias":{"PartitionKeyAlias":"PK","SortKeyAlias":"DL#<DownloadId>"},"NonKeyAttributes":["Kind"],
	   "TableData":[{"PK":{"S":"s1"},"SK":{"S":"DL#d1"},"Kind":{"S":"download"}},{"PK":{"S":"s2"},"SK":{"S":"DL#d2"},"Kind":{"S":"download"}}]}]}]}`
	d, notes, err := ImportWorkbench("music.json", []byte(model), "")
	if err != nil {
		t.Fatal(err)
	}
	song, dl := d.Entity("Song"), d.Entity("Download")
	switch {
	case song.Key("GSI1PK") == nil || song.Key("GSI1PK").Template.Text != "TITLE#<Title>":
		t.Errorf("Song's GSI1PK (notes %v)", notes)
	case dl.Key("GSI1PK") != nil:
		t.Errorf("Download got another facet's GSI1PK: %s", dl.Key("GSI1PK").Template.Text)
	case dl.Key("PK").Template.Text != "<PK>" || song.Key("PK").Template.Text != "<SongId>":
		t.Errorf("aliases: %s, %s", song.Key("PK").Template.Text, dl.Key("PK").Template.Text)
	case song.Discriminator != "Kind" || song.DiscriminatorValue != "song" || dl.DiscriminatorValue != "download":
		t.Errorf("discriminator: %s=%s, %s=%s (notes %v)", song.Discriminator, song.DiscriminatorValue, dl.Discriminator, dl.DiscriminatorValue, notes)
	}
}

// TestImportOneTable_Unique: a unique property becomes a guard entity
// keyed as OneTable writes it (_unique#Model#attr#value, sort key
// _unique#), put in one transaction with the model's item; what the
// import leaves out (map, validate, a nested schema, a unique scope, a
// field OneTable does not define) and adds (params.timestamps) is in
// the notes.
func TestImportOneTable_Unique(t *testing.T) {
	raw, err := os.ReadFile("testdata/onetable/crm.json")
	if err != nil {
		t.Fatal(err)
	}
	d, notes, err := ImportOneTable("crm.json", raw, "crm")
	if err != nil {
		t.Fatal(err)
	}
	g := d.Entity("UserEmailUnique")
	if g == nil || g.Key("pk").Template.Text != "_unique#User#email#<email>" || g.Key("sk").Template.Text != "_unique#" || g.DiscriminatorValue != "_Unique" {
		t.Fatalf("the email guard: %+v", g)
	}
	if d.Entity("UserPhoneUnique") == nil || d.Entity("AccountNameUnique") != nil {
		t.Errorf("guards: want one per unique property")
	}
	// OneTable's create is one TransactWriteItems of the item and its
	// guards, each put only when absent.
	var puts []string
	for _, p := range d.Patterns {
		if p.ID == "create-user" && p.Operation == design.TransactWriteItems {
			for _, a := range p.Actions {
				if a.Kind == design.ActionPut && a.Condition == design.NotExists {
					puts = append(puts, a.Entity)
				}
			}
		}
	}
	if !slices.Equal(puts, []string{"User", "UserEmailUnique", "UserPhoneUnique"}) {
		t.Errorf("the transaction's guarded puts: %v", puts)
	}
	if d.Entity("User").Attribute("updated") == nil || d.Entity("User").Attribute("updated").Type != "timestamp" {
		t.Errorf("params.timestamps: no updated attribute")
	}
	joined := strings.Join(notes, "\n")
	for _, want := range []string{
		"model User, name: stored as attribute nm (map)",
		"model User, name: validate left out",
		"model User, address: its nested schema is left out",
		`model User, unique phone: scope "${accountId}" is not in the guard's key`,
		"queries: not a OneTable schema field: left out",
		"model User: updated added (params.timestamps",
		"model User: unique properties as guard entities (UserEmailUnique, UserPhoneUnique), put in one TransactWriteItems with the item (pattern create-user)",
	} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes do not say %q:\n%s", want, joined)
		}
	}
}

// TestImportWorkbench_Dropped: the tables of a model not imported, and
// its DataAccess settings, are said in the notes.
func TestImportWorkbench_Dropped(t *testing.T) {
	const model = `{"DataModel":[
	{"TableName":"a","KeyAttributes":{"PartitionKey":{"AttributeName":"PK","AttributeType":"S"}},"TableFacets":[{"FacetName":"A","KeyAttributeAlias":{"PartitionKeyAlias":"A#<id>"},"NonKeyAttributes":["id"]}],"DataAccess":{"MySql":{}}},
	{"TableName":"b","KeyAttributes":{"PartitionKey":{"AttributeName":"PK","AttributeType":"S"}},"TableFacets":[{"FacetName":"B","KeyAttributeAlias":{"PartitionKeyAlias":"B"}}]}]}`
	_, notes, err := ImportWorkbench("m.json", []byte(model), "a")
	if err != nil {
		t.Fatal(err)
	}
	joined := strings.Join(notes, "\n")
	for _, want := range []string{"table b: not imported (a design is one table; --table b imports it)", "DataAccess (Workbench's connection settings) left out"} {
		if !strings.Contains(joined, want) {
			t.Errorf("notes do not say %q:\n%s", want, joined)
		}
	}
}
