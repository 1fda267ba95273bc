// Package lint keeps the house conventions executable: every package says
// what it owns, every exported identifier has a doc comment,
// hand-written files stay under 800 lines (../shared/HOUSE.md), every
// mutex is unlocked by a defer, no function under internal/ takes more
// than six parameters, and the engine reads the clock through
// Options.Now.
package lint

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

func repoRoot(t *testing.T) string {
	dir, _ := os.Getwd()
	return filepath.Join(dir, "..", "..")
}

// packages returns the non-test Go files of the module, by directory.
func packages(t *testing.T) map[string][]string {
	pkgs := map[string][]string{}
	for _, path := range goFiles(t, "") {
		if !strings.HasSuffix(path, "_test.go") {
			pkgs[filepath.Dir(path)] = append(pkgs[filepath.Dir(path)], path)
		}
	}
	return pkgs
}

// goFiles returns every Go file under dir (relative to the repository
// root), test files included, skipping testdata and hidden directories.
func goFiles(t *testing.T, dir string) []string {
	var files []string
	root := filepath.Join(repoRoot(t), dir)
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "testdata" || d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestEveryPackageHasADoc(t *testing.T) {
	for dir, files := range packages(t) {
		documented := false
		for _, f := range files {
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ParseComments|parser.PackageClauseOnly)
			if err != nil {
				t.Fatal(err)
			}
			if af.Doc != nil && strings.TrimSpace(af.Doc.Text()) != "" {
				documented = true
			}
		}
		if !documented {
			t.Errorf("package in %s has no package doc comment", dir)
		}
	}
}

func TestExportedIdentifiersHaveDocs(t *testing.T) {
	for _, files := range packages(t) {
		for _, f := range files {
			fset := token.NewFileSet()
			af, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			for _, decl := range af.Decls {
				switch d := decl.(type) {
				case *ast.FuncDecl:
					if d.Name.IsExported() && d.Doc == nil && exportedRecv(d) {
						t.Errorf("%s: func %s has no doc comment", fset.Position(d.Pos()), d.Name.Name)
					}
				case *ast.GenDecl:
					for _, spec := range d.Specs {
						switch s := spec.(type) {
						case *ast.TypeSpec:
							if s.Name.IsExported() && d.Doc == nil && s.Doc == nil {
								t.Errorf("%s: type %s has no doc comment", fset.Position(s.Pos()), s.Name.Name)
							}
						case *ast.ValueSpec:
							for _, n := range s.Names {
								// Members of a documented const/var block are
								// covered by the block's comment.
								if n.IsExported() && d.Doc == nil && s.Doc == nil && s.Comment == nil {
									t.Errorf("%s: %s has no doc comment", fset.Position(n.Pos()), n.Name)
								}
							}
						}
					}
				}
			}
		}
	}
}

// exportedRecv reports whether a method's receiver type is exported (methods
// of unexported types need no docs).
func exportedRecv(d *ast.FuncDecl) bool {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return true
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if ix, ok := t.(*ast.IndexExpr); ok {
		t = ix.X
	}
	id, ok := t.(*ast.Ident)
	return ok && id.IsExported()
}

// generated matches Go's marker of a generated file
// (https://go.dev/s/generatedcode).
var generated = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

func TestHandWrittenFilesStaySmall(t *testing.T) {
	for _, files := range packages(t) {
		for _, f := range files {
			b, _ := os.ReadFile(f)
			if generated.Match(b) {
				continue // dynago design gen-go's output in examples/gen
			}
			if n := strings.Count(string(b), "\n"); n > 800 {
				t.Errorf("%s has %d lines (house rule: split by concept past ~800)", f, n)
			}
		}
	}
}

// TestUnlocksAreDeferred: every mutex is unlocked by a defer, so that a
// panic in a critical section (recovered per request by the server) never
// leaves a lock held and the server wedged (issue 20: a panic inside
// Pebble skipped a hand-written Unlock and every later write waited for
// ever). A critical section that must end early is a function of its own.
// It covers the code a server runs (cmd/, internal/, dynagotest/); the
// measuring programs under bench/ end with a panic, they never serve on.
func TestUnlocksAreDeferred(t *testing.T) {
	root := repoRoot(t)
	for dir, files := range packages(t) {
		if rel, _ := filepath.Rel(root, dir); strings.HasPrefix(rel, "bench") || strings.HasPrefix(rel, "examples") {
			continue
		}
		for _, f := range files {
			fset := token.NewFileSet()
			af, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(af, func(n ast.Node) bool {
				if _, ok := n.(*ast.DeferStmt); ok {
					return false // defer mu.Unlock(), defer func() { ... }()
				}
				es, ok := n.(*ast.ExprStmt)
				if !ok {
					return true
				}
				if call, ok := es.X.(*ast.CallExpr); ok {
					if sel, ok := call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Unlock" || sel.Sel.Name == "RUnlock") && len(call.Args) == 0 {
						t.Errorf("%s: %s() not deferred", fset.Position(call.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}

// TestErrorsAreNotClassifiedByText: no code decides what an error is by
// looking into its text (strings.Contains(err.Error(), ...), or into a
// ddberr.Error's Message): a reworded message would silently change
// behaviour. Errors that must be told apart carry a type or a sentinel
// (engine's emptyKeyValueError, expr's pathRelation overlap flag).
func TestErrorsAreNotClassifiedByText(t *testing.T) {
	inspect := map[string]bool{"Contains": true, "HasPrefix": true, "HasSuffix": true, "Index": true, "EqualFold": true}
	for _, files := range packages(t) {
		for _, f := range files {
			fset := token.NewFileSet()
			af, err := parser.ParseFile(fset, f, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			ast.Inspect(af, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) == 0 {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if pkg, isIdent := selX(sel); !ok || !isIdent || pkg != "strings" || !inspect[sel.Sel.Name] {
					return true
				}
				switch a := call.Args[0].(type) {
				case *ast.CallExpr: // x.Error()
					if s, ok := a.Fun.(*ast.SelectorExpr); ok && s.Sel.Name == "Error" && len(a.Args) == 0 {
						t.Errorf("%s: an error classified by its text (strings.%s on .Error())", fset.Position(call.Pos()), sel.Sel.Name)
					}
				case *ast.SelectorExpr: // de.Message
					if a.Sel.Name == "Message" {
						t.Errorf("%s: an error classified by its text (strings.%s on .Message)", fset.Position(call.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}

// selX returns the identifier a selector is taken on ("strings" in
// strings.Contains).
func selX(sel *ast.SelectorExpr) (string, bool) {
	if sel == nil {
		return "", false
	}
	id, ok := sel.X.(*ast.Ident)
	if !ok {
		return "", false
	}
	return id.Name, true
}

// TestProductionCodeImportsNoTestHelpers: the packages the dynago binary
// and dynagotest are built from import no test-helper package (one whose
// name ends in "test" or is teststore, which may import "testing"), so
// that none of them is linked into the production binary (issue 21: the
// mock TiKV cluster of --pd mock came from tikvtest; it is
// storage/tikv/mockcluster now).
func TestProductionCodeImportsNoTestHelpers(t *testing.T) {
	helper := func(path string) bool {
		base := path[strings.LastIndex(path, "/")+1:]
		return strings.HasPrefix(path, "github.com/dynago/dynago/") && (strings.HasSuffix(base, "test") && base != "dynagotest" || base == "teststore")
	}
	for dir, files := range packages(t) {
		if base := filepath.Base(dir); strings.HasSuffix(base, "test") && base != "dynagotest" || base == "teststore" {
			continue // the helpers themselves
		}
		for _, f := range files {
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				if p := strings.Trim(imp.Path.Value, `"`); helper(p) {
					t.Errorf("%s imports the test helper %s", f, p)
				}
			}
		}
	}
}

// TestImportDirection: the edges between packages (issue 21). Only the
// command line and the in-process helper (behind design run and
// dynagotest) build a server and wire in the design traffic classifier;
// only main runs the command line;
// the request shapes (api) do not depend on how they are evaluated
// (eval). A rule is a package, the imports it may not have, and the
// packages allowed to break it. Beyond direct imports, the HTTP edge
// (server) links, through any path, neither the design tools (design and
// its subpackages) nor the AWS SDK they use, and the production binary
// (cmd/dynago) links neither dynagotest nor "testing" (go list -deps).
func TestImportDirection(t *testing.T) {
	const mod = "github.com/dynago/dynago/"
	rules := []struct {
		imported string   // a package path under the module
		allowed  []string // directories (relative) that may import it
	}{
		{"internal/server", []string{"internal/cli", "internal/inproc"}},
		{"internal/cli", []string{"cmd/dynago"}},
		{"internal/designtraffic", []string{"internal/cli", "internal/inproc"}},
	}
	forbidden := map[string][]string{ // directory → imports it may not have
		"internal/api": {"internal/eval", "internal/engine", "internal/server"},
	}
	root := repoRoot(t)
	for dir, files := range packages(t) {
		rel, _ := filepath.Rel(root, dir)
		for _, f := range files {
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range af.Imports {
				p := strings.TrimPrefix(strings.Trim(imp.Path.Value, `"`), mod)
				for _, r := range rules {
					if p == r.imported && rel != r.imported && !slices.Contains(r.allowed, rel) {
						t.Errorf("%s imports %s (only %v may)", f, p, r.allowed)
					}
				}
				if slices.Contains(forbidden[rel], p) {
					t.Errorf("%s imports %s", f, p)
				}
				// The design tools (check, analyze, gengo, interop, run)
				// stand on the model (internal/design) and its sample
				// data, not on each other.
				if strings.HasPrefix(rel, "internal/design/") && strings.HasPrefix(p, "internal/design/") &&
					p != "internal/design/sample" && p != "internal/design/designtest" {
					t.Errorf("%s imports %s: a design tool imports only the model and internal/design/sample", f, p)
				}
			}
		}
	}
	linked := map[string][]string{ // package → what it may not link, directly or not
		"internal/server": {mod + "internal/design", "github.com/aws/aws-sdk-go-v2", "github.com/aws/smithy-go"},
		"cmd/dynago":      {mod + "dynagotest", "testing"},
	}
	for pkg, never := range linked {
		cmd := exec.Command("go", "list", "-deps", "./"+pkg)
		cmd.Dir = root
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list -deps ./%s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			for _, n := range never {
				if dep == n || strings.HasPrefix(dep, n+"/") {
					t.Errorf("%s links %s (go list -deps ./%s)", pkg, dep, pkg)
				}
			}
		}
	}
}
