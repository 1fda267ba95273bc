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
	"slices"
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
	OpenPrefixRule,
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
	IntentRule,
}

// Check runs rules over d and returns their diagnostics, sorted by
// position. A finding that a dynago:ignore comment covers (d.Ignores) is
// dropped; an ignore comment that names a rule Rules does not have, or
// that covers no finding of the rules it names (when they all ran), is a
// warning of the rule "ignore".
func Check(d *design.Design, rules []*Rule) []design.Diagnostic {
	var diags []design.Diagnostic
	for _, r := range rules {
		r.Run(&Pass{Design: d, rule: r, diags: &diags})
	}
	diags = applyIgnores(d, rules, diags)
	design.SortDiagnostics(diags)
	return diags
}

// applyIgnores drops the findings d's ignore comments cover and reports
// the comments that are wrong or stale.
func applyIgnores(d *design.Design, rules []*Rule, diags []design.Diagnostic) []design.Diagnostic {
	if len(d.Ignores) == 0 {
		return diags
	}
	used := make([]bool, len(d.Ignores))
	kept := diags[:0]
	for _, dg := range diags {
		covered := false
		for i, ig := range d.Ignores {
			if dg.Line >= ig.From && dg.Line <= ig.To && slices.Contains(ig.Rules, dg.Rule) {
				covered, used[i] = true, true
			}
		}
		if !covered {
			kept = append(kept, dg)
		}
	}
	ran := map[string]bool{}
	for _, r := range rules {
		ran[r.Name] = true
	}
	for i, ig := range d.Ignores {
		all, unknown := true, false
		for _, name := range ig.Rules {
			if Lookup(name) == nil {
				unknown = true
				kept = append(kept, design.NewDiagnostic(ig.Pos, design.Warning, "ignore",
					fmt.Sprintf("dynago:ignore names no rule %q%s", name, didYouMean(name, RuleNames()))))
			}
			all = all && ran[name]
		}
		if !used[i] && all && !unknown {
			kept = append(kept, design.NewDiagnostic(ig.Pos, design.Warning, "ignore",
				fmt.Sprintf("dynago:ignore %s silences nothing here: remove it, or move it to the line of the finding (or the line above, or a pattern's or entity's first line)", strings.Join(ig.Rules, ","))))
		}
	}
	return kept
}

// Lookup returns the rule named name, or nil.
func Lookup(name string) *Rule {
	for _, r := range Rules {
		if r.Name == name {
			return r
		}
	}
	return nil
}

// RuleNames are the names of Rules, in order.
func RuleNames() []string {
	names := make([]string, len(Rules))
	for i, r := range Rules {
		names[i] = r.Name
	}
	return names
}

// Without returns Rules less the ones named (dynago design check
// --disable); a name that is no rule is an error that lists them.
func Without(names []string) ([]*Rule, error) {
	for _, n := range names {
		if Lookup(n) == nil {
			return nil, fmt.Errorf("no rule %q%s; the rules are %s", n, didYouMean(n, RuleNames()), strings.Join(RuleNames(), ", "))
		}
	}
	var out []*Rule
	for _, r := range Rules {
		if !slices.Contains(names, r.Name) {
			out = append(out, r)
		}
	}
	return out, nil
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
