package design

import (
	"fmt"
	"strings"
)

// A Rule is one check of a design, shaped like a go/analysis Analyzer: a
// name, a doc that says what it finds and why, and a Run that reports
// through a Pass.
type Rule struct {
	Name string
	Doc  string
	Run  func(*Pass)
}

// Pass is one rule's run over one design.
type Pass struct {
	Design *Design
	rule   *Rule
	diags  *[]Diagnostic
}

// Reportf reports a finding at pos.
func (p *Pass) Reportf(pos Pos, sev Severity, format string, args ...any) {
	*p.diags = append(*p.diags, newDiagnostic(pos, sev, p.rule.Name, fmt.Sprintf(format, args...)))
}

// Rules are every rule `dynago design check` runs, in order.
var Rules = []*Rule{
	TemplatesRule,
	KeyConditionRule,
	PrefixIsolationRule,
	SortOrderRule,
	IndexMembershipRule,
	ProjectionRule,
	WritePathRule,
	CollectionsRule,
	LimitsRule,
	HotKeysRule,
}

// Check runs rules over d and returns their diagnostics, sorted by
// position.
func Check(d *Design, rules []*Rule) []Diagnostic {
	var diags []Diagnostic
	for _, r := range rules {
		r.Run(&Pass{Design: d, rule: r, diags: &diags})
	}
	sortDiagnostics(diags)
	return diags
}

// indexLabel names an index for messages.
func indexLabel(index string) string {
	if index == "" {
		return "the table"
	}
	return "index " + index
}

// condText renders conditions for messages.
func condText(cs []Condition) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.String()
	}
	return strings.Join(parts, " AND ")
}
