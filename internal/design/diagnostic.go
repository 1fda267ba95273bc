package design

import (
	"fmt"
	"slices"
)

// Severity says how bad a diagnostic is.
type Severity string

// Severities: an error fails `dynago design check` (exit code 1); a
// warning is advice.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
)

// Diagnostic is one finding about a design file.
type Diagnostic struct {
	Pos      Pos      `json:"-"`
	File     string   `json:"file"`
	Line     int      `json:"line"`
	Col      int      `json:"column"`
	Severity Severity `json:"severity"`
	// Rule names the rule that found it ("syntax" for the file itself).
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// String returns FILE:LINE:COL: severity: message [rule].
func (d Diagnostic) String() string {
	return fmt.Sprintf("%s: %s: %s [%s]", d.Pos, d.Severity, d.Message, d.Rule)
}

// NewDiagnostic fills the flat position fields from pos.
func NewDiagnostic(pos Pos, sev Severity, rule, msg string) Diagnostic {
	return Diagnostic{Pos: pos, File: pos.File, Line: pos.Line, Col: pos.Col, Severity: sev, Rule: rule, Message: msg}
}

// SortDiagnostics orders diagnostics by position, then rule and message,
// so that output is deterministic.
func SortDiagnostics(ds []Diagnostic) {
	slices.SortStableFunc(ds, func(a, b Diagnostic) int {
		switch {
		case a.Line != b.Line:
			return a.Line - b.Line
		case a.Col != b.Col:
			return a.Col - b.Col
		case a.Rule != b.Rule:
			if a.Rule < b.Rule {
				return -1
			}
			return 1
		case a.Message < b.Message:
			return -1
		case a.Message > b.Message:
			return 1
		}
		return 0
	})
}
