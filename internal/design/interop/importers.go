package interop

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/dynago/dynago/internal/design"
)

// Imports from other single-table modelling tools' files, read leniently
// (unknown fields are ignored):
//
//   - OneTable schemas (https://doc.onetable.io/api/modeler/ "Schema"): indexes
//     (primary, GSIs, LSIs with type: local, project), models whose key
//     properties carry value templates in ${var} notation, and typeField
//     (default _type) holding the model name, which becomes the
//     discriminator;
//   - the awslabs DynamoDB MCP server's schema.json
//     (https://github.com/awslabs/mcp, src/dynamodb-mcp-server:
//     tables[].table_config, gsi_list, entities with pk_template /
//     sk_template / gsi_mappings in {var} notation, fields and
//     access_patterns), whose access patterns become the design's.

// varNotation matches ${var} (OneTable) and {var} (MCP) template variables.
var varNotation = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$?\{([A-Za-z_][A-Za-z0-9_.\-]*)\}`) })

// convertTemplate rewrites a ${var} or {var} template in the seeds' <var>
// notation.
func convertTemplate(s string) (design.Template, error) {
	if strings.ContainsAny(s, "<>") {
		return design.Template{}, fmt.Errorf("template %q has < or >, which design templates keep for variables", s)
	}
	converted := varNotation().ReplaceAllString(s, "<$1>")
	if strings.ContainsAny(converted, "{}") {
		return design.Template{}, fmt.Errorf("template %q has a { or } that is not a {variable}", s)
	}
	return design.ParseTemplate(converted)
}

// decodeLenient decodes JSON into v, ignoring unknown fields.
func decodeLenient(file string, raw []byte, what string, v any) error {
	if err := json.NewDecoder(bytes.NewReader(raw)).Decode(v); err != nil {
		return fmt.Errorf("%s: not %s: %v", file, what, err)
	}
	return nil
}

// oneTableSchema is the part of a OneTable schema dynago reads.
type oneTableSchema struct {
	Format  string
	Indexes map[string]struct {
		Hash, Sort, Type string
		Project          json.RawMessage
	}
	Models map[string]map[string]oneTableProperty
	Params struct {
		TypeField, CreatedField, UpdatedField string
		Timestamps                            any
	}
}

// oneTableType maps a OneTable property type to a design attribute type.
func oneTableType(t any) string {
	s, _ := t.(string)
	switch strings.ToLower(s) {
	case "number":
		return "N"
	case "boolean":
		return "BOOL"
	case "binary", "buffer", "arraybuffer":
		return "B"
	case "object":
		return "M"
	case "array":
		return "L"
	case "set":
		return "SS"
	case "date":
		return "timestamp"
	}
	return "S"
}

// ImportOneTable reads a OneTable schema (JSON) into a design of table
// table. Notes say what the import could not carry.
func ImportOneTable(file string, raw []byte, table string) (*design.Design, []string, error) {
	var s oneTableSchema
	if err := decodeLenient(file, raw, "a OneTable schema", &s); err != nil {
		return nil, nil, err
	}
	primary, ok := s.Indexes["primary"]
	if !ok || primary.Hash == "" {
		return nil, nil, fmt.Errorf("%s: the schema has no primary index (indexes: {primary: {hash: ..., sort: ...}})", file)
	}
	if len(s.Models) == 0 {
		return nil, nil, fmt.Errorf("%s: the schema has no models", file)
	}
	var notes []string
	if s.Format != "" && !strings.HasPrefix(s.Format, "onetable:") {
		notes = append(notes, fmt.Sprintf("format %q: read as a OneTable schema", s.Format))
	}
	d := &design.Design{File: file, Table: design.Table{Name: cmp.Or(table, "onetable"), BillingMode: "PAY_PER_REQUEST"}}
	keyType := func(name string) string {
		for _, m := range s.Models {
			if p, ok := m[name]; ok {
				if t := oneTableType(p.Type); t == "N" || t == "B" {
					return t
				}
			}
		}
		return "S"
	}
	d.Table.PartitionKey = []design.KeyAttr{{Name: primary.Hash, Type: keyType(primary.Hash)}}
	if primary.Sort != "" {
		d.Table.SortKey = []design.KeyAttr{{Name: primary.Sort, Type: keyType(primary.Sort)}}
	}
	for _, name := range slices.Sorted(maps.Keys(s.Indexes)) {
		if name == "primary" {
			continue
		}
		x := s.Indexes[name]
		ix := &design.Index{Name: name, Local: x.Type == "local", Projection: "ALL"}
		if !ix.Local {
			if x.Hash == "" {
				return nil, notes, fmt.Errorf("%s: index %s has no hash key", file, name)
			}
			ix.PartitionKey = []design.KeyAttr{{Name: x.Hash, Type: keyType(x.Hash)}}
		}
		if x.Sort != "" {
			ix.SortKey = []design.KeyAttr{{Name: x.Sort, Type: keyType(x.Sort)}}
		}
		var proj any
		if len(x.Project) > 0 && json.Unmarshal(x.Project, &proj) == nil {
			switch p := proj.(type) {
			case string:
				if p == "keys" {
					ix.Projection = "KEYS_ONLY"
				}
			case []any:
				ix.Projection = "INCLUDE"
				for _, a := range p {
					if n, ok := a.(string); ok {
						ix.Include = append(ix.Include, n)
					}
				}
			}
		}
		d.Table.Indexes = append(d.Table.Indexes, ix)
	}
	keyNames := map[string]bool{}
	for _, k := range d.AttributeDefinitions() {
		keyNames[k.Name] = true
	}
	typeField := cmp.Or(s.Params.TypeField, "_type")
	for _, name := range slices.Sorted(maps.Keys(s.Models)) {
		m := s.Models[name]
		e := &design.Entity{Name: name, Discriminator: typeField, DiscriminatorValue: name}
		for _, prop := range slices.Sorted(maps.Keys(m)) {
			p := m[prop]
			switch {
			case prop == typeField:
			case keyNames[prop] && p.Value != "":
				t, err := convertTemplate(p.Value)
				if err != nil {
					return nil, notes, fmt.Errorf("%s: model %s, %s: %v", file, name, prop, err)
				}
				e.Keys = append(e.Keys, &design.Key{Attr: prop, Template: t})
			case keyNames[prop]:
				// A key attribute without a template holds its own value.
				e.Attributes = append(e.Attributes, &design.Attribute{Name: prop, Type: oneTableType(p.Type), Optional: !p.Required && !d.IsTableKey(prop)})
			default:
				// A property with a default is always written.
				e.Attributes = append(e.Attributes, &design.Attribute{Name: prop, Type: oneTableType(p.Type), Optional: !p.Required && p.Default == nil, Values: p.Enum})
			}
		}
		addTemplateVars(d, e, func(v string) string { return "S" })
		d.Entities = append(d.Entities, e)
		notes = append(notes, oneTableTimestamps(e, s.Params.Timestamps, s.Params.CreatedField, s.Params.UpdatedField)...)
	}
	guardNotes, err := oneTableUnique(d, s, typeField)
	if err != nil {
		return nil, notes, fmt.Errorf("%s: %v", file, err)
	}
	notes = append(notes, guardNotes...)
	notes = append(notes, oneTableDropped(raw)...)
	notes = append(notes, "OneTable schemas hold no access patterns: list them under patterns")
	return d, notes, nil
}

// addTemplateVars declares every key template variable the entity does
// not have as an attribute, of type typ(v), and makes the variables of
// its table key templates required: an item always has its table key
// (OneTable generates an id it leaves optional).
func addTemplateVars(d *design.Design, e *design.Entity, typ func(string) string) {
	for _, k := range e.Keys {
		for _, v := range k.Template.Vars() {
			a := e.Attribute(v)
			if a == nil {
				a = &design.Attribute{Name: v, Type: typ(v)}
				e.Attributes = append(e.Attributes, a)
			}
			if d.IsTableKey(k.Attr) {
				a.Optional = false
			}
		}
	}
}

// mcpSchema is the part of the MCP server's schema.json dynago reads.
type mcpSchema struct {
	Tables []struct {
		TableConfig struct {
			TableName    string          `json:"table_name"`
			PartitionKey json.RawMessage `json:"partition_key"`
			SortKey      json.RawMessage `json:"sort_key"`
		} `json:"table_config"`
		GSIList []struct {
			Name         string          `json:"name"`
			PartitionKey json.RawMessage `json:"partition_key"`
			SortKey      json.RawMessage `json:"sort_key"`
		} `json:"gsi_list"`
		Entities map[string]struct {
			EntityType  string          `json:"entity_type"`
			PKTemplate  json.RawMessage `json:"pk_template"`
			SKTemplate  json.RawMessage `json:"sk_template"`
			GSIMappings []struct {
				Name       string          `json:"name"`
				PKTemplate json.RawMessage `json:"pk_template"`
				SKTemplate json.RawMessage `json:"sk_template"`
			} `json:"gsi_mappings"`
			Fields []struct {
				Name     string `json:"name"`
				Type     string `json:"type"`
				Required bool   `json:"required"`
			} `json:"fields"`
			AccessPatterns []mcpAccessPattern `json:"access_patterns"`
		} `json:"entities"`
	} `json:"tables"`
}

// stringOrList reads a JSON string or list of strings (the MCP schema's
// single or multi-attribute keys).
func stringOrList(raw json.RawMessage) []string {
	if len(raw) == 0 {
		return nil
	}
	var one string
	if json.Unmarshal(raw, &one) == nil {
		if one == "" {
			return nil
		}
		return []string{one}
	}
	var many []string
	json.Unmarshal(raw, &many)
	return many
}

func mcpType(t string) string {
	switch t {
	case "integer", "decimal", "number":
		return "N"
	case "boolean":
		return "BOOL"
	case "object":
		return "M"
	case "array":
		return "L"
	case "binary":
		return "B"
	}
	return "S"
}

// ImportMCP reads the DynamoDB MCP server's schema.json into a design of
// its table named table ("" when it has one).
func ImportMCP(file string, raw []byte, table string) (*design.Design, []string, error) {
	var s mcpSchema
	if err := decodeLenient(file, raw, "a DynamoDB MCP schema.json", &s); err != nil {
		return nil, nil, err
	}
	var names []string
	idx := -1
	for i, t := range s.Tables {
		names = append(names, t.TableConfig.TableName)
		if t.TableConfig.TableName == table || (table == "" && len(s.Tables) == 1) {
			idx = i
		}
	}
	switch {
	case len(s.Tables) == 0:
		return nil, nil, fmt.Errorf("%s: the schema has no tables", file)
	case idx < 0 && table == "":
		return nil, nil, fmt.Errorf("%s: the schema has %d tables (%s): choose one with --table", file, len(names), strings.Join(names, ", "))
	case idx < 0:
		return nil, nil, fmt.Errorf("%s: no table %q in the schema (%s)", file, table, strings.Join(names, ", "))
	}
	t := s.Tables[idx]
	pk := stringOrList(t.TableConfig.PartitionKey)
	if len(pk) != 1 {
		return nil, nil, fmt.Errorf("%s: table %s needs one partition_key attribute", file, t.TableConfig.TableName)
	}
	var notes []string
	d := &design.Design{File: file, Table: design.Table{Name: t.TableConfig.TableName, BillingMode: "PAY_PER_REQUEST", PartitionKey: []design.KeyAttr{{Name: pk[0], Type: "S"}}}}
	if sk := stringOrList(t.TableConfig.SortKey); len(sk) == 1 {
		d.Table.SortKey = []design.KeyAttr{{Name: sk[0], Type: "S"}}
	}
	for _, g := range t.GSIList {
		ix := &design.Index{Name: g.Name, Projection: "ALL"}
		for _, n := range stringOrList(g.PartitionKey) {
			ix.PartitionKey = append(ix.PartitionKey, design.KeyAttr{Name: n, Type: "S"})
		}
		for _, n := range stringOrList(g.SortKey) {
			ix.SortKey = append(ix.SortKey, design.KeyAttr{Name: n, Type: "S"})
		}
		if len(ix.PartitionKey) == 0 {
			return nil, nil, fmt.Errorf("%s: GSI %s has no partition_key", file, g.Name)
		}
		d.Table.Indexes = append(d.Table.Indexes, ix)
	}
	for _, name := range slices.Sorted(maps.Keys(t.Entities)) {
		me := t.Entities[name]
		e := &design.Entity{Name: name}
		for _, f := range me.Fields {
			if !slices.Contains([]string{"string", "integer", "decimal", "number", "boolean", "object", "array", "binary"}, f.Type) {
				notes = append(notes, fmt.Sprintf("entity %s, field %s: type %q read as string", name, f.Name, f.Type))
			}
			e.Attributes = append(e.Attributes, &design.Attribute{Name: f.Name, Type: mcpType(f.Type), Optional: !f.Required})
		}
		addKey := func(attrs []design.KeyAttr, raw json.RawMessage, where string) error {
			tpls := stringOrList(raw)
			if len(tpls) > len(attrs) {
				return fmt.Errorf("%s: entity %s: %s has %d templates for %d key attributes", file, name, where, len(tpls), len(attrs))
			}
			for i, s := range tpls {
				tpl, err := convertTemplate(s)
				if err != nil {
					return fmt.Errorf("%s: entity %s: %s: %v", file, name, where, err)
				}
				if k := e.Key(attrs[i].Name); k != nil {
					// Two indexes share the key attribute: one template.
					if k.Template.Text != tpl.Text {
						return fmt.Errorf("%s: entity %s: %s builds %s as %s, another mapping as %s", file, name, where, attrs[i].Name, tpl.Text, k.Template.Text)
					}
					continue
				}
				e.Keys = append(e.Keys, &design.Key{Attr: attrs[i].Name, Template: tpl})
			}
			return nil
		}
		if err := addKey(d.Table.PartitionKey, me.PKTemplate, "pk_template"); err != nil {
			return nil, notes, err
		}
		if err := addKey(d.Table.SortKey, me.SKTemplate, "sk_template"); err != nil {
			return nil, notes, err
		}
		for _, g := range me.GSIMappings {
			ix := d.Index(g.Name)
			if ix == nil {
				return nil, notes, fmt.Errorf("%s: entity %s maps GSI %s, which gsi_list does not declare", file, name, g.Name)
			}
			if err := addKey(ix.PartitionKey, g.PKTemplate, g.Name+" pk_template"); err != nil {
				return nil, notes, err
			}
			if err := addKey(ix.SortKey, g.SKTemplate, g.Name+" sk_template"); err != nil {
				return nil, notes, err
			}
		}
		addTemplateVars(d, e, func(string) string { return "S" })
		d.Entities = append(d.Entities, e)
	}
	// Patterns once every entity is read: a mixed_data read returns every
	// entity that shares its key.
	for _, name := range slices.Sorted(maps.Keys(t.Entities)) {
		for _, ap := range t.Entities[name].AccessPatterns {
			p, apNotes, err := mcpPattern(d, d.Entity(name), ap)
			for _, n := range apNotes {
				notes = append(notes, fmt.Sprintf("entity %s, pattern %s: %s", name, ap.Name, n))
			}
			if err != nil {
				notes = append(notes, fmt.Sprintf("entity %s, pattern %s: %v: left out", name, ap.Name, err))
				continue
			}
			p.ID = fmt.Sprint(ap.PatternID)
			if p.ID == "" || p.ID == "<nil>" {
				p.ID = ap.Name
			}
			p.Description = cmp.Or(ap.Description, ap.Name)
			if slices.ContainsFunc(d.Patterns, func(q *design.Pattern) bool { return q.ID == p.ID }) {
				p.ID = cmp.Or(ap.Name, fmt.Sprintf("%s-%d", p.ID, len(d.Patterns)+1))
			}
			if slices.ContainsFunc(d.Patterns, func(q *design.Pattern) bool { return q.ID == p.ID }) {
				p.ID = fmt.Sprintf("%s-%d", p.ID, len(d.Patterns)+1)
			}
			d.Patterns = append(d.Patterns, p)
		}
	}
	for i, tn := range names {
		if i != idx {
			notes = append(notes, fmt.Sprintf("table %s: not imported (a design is one table; --table %s imports it)", tn, tn))
		}
	}
	// A key attribute that holds one field is of that field's type.
	for _, ks := range [][]design.KeyAttr{d.Table.PartitionKey, d.Table.SortKey} {
		mcpKeyTypes(d, ks)
	}
	for _, ix := range d.Table.Indexes {
		mcpKeyTypes(d, ix.PartitionKey)
		mcpKeyTypes(d, ix.SortKey)
	}
	return d, notes, nil
}

// mcpKeyTypes gives each key attribute that an entity fills with exactly
// one Number or Binary field that field's type.
func mcpKeyTypes(d *design.Design, ks []design.KeyAttr) {
	for i, ka := range ks {
		for _, e := range d.Entities {
			k := e.Key(ka.Name)
			if k == nil || len(k.Template.Parts) != 1 || k.Template.Parts[0].Var == "" {
				continue
			}
			if a := e.Attribute(k.Template.Parts[0].Var); a != nil && (a.Type == "N" || a.Type == "B") {
				ks[i].Type = a.Type
			}
		}
	}
}
