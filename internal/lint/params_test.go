package lint

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"testing"
)

// maxParams is the most parameters a function under internal/ takes.
const maxParams = 6

// relPos is a position as file:line relative to the repository root.
func relPos(t *testing.T, fset *token.FileSet, p token.Pos) string {
	pos := fset.Position(p)
	if rel, err := filepath.Rel(repoRoot(t), pos.Filename); err == nil {
		pos.Filename = rel
	}
	return fmt.Sprintf("%s:%d", pos.Filename, pos.Line)
}

// paramCount counts a signature's parameters: each name, and each
// unnamed parameter (a variadic one is one). Receivers and type
// parameters are not in ft.Params.
func paramCount(ft *ast.FuncType) int {
	n := 0
	if ft.Params == nil {
		return 0
	}
	for _, f := range ft.Params.List {
		n += max(len(f.Names), 1)
	}
	return n
}

// funcName is a declared function's name, Type.Method for a method.
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch x := t.(type) {
	case *ast.IndexExpr:
		t = x.X
	case *ast.IndexListExpr:
		t = x.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + d.Name.Name
	}
	return d.Name.Name
}

// TestFunctionsTakeAtMostSixParameters: no function under internal/, test
// files included, takes more than six parameters (each named one counts,
// and each unnamed one; receivers do not; function literals count too).
// Parameters that travel together belong in a struct, where each is
// named at the call and none can be passed in another's place.
func TestFunctionsTakeAtMostSixParameters(t *testing.T) {
	for _, f := range goFiles(t, "internal") {
		fset := token.NewFileSet()
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		check := func(ft *ast.FuncType, what string) {
			if n := paramCount(ft); n > maxParams {
				t.Errorf("%s: %s takes %d parameters (at most %d: put the ones that travel together in a struct)", relPos(t, fset, ft.Pos()), what, n, maxParams)
			}
		}
		for _, decl := range af.Decls {
			name := "" // the declared function a literal is in, if any
			var in ast.Node = decl
			if d, ok := decl.(*ast.FuncDecl); ok {
				name = funcName(d)
				check(d.Type, "func "+name)
				if d.Body == nil {
					continue
				}
				in = d.Body
			}
			ast.Inspect(in, func(n ast.Node) bool {
				if lit, ok := n.(*ast.FuncLit); ok {
					what := "a function literal"
					if name != "" {
						what += " in " + name
					}
					check(lit.Type, what)
				}
				return true
			})
		}
	}
}
