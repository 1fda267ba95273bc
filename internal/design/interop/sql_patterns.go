package interop

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/design"
	"github.com/dynago/dynago/internal/sqlschema"
)

// sqlRead is a draft read: where it reads and its key condition.
type sqlRead struct {
	index, op string
	conds     []string
	returns   string
}

// route finds how a read of se with eq bound by = and rng (nil for none)
// is answered: a GetItem of its table key when eq builds it, its item
// collection when eq is its parent's foreign key, a unique index's
// guard, else a GSI keyed on eq (made when none is, sorted by the range
// column or sortHint). No eq at all is a Scan.
func (im *sqlImport) route(se *sqlEntity, eq []string, rng *sqlschema.Range, sortHint string) sqlRead {
	for i, c := range eq {
		eq[i] = se.col(c)
	}
	if rng != nil {
		rng.Column = se.col(rng.Column)
	}
	pkT, skT := se.e.Key("PK").Template, se.e.Key("SK").Template
	vars := slices.Concat(pkT.Vars(), skT.Vars())
	if rng == nil && len(eq) > 0 && !slices.ContainsFunc(vars, func(v string) bool { return !containsFold(eq, v) }) {
		return sqlRead{op: "GetItem", conds: []string{"PK = " + pkT.Text, "SK = " + skT.Text}, returns: se.e.Name}
	}
	if se.parent != nil && equalSets(eq, se.parent.Columns) && (rng == nil || strings.EqualFold(rng.Column, se.sort)) {
		r := sqlRead{op: "Query", conds: []string{"PK = " + pkT.Text}, returns: se.e.Name}
		if rng == nil {
			r.conds = append(r.conds, "SK begins_with "+se.prefix+"#")
		} else {
			r.conds = append(r.conds, rangeCond("SK", se.prefix+"#<"+rng.Column+">", rng))
		}
		return r
	}
	if rng == nil {
		for _, g := range se.guards {
			if equalSets(eq, g.cols) {
				t := g.e.Key("PK").Template.Text
				return sqlRead{op: "GetItem", conds: []string{"PK = " + t, "SK = " + t}, returns: g.e.Name}
			}
		}
	}
	if len(eq) == 0 {
		return sqlRead{op: "Scan", returns: se.e.Name}
	}
	var r *sqlRoute
	for _, x := range se.gsis {
		if equalSets(eq, x.eq) {
			r = x
		}
	}
	if sort := sortHint; r != nil && r.sort == "" && (rng != nil || sort != "") {
		// The GSI's sort key was the entity's own key, which no read
		// ranges on: sort it by this read's column instead.
		if rng != nil {
			sort = rng.Column
		}
		r.sort = sort
		se.e.Key(fmt.Sprintf("GSI%dSK", r.n)).Template = key("", "<"+sort+">").Template
	}
	if r == nil {
		r = &sqlRoute{n: len(se.gsis) + 1, eq: slices.Clone(eq), sort: sortHint}
		if rng != nil {
			r.sort = rng.Column
		}
		se.gsis = append(se.gsis, r)
		im.gsis = max(im.gsis, r.n)
		se.e.Keys = append(se.e.Keys, key(fmt.Sprintf("GSI%dPK", r.n), gsiPK(se, r.eq)))
		sk := se.prefix + "#" + varsOf(se.pk)
		if r.sort != "" {
			sk = "<" + r.sort + ">"
		}
		se.e.Keys = append(se.e.Keys, key(fmt.Sprintf("GSI%dSK", r.n), sk))
	}
	out := sqlRead{index: fmt.Sprintf("GSI%d", r.n), op: "Query", conds: []string{fmt.Sprintf("GSI%dPK = %s", r.n, gsiPK(se, r.eq))}, returns: se.e.Name}
	if rng != nil && strings.EqualFold(rng.Column, r.sort) {
		out.conds = append(out.conds, rangeCond(fmt.Sprintf("GSI%dSK", r.n), "<"+r.sort+">", rng))
	} else if rng != nil {
		im.notef("a read of %s by %s ranges on %s, but GSI%d sorts %s by %s: the range is left out of the pattern", se.e.Name, strings.Join(eq, ", "), rng.Column, r.n, se.e.Name, cmp.Or(r.sort, "its key"))
	}
	return out
}

// gsiPK is the GSI partition key template for a read of se by cols:
// ORDER_STATUS#<status>.
func gsiPK(se *sqlEntity, cols []string) string {
	name := se.prefix
	if !equalSets(cols, se.pk) {
		for _, c := range cols {
			name += "_" + strings.ToUpper(c)
		}
	}
	return name + "#" + varsOf(cols)
}

// rangeCond writes a range on attr whose template is tpl: begins_with,
// between (bounds <from_col> and <to_col>) or a comparison.
func rangeCond(attr, tpl string, rng *sqlschema.Range) string {
	switch rng.Op {
	case "begins_with":
		return attr + " begins_with " + tpl
	case "between":
		v := "<" + rng.Column + ">"
		return attr + " between " + strings.Replace(tpl, v, "<from_"+rng.Column+">", 1) + " and " + strings.Replace(tpl, v, "<to_"+rng.Column+">", 1)
	}
	return attr + " " + rng.Op + " " + tpl
}

// addRead adds a draft read pattern, or, when one with the same key
// condition exists, gives it desc (a query's words are the better
// evidence) and the order and page size.
func (im *sqlImport) addRead(id, desc string, r sqlRead, desc2 bool, pageSize int) {
	kc := strings.Join(r.conds, " AND ")
	for _, p := range im.d.Patterns {
		if p.Kind == "read" && p.Index == r.index && p.KeyCondition == kc && slices.Equal(p.Returns, []string{r.returns}) && cmp.Or(p.Operation, "Query") == r.op {
			p.Description = desc
			if desc2 {
				p.Order = "descending"
			}
			p.PageSize = max(p.PageSize, pageSize)
			return
		}
	}
	p := &design.Pattern{ID: im.uniqueID(id), Description: desc, Kind: "read", Operation: r.op, Index: r.index, KeyCondition: kc, Returns: []string{r.returns}, PageSize: pageSize}
	if desc2 {
		p.Order = "descending"
	}
	if r.op == "Query" {
		p.Operation = ""
	}
	conds, err := design.ParseKeyCondition(kc)
	if err != nil && r.op != "Scan" {
		im.notef("pattern %s: %s does not parse (%v): left out", p.ID, kc, err)
		return
	}
	p.Conditions = conds
	im.d.Patterns = append(im.d.Patterns, p)
}

// uniqueID is id, or id-2, id-3... when a pattern has it.
func (im *sqlImport) uniqueID(id string) string {
	taken := func(s string) bool {
		return slices.ContainsFunc(im.d.Patterns, func(p *design.Pattern) bool { return p.ID == s })
	}
	out := id
	for i := 2; taken(out); i++ {
		out = fmt.Sprintf("%s-%d", id, i)
	}
	return out
}

// kebab is OrderItem as order-item, and a column user_id as user-id.
func kebab(s string) string {
	return strings.ReplaceAll(snake(strings.ReplaceAll(s, "_", "")), "_", "-")
}

// colsKebab is columns user_id and order_date as user-id-and-order-date.
func colsKebab(cols []string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = strings.ToLower(strings.ReplaceAll(c, "_", "-"))
	}
	return strings.Join(parts, "-and-")
}

// keyPatterns drafts the reads a schema implies: each table by its
// primary key, each item collection, each unique index's guard and each
// other index.
func (im *sqlImport) keyPatterns() {
	for _, se := range im.ents {
		for _, ix := range im.schema.Indexes {
			if ix.Unique && strings.EqualFold(ix.Table, se.t.Name) && !equalSets(ix.Columns, se.pk) {
				im.guard(se, ix)
			}
		}
	}
	for _, se := range im.ents {
		im.addRead("get-"+kebab(se.e.Name), fmt.Sprintf("%s by its primary key (%s)", article(se.e.Name), strings.Join(se.pk, ", ")), im.route(se, slices.Clone(se.pk), nil, ""), false, 0)
		if se.parent != nil {
			parent := im.byTable[strings.ToLower(se.parent.RefTable)]
			desc := fmt.Sprintf("the %s items of %s: FOREIGN KEY (%s) REFERENCES %s", se.e.Name, article(parent.e.Name), strings.Join(se.parent.Columns, ", "), se.parent.RefTable)
			im.addRead(kebab(se.e.Name)+"s-of-"+kebab(parent.e.Name), desc, im.route(se, slices.Clone(se.parent.Columns), nil, ""), false, 0)
		}
		for _, g := range se.guards {
			tpl := g.e.Key("PK").Template.Text
			im.addRead(kebab(se.e.Name)+"-by-"+colsKebab(g.cols), fmt.Sprintf("UNIQUE (%s) of %s: the guard item holds %s's key (%s); a GetItem of %s follows", strings.Join(g.cols, ", "), se.t.Name, se.e.Name, strings.Join(se.pk, ", "), se.e.Name),
				sqlRead{op: "GetItem", conds: []string{"PK = " + tpl, "SK = " + tpl}, returns: g.e.Name}, false, 0)
		}
	}
	for _, ix := range im.schema.Indexes {
		se := im.byTable[strings.ToLower(ix.Table)]
		if se == nil {
			im.notef("%s:%s: index %s is on %s, which the file does not create", im.file, ix.Pos, ix.Name, ix.Table)
			continue
		}
		if ix.Unique || equalSets(ix.Columns, se.pk) {
			continue
		}
		eq, hint := ix.Columns, ""
		if len(eq) > 1 {
			eq, hint = ix.Columns[:len(ix.Columns)-1], se.col(ix.Columns[len(ix.Columns)-1])
		}
		desc := fmt.Sprintf("index %s (%s)", cmp.Or(ix.Name, "on "+ix.Table), strings.Join(ix.Columns, ", "))
		im.addRead(kebab(se.e.Name)+"s-by-"+colsKebab(eq), desc, im.route(se, slices.Clone(eq), nil, hint), false, 0)
	}
}

// guard makes the guard entity of unique index ix of se: its item holds
// the unique value as its key, and the owner's key to read it by.
func (im *sqlImport) guard(se *sqlEntity, ix *sqlschema.Index) {
	cols := make([]string, len(ix.Columns))
	name, pfx := se.e.Name, se.prefix
	for i, c := range ix.Columns {
		cols[i] = se.col(c)
		name += camel(cols[i])
		pfx += "_" + strings.ToUpper(cols[i])
	}
	name += "Guard"
	for im.d.Entity(name) != nil {
		name += "2"
	}
	g := &sqlGuard{cols: cols, pfx: pfx, e: &design.Entity{Name: name, Discriminator: se.e.Discriminator, DiscriminatorValue: pfx}}
	for _, c := range slices.Concat(cols, se.pk) {
		if g.e.Attribute(se.col(c)) == nil {
			a := *se.e.Attribute(se.col(c))
			a.Optional = false
			g.e.Attributes = append(g.e.Attributes, &a)
		}
	}
	tpl := pfx + "#" + varsOf(cols)
	g.e.Keys = append(g.e.Keys, key("PK", tpl), key("SK", tpl))
	se.guards = append(se.guards, g)
	im.d.Entities = append(im.d.Entities, g.e)
}

// query drafts the read pattern of one SELECT of the query log.
func (im *sqlImport) query(file string, q *sqlschema.Query) {
	se := im.byTable[strings.ToLower(q.Table)]
	if se == nil {
		im.notef("%s:%s: query not read: %s: no table %s in the schema", file, q.Pos, q.Text, q.Table)
		return
	}
	hint := ""
	if q.OrderBy != "" {
		hint = se.col(q.OrderBy)
	}
	r := im.route(se, slices.Clone(q.Eq), q.Range, hint)
	if r.op == "Scan" {
		im.notef("%s:%s: %s binds no column with =: a Scan (dynago design check says what to key it on)", file, q.Pos, q.Text)
	}
	if q.OrderBy != "" && r.op == "Query" {
		sk := "SK"
		if r.index != "" {
			sk = r.index + "SK"
		}
		if vars := se.e.Key(sk).Template.Vars(); len(vars) == 0 || !strings.EqualFold(vars[0], hint) {
			im.notef("%s:%s: %s: ORDER BY %s, but %s sorts %s by %s", file, q.Pos, q.Text, q.OrderBy, sk, se.e.Name, se.e.Key(sk).Template.Text)
		}
	}
	id := kebab(se.e.Name) + "s-by-" + colsKebab(q.Eq)
	if len(q.Eq) == 0 {
		id = "all-" + kebab(se.e.Name) + "s"
	}
	im.addRead(id, fmt.Sprintf("query log %s:%d: %s", file, q.Pos.Line, q.Text), r, q.Desc, q.Limit)
}

// writes drafts a PutItem per entity; an entity with guards is put in
// one TransactWriteItems with them, each put with attribute_not_exists,
// so that a second row with the same unique values fails whole.
func (im *sqlImport) writes() {
	for _, se := range im.ents {
		if len(se.guards) == 0 {
			im.d.Patterns = append(im.d.Patterns, &design.Pattern{ID: im.uniqueID("put-" + kebab(se.e.Name)), Kind: "write", Operation: "PutItem", Entity: se.e.Name, Description: "INSERT INTO " + se.t.Name})
			continue
		}
		put := &design.Pattern{ID: im.uniqueID("put-" + kebab(se.e.Name)), Kind: "write", Operation: design.TransactWriteItems,
			Actions: []*design.Action{{Kind: design.ActionPut, Entity: se.e.Name, Condition: design.NotExists, Count: 1}}}
		var unique []string
		for _, g := range se.guards {
			put.Actions = append(put.Actions, &design.Action{Kind: design.ActionPut, Entity: g.e.Name, Condition: design.NotExists, Count: 1})
			unique = append(unique, strings.Join(g.cols, ", "))
		}
		put.Description = fmt.Sprintf("INSERT INTO %s, in one TransactWriteItems with its guards (attribute_not_exists): %s stays unique", se.t.Name, strings.Join(unique, "; "))
		im.d.Patterns = append(im.d.Patterns, put)
	}
}

// tableIndexes declares the GSIs the routes use.
func (im *sqlImport) tableIndexes() {
	for n := 1; n <= im.gsis; n++ {
		im.d.Table.Indexes = append(im.d.Table.Indexes, &design.Index{Name: fmt.Sprintf("GSI%d", n), Projection: "ALL",
			PartitionKey: []design.KeyAttr{{Name: fmt.Sprintf("GSI%dPK", n), Type: "S"}}, SortKey: []design.KeyAttr{{Name: fmt.Sprintf("GSI%dSK", n), Type: "S"}}})
	}
}

// article is "a User" or "an Order".
func article(name string) string {
	if name != "" && strings.ContainsRune("AEIOaeio", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// camel is user_id as UserId, SKU as Sku.
func camel(col string) string {
	var b strings.Builder
	for _, w := range strings.FieldsFunc(col, func(r rune) bool { return r == '_' || r == '-' || r == ' ' }) {
		b.WriteString(strings.ToUpper(w[:1]) + strings.ToLower(w[1:]))
	}
	return b.String()
}
