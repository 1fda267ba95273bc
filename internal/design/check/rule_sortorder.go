package check

import (
	"slices"
	"strings"

	"github.com/dynago/dynago/internal/design"
)

// SortOrderRule checks that sort keys order as intended: DynamoDB orders
// a string sort key by its UTF-8 bytes, so a number inside it needs a
// fixed width ("10" sorts before "9") and a time a fixed UTC format.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html
// ("Strings are compared by ... UTF-8 bytes").
var SortOrderRule = &Rule{
	Name: "sort-order",
	Doc: `A string sort key sorts by bytes. A number variable (type N or epoch) inside one
needs a fixed width, <n:08d>, or 10 sorts before 9. A time needs one fixed
UTC format: declare it type timestamp (ISO 8601 UTC) rather than S.`,
	Run: func(pass *Pass) {
		d := pass.Design
		sortAttrs := map[string]bool{}
		for _, ka := range d.Table.SortKey {
			sortAttrs[ka.Name] = ka.Type == "S"
		}
		for _, ix := range d.Table.Indexes {
			for _, ka := range ix.SortKey {
				sortAttrs[ka.Name] = ka.Type == "S"
			}
		}
		for _, e := range d.Entities {
			for _, k := range e.Keys {
				if str, ok := sortAttrs[k.Attr]; !ok || !str || k.Template.Constant() {
					continue
				}
				for _, part := range k.Template.Parts {
					a := e.Attribute(part.Var)
					if part.Var == "" || a == nil {
						continue
					}
					// A lone variable of a number keeps its own order only
					// as an N key; in a string key it needs a width.
					if (a.Type == "N" || a.Type == "epoch") && part.Width == 0 {
						pass.Reportf(k.Pos, design.Warning, "%s's sort key %s %s holds the number <%s> as text: 10 sorts before 9; write <%s:0%dd> for a fixed width", e.Name, k.Attr, k.Template, part.Var, part.Var, defaultWidth(a))
					}
					if a.Type == "S" && looksLikeTime(a.Name) {
						pass.Reportf(k.Pos, design.Warning, "%s's sort key %s %s holds <%s>, which looks like a time: declare it type timestamp (ISO 8601 UTC, one fixed format) so that text order is time order", e.Name, k.Attr, k.Template, part.Var)
					}
				}
			}
		}
	},
}

// defaultWidth suggests a width for a number attribute: 10 digits for
// epoch seconds, else 8.
func defaultWidth(a *design.Attribute) int {
	if a.Type == "epoch" {
		return 10
	}
	return 8
}

// looksLikeTime reports whether an attribute name says it is a time:
// createdAt, CreatedAt, created_at, PlayedOn, OrderDate, date, ...
func looksLikeTime(name string) bool {
	switch strings.ToLower(name) {
	case "date", "time", "timestamp", "day":
		return true
	}
	return slices.ContainsFunc([]string{"At", "_at", "On", "_on", "Date", "_date", "Time", "_time", "Timestamp", "_timestamp", "Day", "_day"}, func(s string) bool {
		return len(name) > len(s) && strings.HasSuffix(name, s)
	})
}
