package interop

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/sqlschema"
)

// ImportSQL drafts a single-table design from a relational schema (a
// PostgreSQL or MySQL DDL file) and, when queries is not nil, the
// SELECTs of a query log: seed 002's migration ("audit your queries",
// then one table keyed PK and SK), done once so that dynago design check
// can critique the result. The draft, for table table ("app" when ""):
//
//   - each SQL table is an entity (orders: Order) with its columns as
//     attributes (types mapped: integers and decimals N, timestamps
//     timestamp, booleans BOOL, json M, arrays L, blobs B, the rest S;
//     NOT NULL or not optional; enum values kept), discriminated by
//     EntityType;
//   - a foreign key makes the child an item collection under its parent:
//     PK = PARENT#<fk>, SK = CHILD#<the rest of its key> (with the second
//     column of an index on the foreign key first, ORDER#<order_date>#
//     <order_id>, so that the collection sorts by it); a root table is
//     PK = SK = TABLE#<id>. One foreign key a table is its parent: the
//     one in its primary key, else the first NOT NULL one;
//   - a UNIQUE constraint or index is a guard entity (UserEmailGuard,
//     PK = SK = USER_EMAIL#<email>) with a GetItem and a PutItem in a
//     transaction beside the owner's;
//   - the primary key, each foreign key made a collection, each index and
//     each query is a draft read pattern on the table when the table's
//     keys answer it, else on a GSI (GSI1, GSI2, ... overloaded by the
//     entities: GSI<n>PK = TABLE_COL#<col>, GSI<n>SK = <sort column>);
//     each entity gets a PutItem.
//
// Notes say what was not read or had to be chosen: statements and
// queries skipped (with their positions), tables without a primary key,
// foreign keys not made collections, types read as S.
func ImportSQL(file string, raw []byte, table, queriesFile string, queries []byte) (*design.Design, []string, error) {
	schema, err := sqlschema.Parse(string(raw))
	if err != nil {
		return nil, nil, fmt.Errorf("%s:%w", file, err)
	}
	im := &sqlImport{schema: schema, file: file, byTable: map[string]*sqlEntity{}, renamed: map[string]map[string]string{}}
	for _, s := range schema.Skipped {
		im.notef("%s:%s: %s: %s", file, s.Pos, s.What, s.Reason)
	}
	im.renameColumns()
	if len(schema.Tables) == 0 {
		return nil, im.notes, fmt.Errorf("%s: no CREATE TABLE statement to read", file)
	}
	im.d = &design.Design{File: file, Table: design.Table{
		Name: cmp.Or(table, "app"), BillingMode: "PAY_PER_REQUEST",
		PartitionKey: []design.KeyAttr{{Name: "PK", Type: "S"}}, SortKey: []design.KeyAttr{{Name: "SK", Type: "S"}},
	}}
	if err := im.entities(); err != nil {
		return nil, im.notes, err
	}
	im.keyPatterns()
	if queries != nil {
		qs, skipped, err := sqlschema.ParseQueries(string(queries))
		if err != nil {
			return nil, im.notes, fmt.Errorf("%s:%w", queriesFile, err)
		}
		for _, s := range skipped {
			im.notef("%s:%s: query not read: %s: %s", queriesFile, s.Pos, s.What, s.Reason)
		}
		for _, q := range qs {
			im.query(queriesFile, q)
		}
	}
	im.writes()
	im.tableIndexes()
	for _, e := range im.d.Entities {
		if err := checkTemplates(e); err != nil {
			return nil, im.notes, fmt.Errorf("%s: %v", file, err)
		}
	}
	return im.d, im.notes, nil
}

// sqlImport is one ImportSQL run.
type sqlImport struct {
	schema  *sqlschema.Schema
	file    string
	d       *design.Design
	ents    []*sqlEntity
	byTable map[string]*sqlEntity // by lower-case table name
	gsis    int                   // GSIs the entities use
	// renamed maps a table's (lower-case) column names that a key
	// template cannot hold to the attribute names they became.
	renamed map[string]map[string]string
	notes   []string
}

// attrName is a column name as an attribute name a key template can
// hold: letters, digits, '_', '-' and '.', the rest '_'.
func attrName(col string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, col)
}

// renameColumns renames, everywhere the schema names them, the columns
// whose names a key template cannot hold ("first name" is first_name).
func (im *sqlImport) renameColumns() {
	fix := func(table string, cols []string) {
		for i, c := range cols {
			if n, ok := im.renamed[strings.ToLower(table)][strings.ToLower(c)]; ok {
				cols[i] = n
			}
		}
	}
	for _, t := range im.schema.Tables {
		for _, c := range t.Columns {
			if n := attrName(c.Name); n != c.Name {
				if im.renamed[strings.ToLower(t.Name)] == nil {
					im.renamed[strings.ToLower(t.Name)] = map[string]string{}
				}
				im.renamed[strings.ToLower(t.Name)][strings.ToLower(c.Name)] = n
				im.notef("%s:%s: %s.%s: attribute %s (a key template holds letters, digits, '_', '-' and '.')", im.file, c.Pos, t.Name, c.Name, n)
				c.Name = n
			}
		}
	}
	if len(im.renamed) == 0 {
		return
	}
	for _, t := range im.schema.Tables {
		fix(t.Name, t.PrimaryKey)
		for _, fk := range t.ForeignKeys {
			fix(t.Name, fk.Columns)
			fix(fk.RefTable, fk.RefColumns)
		}
	}
	for _, ix := range im.schema.Indexes {
		fix(ix.Table, ix.Columns)
	}
}

// sqlEntity is a SQL table as an entity.
type sqlEntity struct {
	t      *sqlschema.Table
	e      *design.Entity
	prefix string   // USER, ORDER_ITEM
	pk     []string // the primary key's columns
	parent *sqlschema.ForeignKey
	sort   string // the column the collection sorts by, after the prefix
	gsis   []*sqlRoute
	guards []*sqlGuard
	// renamed is the import's renamed columns of this table.
	renamed map[string]string
}

// sqlRoute is a GSI an entity is read through: GSI<n>PK built from eq,
// GSI<n>SK from sort.
type sqlRoute struct {
	n    int
	eq   []string
	sort string
}

// sqlGuard is a unique index's guard entity.
type sqlGuard struct {
	e    *design.Entity
	cols []string
	pfx  string
}

func (im *sqlImport) notef(format string, args ...any) {
	im.notes = append(im.notes, fmt.Sprintf(format, args...))
}

// entities makes an entity of each table, then its keys (a child's need
// its parent's prefix).
func (im *sqlImport) entities() error {
	names := map[string]bool{}
	for _, t := range im.schema.Tables {
		name := entityName(t.Name)
		for names[name] {
			name += "Table"
		}
		names[name] = true
		se := &sqlEntity{t: t, prefix: strings.ToUpper(snake(name)), pk: t.PrimaryKey, renamed: im.renamed[strings.ToLower(t.Name)]}
		disc := "EntityType"
		if t.Column(disc) != nil {
			disc = "_type"
		}
		se.e = &design.Entity{Name: name, Discriminator: disc, DiscriminatorValue: se.prefix}
		for _, c := range t.Columns {
			se.e.Attributes = append(se.e.Attributes, &design.Attribute{Name: c.Name, Type: im.attrType(t, c), Optional: !c.NotNull, Values: c.Values})
		}
		if len(se.pk) == 0 {
			if len(t.Columns) == 0 {
				return fmt.Errorf("%s:%s: table %s has no columns", im.file, t.Pos, t.Name)
			}
			se.pk = []string{t.Columns[0].Name}
			im.notef("%s:%s: table %s has no primary key: keyed on its first column, %s; choose the column that identifies a row", im.file, t.Pos, t.Name, se.pk[0])
			se.e.Attribute(se.pk[0]).Optional = false
		}
		im.ents = append(im.ents, se)
		im.byTable[strings.ToLower(t.Name)] = se
		im.d.Entities = append(im.d.Entities, se.e)
	}
	for _, se := range im.ents {
		im.chooseParent(se)
	}
	for _, se := range im.ents {
		im.tableKeys(se)
	}
	return nil
}

// chooseParent picks the foreign key that makes se an item collection
// under its parent: one whose columns are in the primary key
// (an identifying relationship: order_items under orders), else the first
// whose columns are NOT NULL. The others are said in notes.
func (im *sqlImport) chooseParent(se *sqlEntity) {
	var cands []*sqlschema.ForeignKey
	for _, fk := range se.t.ForeignKeys {
		parent := im.byTable[strings.ToLower(fk.RefTable)]
		switch {
		case parent == nil:
			im.notef("%s:%s: %s FOREIGN KEY (%s) references %s, which the file does not create: not an item collection", im.file, fk.Pos, se.t.Name, strings.Join(fk.Columns, ", "), fk.RefTable)
		case parent == se:
			im.notef("%s:%s: %s FOREIGN KEY (%s) references its own table: a tree is not one item collection (read it through an index)", im.file, fk.Pos, se.t.Name, strings.Join(fk.Columns, ", "))
		default:
			cands = append(cands, fk)
		}
	}
	inPK := func(fk *sqlschema.ForeignKey) bool {
		return !slices.ContainsFunc(fk.Columns, func(c string) bool { return !containsFold(se.pk, c) })
	}
	notNull := func(fk *sqlschema.ForeignKey) bool {
		return !slices.ContainsFunc(fk.Columns, func(c string) bool { col := se.t.Column(c); return col == nil || !col.NotNull })
	}
	if i := slices.IndexFunc(cands, inPK); i >= 0 {
		se.parent = cands[i]
	} else if i := slices.IndexFunc(cands, notNull); i >= 0 {
		se.parent = cands[i]
	}
	for _, fk := range cands {
		if fk == se.parent {
			continue
		}
		indexed := slices.ContainsFunc(im.schema.Indexes, func(ix *sqlschema.Index) bool {
			return strings.EqualFold(ix.Table, se.t.Name) && len(ix.Columns) >= len(fk.Columns) && equalSets(ix.Columns[:len(fk.Columns)], fk.Columns)
		})
		then := "no index reads by it: add a pattern (--queries, or by hand) if the application does"
		if indexed {
			then = "its index is a GSI pattern"
		}
		im.notef("%s:%s: %s FOREIGN KEY (%s) REFERENCES %s: not an item collection (%s is under %s); %s", im.file, fk.Pos, se.t.Name, strings.Join(fk.Columns, ", "), fk.RefTable, se.e.Name, im.parentName(se), then)
	}
}

func (im *sqlImport) parentName(se *sqlEntity) string {
	if se.parent == nil {
		return "no parent"
	}
	return im.byTable[strings.ToLower(se.parent.RefTable)].e.Name
}

// tableKeys gives se its PK and SK templates.
func (im *sqlImport) tableKeys(se *sqlEntity) {
	own := varsOf(se.pk)
	if se.parent == nil {
		se.e.Keys = append(se.e.Keys, key("PK", se.prefix+"#"+own), key("SK", se.prefix+"#"+own))
		return
	}
	parent := im.byTable[strings.ToLower(se.parent.RefTable)]
	rest := slices.DeleteFunc(slices.Clone(se.pk), func(c string) bool { return containsFold(se.parent.Columns, c) })
	if len(rest) == 0 {
		rest = se.pk
	}
	// An index on the foreign key and one more column sorts the
	// collection by it, when that column is NOT NULL: the sort key is
	// part of every item's primary key, which no item may lack.
	for _, ix := range im.schema.Indexes {
		if !ix.Unique && strings.EqualFold(ix.Table, se.t.Name) && len(ix.Columns) == len(se.parent.Columns)+1 &&
			equalSets(ix.Columns[:len(se.parent.Columns)], se.parent.Columns) && !containsFold(rest, ix.Columns[len(ix.Columns)-1]) {
			col := ix.Columns[len(ix.Columns)-1]
			if c := se.t.Column(col); c == nil || !c.NotNull {
				im.notef("index %s: %s sorts %s's collection, but it may be NULL and a sort key may not be missing: the collection is keyed by %s alone (make %s NOT NULL to sort by it)", ix.Name, col, se.e.Name, strings.Join(rest, ", "), col)
				continue
			}
			se.sort = col
			break
		}
	}
	sk := se.prefix + "#" + varsOf(rest)
	if se.sort != "" {
		sk = se.prefix + "#<" + se.sort + ">#" + varsOf(rest)
	}
	se.e.Keys = append(se.e.Keys, key("PK", parent.prefix+"#"+varsOf(se.parent.Columns)), key("SK", sk))
}

// key is a key built from template text; ParseTemplate keeps the text
// of a template it refuses, for checkTemplates to report.
func key(attr, tpl string) *design.Key {
	t, _ := design.ParseTemplate(tpl)
	return &design.Key{Attr: attr, Template: t}
}

// checkTemplates refuses an entity whose templates do not parse (a
// column name a template cannot hold).
func checkTemplates(e *design.Entity) error {
	for _, k := range e.Keys {
		if _, err := design.ParseTemplate(k.Template.Text); err != nil {
			return fmt.Errorf("entity %s, %s = %s: %v (rename the column)", e.Name, k.Attr, k.Template.Text, err)
		}
	}
	return nil
}

// varsOf is <a>#<b> for columns a and b.
func varsOf(cols []string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = "<" + c + ">"
	}
	return strings.Join(parts, "#")
}

func containsFold(list []string, s string) bool {
	return slices.ContainsFunc(list, func(x string) bool { return strings.EqualFold(x, s) })
}

// equalSets reports whether a and b hold the same names.
func equalSets(a, b []string) bool {
	return len(a) == len(b) && !slices.ContainsFunc(a, func(x string) bool { return !containsFold(b, x) })
}

// entityName is a table name as an entity name: order_items is
// OrderItem, users User.
func entityName(table string) string {
	words := strings.FieldsFunc(table, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	})
	if len(words) == 0 {
		return "Table"
	}
	last := words[len(words)-1]
	switch l := strings.ToLower(last); {
	case strings.HasSuffix(l, "ies") && len(l) > 4:
		last = last[:len(last)-3] + "y"
	case strings.HasSuffix(l, "sses") || strings.HasSuffix(l, "xes") || strings.HasSuffix(l, "ches") || strings.HasSuffix(l, "shes"):
		last = last[:len(last)-2]
	case strings.HasSuffix(l, "s") && !strings.HasSuffix(l, "ss") && !strings.HasSuffix(l, "us") && !strings.HasSuffix(l, "is") && len(l) > 2:
		last = last[:len(last)-1]
	}
	words[len(words)-1] = last
	var b strings.Builder
	for _, w := range words {
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	name := b.String()
	if c := name[0]; !(c >= 'A' && c <= 'Z') {
		name = "T" + name
	}
	return name
}

// snake is OrderItem as ORDER_ITEM's lower-case form, order_item.
func snake(name string) string {
	var b strings.Builder
	for i, r := range name {
		if r >= 'A' && r <= 'Z' && i > 0 {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return strings.ToLower(b.String())
}

// attrType maps a SQL column type to a design attribute type; a type it
// does not know is S, and said.
func (im *sqlImport) attrType(t *sqlschema.Table, c *sqlschema.Column) string {
	typ := c.Type
	if strings.HasSuffix(typ, "[]") {
		return "L"
	}
	first, _, _ := strings.Cut(typ, " ")
	switch first {
	case "int", "integer", "bigint", "smallint", "tinyint", "mediumint", "int2", "int4", "int8", "serial", "bigserial", "smallserial",
		"numeric", "decimal", "real", "double", "float", "float4", "float8", "money", "number", "dec", "fixed":
		return "N"
	case "bool", "boolean", "bit":
		return "BOOL"
	case "timestamp", "timestamptz", "datetime", "date":
		return "timestamp"
	case "bytea", "blob", "binary", "varbinary", "tinyblob", "mediumblob", "longblob":
		return "B"
	case "json", "jsonb":
		return "M"
	case "set":
		return "SS"
	case "text", "varchar", "char", "character", "nchar", "nvarchar", "uuid", "enum", "citext", "tinytext", "mediumtext", "longtext",
		"time", "timetz", "interval", "inet", "cidr", "macaddr", "xml", "string", "year":
		return "S"
	}
	if c.Values == nil {
		im.notef("%s:%s: %s.%s: type %s read as S", im.file, c.Pos, t.Name, c.Name, typ)
	}
	return "S"
}

// col is the column of se's table named name, as the table spells it
// (renamed when a key template could not hold it).
func (se *sqlEntity) col(name string) string {
	if n, ok := se.renamed[strings.ToLower(name)]; ok {
		return n
	}
	if c := se.t.Column(name); c != nil {
		return c.Name
	}
	return name
}
