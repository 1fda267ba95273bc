package interop

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// oneTableProperty is a model property of a OneTable schema
// (https://doc.onetable.io/api/modeler/ "Schema", field properties).
type oneTableProperty struct {
	Type     any
	Value    string
	Required bool
	Enum     []string
	Default  any
	// Unique makes OneTable write a guard item _unique#Model#attr#value
	// (sort key _unique#) in the same transaction as the item, with
	// attribute_not_exists (Model.js createUnique).
	Unique bool
	// Map stores the property under another attribute name; Scope
	// prefixes a unique guard's key.
	Map, Scope string
}

// oneTableKnown are the property fields ImportOneTable reads or that do
// not change the design (generate fills an id, hidden hides it from
// reads); any other is said to be left out.
var oneTableKnown = []string{"type", "value", "required", "enum", "default", "unique", "map", "scope", "generate", "hidden", "crypt", "encode", "isoDates", "nulls", "partial"}

// oneTableUnique makes the guard entity of each unique property that is
// not a table key (a key is unique already), and a PutItem of the model
// and of each guard, in one transaction.
func oneTableUnique(d *design.Design, s oneTableSchema, typeField string) ([]string, error) {
	var notes []string
	for _, model := range slices.Sorted(maps.Keys(s.Models)) {
		var guards []*design.Entity
		for _, prop := range slices.Sorted(maps.Keys(s.Models[model])) {
			p := s.Models[model][prop]
			if !p.Unique || d.IsTableKey(prop) {
				continue
			}
			attr := cmp.Or(p.Map, prop)
			g := &design.Entity{Name: model + camel(prop) + "Unique", Discriminator: typeField, DiscriminatorValue: "_Unique",
				Attributes: []*design.Attribute{{Name: prop, Type: oneTableType(p.Type)}}}
			for d.Entity(g.Name) != nil {
				g.Name += "2"
			}
			pk, err := design.ParseTemplate("_unique#" + model + "#" + attr + "#<" + prop + ">")
			if err != nil {
				return notes, fmt.Errorf("model %s, unique %s: %v", model, prop, err)
			}
			g.Keys = append(g.Keys, &design.Key{Attr: d.Table.PartitionKey[0].Name, Template: pk})
			if len(d.Table.SortKey) > 0 {
				sk, _ := design.ParseTemplate("_unique#")
				g.Keys = append(g.Keys, &design.Key{Attr: d.Table.SortKey[0].Name, Template: sk})
			}
			if p.Scope != "" {
				notes = append(notes, fmt.Sprintf("model %s, unique %s: scope %q is not in the guard's key (OneTable puts it first: _unique#<scope>#%s#...)", model, prop, p.Scope, model))
			}
			d.Entities = append(d.Entities, g)
			guards = append(guards, g)
		}
		if len(guards) == 0 {
			continue
		}
		// OneTable's create: one TransactWriteItems of the item and its
		// guards, each put with attribute_not_exists, so that a second
		// item with the same unique value fails whole.
		create := &design.Pattern{ID: "create-" + kebab(model), Kind: "write", Operation: design.TransactWriteItems,
			Description: "OneTable's create: one TransactWriteItems of the item and its unique guards, each put with attribute_not_exists",
			Actions:     []*design.Action{{Kind: design.ActionPut, Entity: model, Condition: design.NotExists, Count: 1}}}
		var names []string
		for _, g := range guards {
			create.Actions = append(create.Actions, &design.Action{Kind: design.ActionPut, Entity: g.Name, Condition: design.NotExists, Count: 1})
			names = append(names, g.Name)
		}
		d.Patterns = append(d.Patterns, create)
		notes = append(notes, fmt.Sprintf("model %s: unique properties as guard entities (%s), put in one TransactWriteItems with the item (pattern %s)", model, strings.Join(names, ", "), create.ID))
	}
	return notes, nil
}

// oneTableTimestamps adds the created and updated attributes OneTable
// writes when params.timestamps is true (or "create", "update").
func oneTableTimestamps(e *design.Entity, ts any, created, updated string) []string {
	var add []string
	switch ts {
	case true:
		add = []string{cmp.Or(created, "created"), cmp.Or(updated, "updated")}
	case "create":
		add = []string{cmp.Or(created, "created")}
	case "update":
		add = []string{cmp.Or(updated, "updated")}
	}
	var notes []string
	for _, name := range add {
		if e.Attribute(name) == nil {
			e.Attributes = append(e.Attributes, &design.Attribute{Name: name, Type: "timestamp"})
			notes = append(notes, fmt.Sprintf("model %s: %s added (params.timestamps: OneTable writes it)", e.Name, name))
		}
	}
	return notes
}

// oneTableDropped says what of the schema the import leaves out: a
// property's map (the attribute is imported under the property's name),
// nested schemas, other property fields, and top-level fields OneTable
// does not define.
func oneTableDropped(raw []byte) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(raw, &top) != nil {
		return nil
	}
	var notes []string
	for _, k := range slices.Sorted(maps.Keys(top)) {
		if !slices.Contains([]string{"format", "version", "indexes", "models", "params"}, k) {
			notes = append(notes, fmt.Sprintf("%s: not a OneTable schema field: left out", k))
		}
	}
	var models map[string]map[string]map[string]json.RawMessage
	if json.Unmarshal(top["models"], &models) != nil {
		return notes
	}
	for _, model := range slices.Sorted(maps.Keys(models)) {
		for _, prop := range slices.Sorted(maps.Keys(models[model])) {
			fields := models[model][prop]
			var left []string
			for _, f := range slices.Sorted(maps.Keys(fields)) {
				switch {
				case f == "map":
					var to string
					json.Unmarshal(fields[f], &to)
					notes = append(notes, fmt.Sprintf("model %s, %s: stored as attribute %s (map): imported under its property name", model, prop, to))
				case f == "schema" || f == "items":
					notes = append(notes, fmt.Sprintf("model %s, %s: its nested schema is left out (an M or L attribute)", model, prop))
				case !slices.Contains(oneTableKnown, f):
					left = append(left, f)
				}
			}
			if len(left) > 0 {
				notes = append(notes, fmt.Sprintf("model %s, %s: %s left out", model, prop, strings.Join(left, ", ")))
			}
		}
	}
	return notes
}
