// Package check proves a single-table design's access patterns against
// its keys, as dynago design check does: Check runs Rules over a design
// that loaded without syntax errors and returns their diagnostics. A
// Rule is shaped like a go/analysis Analyzer (a Name, a Doc, and a Run
// that reports through a Pass), one file each (rule_*.go); rules read the
// design through the model of package design (templates, reads resolved
// against their index, the capacity model for hot keys).
package check

import (
	"fmt"
	"strings"

	"github.com/dynago/dynago/internal/design"
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
	Design *design.Design
	rule   *Rule
	diags  *[]design.Diagnostic
}

// Reportf reports a finding at pos.
func (p *Pass) Reportf(pos design.Pos, sev design.Severity, format string, args ...any) {
	*p.diags = append(*p.diags, design.NewDiagnostic(pos, sev, p.rule.Name, fmt.Sprintf(format, args...)))
}

// Rules are every rule `dynago design check` runs, in order.
var Rules = []*Rule{
	TemplatesRule,
	KeyConditionRule,
	KeyMatchRule,
	PrefixIsolationRule,
	SortOrderRule,
	IndexMembershipRule,
	ProjectionRule,
	WritePathRule,
	CollectionsRule,
	CollectionSizeRule,
	LimitsRule,
	HotKeysRule,
	TimeBucketRule,
	ShardedReadRule,
	InputsRule,
	NamesRule,
	MultiItemRule,
}

// Check runs rules over d and returns their diagnostics, sorted by
// position.
func Check(d *design.Design, rules []*Rule) []design.Diagnostic {
	var diags []design.Diagnostic
	for _, r := range rules {
		r.Run(&Pass{Design: d, rule: r, diags: &diags})
	}
	design.SortDiagnostics(diags)
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
func condText(cs []design.Condition) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.String()
	}
	return strings.Join(parts, " AND ")
}
