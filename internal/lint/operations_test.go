package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestOperationsDocNamesBothFiles keeps docs/operations.md's "Where each
// operation lives" tables true to the code: every operation the server
// dispatches (ops and streamOps in internal/server/ops.go) has a row, and
// no row names one it does not; each row's api file is
// internal/api/<snake_case_op>.go and declares the input type the engine
// method takes; its engine file declares that (*Engine) method, the one
// the dispatch table calls.
func TestOperationsDocNamesBothFiles(t *testing.T) {
	root := repoRoot(t)
	dispatched := dispatchTable(t, filepath.Join(root, "internal", "server", "ops.go"))
	if len(dispatched) == 0 {
		t.Fatal("no operations found in internal/server/ops.go")
	}
	rows := operationRows(t, filepath.Join(root, "docs", "operations.md"))
	for op := range dispatched {
		if _, ok := rows[op]; !ok {
			t.Errorf("docs/operations.md: the server dispatches %s, which has no row", op)
		}
	}
	for op, r := range rows {
		method, ok := dispatched[op]
		if !ok {
			t.Errorf("docs/operations.md:%d: %s is not in the server's dispatch table", r.line, op)
			continue
		}
		if want := "internal/api/" + snakeCase(op) + ".go"; r.apiFile != want {
			t.Errorf("docs/operations.md:%d: %s's api file is %s, want %s", r.line, op, r.apiFile, want)
		}
		if r.method != method {
			t.Errorf("docs/operations.md:%d: %s's engine method is (*Engine).%s, the server calls (*Engine).%s", r.line, op, r.method, method)
		}
		engineFile := parseFile(t, root, r.engineFile, r.line)
		apiFile := parseFile(t, root, r.apiFile, r.line)
		if engineFile == nil || apiFile == nil {
			continue
		}
		fn := engineMethod(engineFile, r.method)
		if fn == nil {
			t.Errorf("docs/operations.md:%d: %s does not declare (*Engine).%s", r.line, r.engineFile, r.method)
			continue
		}
		in := apiInputType(fn)
		if in == "" {
			t.Errorf("%s: (*Engine).%s does not take an *api input", r.engineFile, r.method)
			continue
		}
		if !declaresType(apiFile, in) {
			t.Errorf("docs/operations.md:%d: %s does not declare %s, the input of (*Engine).%s", r.line, r.apiFile, in, r.method)
		}
	}
}

// dispatchTable returns the operations of ops and streamOps in ops.go,
// each with the engine method its handle((*engine.Engine).Method) calls.
func dispatchTable(t *testing.T, path string) map[string]string {
	af, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ops := map[string]string{}
	for _, decl := range af.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.VAR {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if (name.Name != "ops" && name.Name != "streamOps") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.CompositeLit)
				if !ok {
					t.Fatalf("%s: %s is not a map literal", path, name.Name)
				}
				for _, elt := range lit.Elts {
					kv := elt.(*ast.KeyValueExpr)
					key, err := strconv.Unquote(kv.Key.(*ast.BasicLit).Value)
					if err != nil {
						t.Fatal(err)
					}
					ops[key] = handledMethod(kv.Value)
				}
			}
		}
	}
	return ops
}

// handledMethod returns Method of handle((*engine.Engine).Method), or "".
func handledMethod(e ast.Expr) string {
	call, ok := e.(*ast.CallExpr)
	if !ok || len(call.Args) != 1 {
		return ""
	}
	sel, ok := call.Args[0].(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	return sel.Sel.Name
}

// operationRow is one row of docs/operations.md's per-operation tables.
type operationRow struct {
	line                        int
	apiFile, engineFile, method string
}

var (
	// rowPattern matches | `Op` | `api file` | `engine file` | `(*Engine).Method` |.
	rowPattern = regexp.MustCompile("^\\|\\s*`([A-Za-z]+)`\\s*\\|\\s*`([^`]+)`\\s*\\|\\s*`([^`]+)`\\s*\\|\\s*`\\(\\*Engine\\)\\.([A-Za-z]+)`\\s*\\|\\s*$")
	// opCell matches a row whose first cell is a backquoted name, so that
	// a row rowPattern cannot read is reported rather than skipped.
	opCell = regexp.MustCompile("^\\|\\s*`[A-Za-z]+`\\s*\\|")
)

// operationRows reads the rows whose first cell is a backquoted
// operation name (the support table above them names operations bare).
func operationRows(t *testing.T, path string) map[string]operationRow {
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]operationRow{}
	for i, line := range strings.Split(string(raw), "\n") {
		if !opCell.MatchString(line) {
			continue
		}
		m := rowPattern.FindStringSubmatch(line)
		if m == nil {
			t.Errorf("docs/operations.md:%d: a row that is not | `Op` | `api file` | `engine file` | `(*Engine).Method` |: %s", i+1, line)
			continue
		}
		if _, dup := rows[m[1]]; dup {
			t.Errorf("docs/operations.md:%d: %s is listed twice", i+1, m[1])
		}
		rows[m[1]] = operationRow{line: i + 1, apiFile: m[2], engineFile: m[3], method: m[4]}
	}
	return rows
}

// parseFile parses a file the doc names (relative to the repository),
// reporting a missing one.
func parseFile(t *testing.T, root, rel string, line int) *ast.File {
	path := filepath.Join(root, filepath.FromSlash(rel))
	if _, err := os.Stat(path); err != nil {
		t.Errorf("docs/operations.md:%d: %s does not exist", line, rel)
		return nil
	}
	af, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	return af
}

// engineMethod returns the declaration of (*Engine).name in af, or nil.
func engineMethod(af *ast.File, name string) *ast.FuncDecl {
	for _, decl := range af.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Recv == nil || len(fn.Recv.List) != 1 || fn.Name.Name != name {
			continue
		}
		if star, ok := fn.Recv.List[0].Type.(*ast.StarExpr); ok {
			if id, ok := star.X.(*ast.Ident); ok && id.Name == "Engine" {
				return fn
			}
		}
	}
	return nil
}

// apiInputType returns X of the method's *api.X parameter, or "".
func apiInputType(fn *ast.FuncDecl) string {
	for _, f := range fn.Type.Params.List {
		star, ok := f.Type.(*ast.StarExpr)
		if !ok {
			continue
		}
		if sel, ok := star.X.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "api" {
				return sel.Sel.Name
			}
		}
	}
	return ""
}

// declaresType reports whether af declares the type name.
func declaresType(af *ast.File, name string) bool {
	for _, decl := range af.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.TYPE {
			continue
		}
		for _, spec := range gd.Specs {
			if spec.(*ast.TypeSpec).Name.Name == name {
				return true
			}
		}
	}
	return false
}

// snakeCase turns an operation name into its file name's stem:
// DescribeTimeToLive → describe_time_to_live.
func snakeCase(op string) string {
	var b strings.Builder
	for i, r := range op {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
