package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// clockReads are the time functions that read the wall clock.
var clockReads = map[string]bool{"Now": true, "Since": true, "Until": true}

// wallclockMarker is the comment that lets one line read the wall clock:
// "// wallclock: " and the reason.
var wallclockMarker = regexp.MustCompile(`^//\s*wallclock:\s*\S`)

// TestEngineReadsTheClockThroughOptions: the engine's non-test code reads
// the time through Options.Now (e.opts.Now()), which tests replace with a
// fake clock, never through time.Now, time.Since or time.Until, unless
// the line or the line above carries "// wallclock: <reason>": a real
// duration measured, or a wall-clock time shared with other nodes (lease
// expiries). A marker that excuses no clock read is refused too, so
// that markers do not outlive their code. Waiting (time.After,
// time.NewTicker, time.Sleep and the like) is not a clock read and is not
// checked: Options.Now cannot drive a wait, and a wait on a fake clock
// would never end. The one use of time.Now as a value allowed is
// Options.Now's default (opts.Now = time.Now).
func TestEngineReadsTheClockThroughOptions(t *testing.T) {
	for _, f := range goFiles(t, filepath.Join("internal", "engine")) {
		if strings.HasSuffix(f, "_test.go") || filepath.Dir(f) != filepath.Join(repoRoot(t), "internal", "engine") {
			continue
		}
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, f, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		timePkg := "" // the name the file imports "time" as
		for _, imp := range af.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == "time" {
				timePkg = "time"
				if imp.Name != nil {
					timePkg = imp.Name.Name
				}
			}
		}
		if timePkg == "" || timePkg == "_" {
			continue
		}
		markers := map[int]token.Pos{} // line → marker
		for _, cg := range af.Comments {
			for _, c := range cg.List {
				if wallclockMarker.MatchString(c.Text) {
					markers[fset.Position(c.Pos()).Line] = c.Pos()
				}
			}
		}
		// The default of Options.Now: time.Now assigned to a Now field.
		defaults := map[*ast.SelectorExpr]bool{}
		ast.Inspect(af, func(n ast.Node) bool {
			if as, ok := n.(*ast.AssignStmt); ok && len(as.Lhs) == len(as.Rhs) {
				for i, l := range as.Lhs {
					ls, ok := l.(*ast.SelectorExpr)
					rs, ok2 := as.Rhs[i].(*ast.SelectorExpr)
					if ok && ok2 && ls.Sel.Name == "Now" && isTimeFunc(rs, timePkg, "Now") {
						defaults[rs] = true
					}
				}
			}
			return true
		})
		used := map[int]bool{} // marker lines that excused a read
		ast.Inspect(af, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok || !isTimeFunc(sel, timePkg, "") || !clockReads[sel.Sel.Name] || defaults[sel] {
				return true
			}
			line := fset.Position(sel.Pos()).Line
			for _, l := range []int{line, line - 1} {
				if _, ok := markers[l]; ok {
					used[l] = true
					return true
				}
			}
			t.Errorf("%s: %s.%s reads the wall clock: use e.opts.Now (Options.Now), or mark the line \"// wallclock: <reason>\" if it must be real time", relPos(t, fset, sel.Pos()), timePkg, sel.Sel.Name)
			return true
		})
		for _, l := range slices.Sorted(maps.Keys(markers)) {
			if !used[l] {
				t.Errorf("%s: a wallclock marker with no time.Now, Since or Until on its line or the next", relPos(t, fset, markers[l]))
			}
		}
	}
}

// isTimeFunc reports whether sel is pkg.name (pkg.anything for name "").
func isTimeFunc(sel *ast.SelectorExpr, pkg, name string) bool {
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg && (name == "" || sel.Sel.Name == name)
}
