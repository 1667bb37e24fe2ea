// Command deps checks the dependency rule of ARCHITECTURE.md: which package of the module may
// import which, and, inside the root package, which group of files may name what another
// declares. CI runs it (.ci/run); run it with `go run ./.ci/deps` from the repository root. It
// prints each breach and exits 1, or prints nothing.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

const module = "github.com/sqsfake/sqsfake"

func main() {
	var breaches []string
	breaches = append(breaches, packageRule()...)
	breaches = append(breaches, fileRule(".")...)
	for _, b := range breaches {
		fmt.Println(b)
	}
	if len(breaches) > 0 {
		fmt.Printf("%d breaches of the dependency rule (ARCHITECTURE.md, \"The dependency rule\")\n", len(breaches))
		os.Exit(1)
	}
}

// kind is what a package of the module is, for the package rule.
func kind(path string) string {
	switch {
	case path == module:
		return "root"
	case path == module+"/companion":
		return "contract"
	case path == module+"/internal/bridge":
		return "bridge"
	case strings.HasPrefix(path, module+"/internal/"):
		return "internal"
	default:
		return "companion" // heartbeat, lambdasqs, snsfake, cmd/sqsfake, and any new one
	}
}

type pkg struct {
	ImportPath                         string
	Imports, TestImports, XTestImports []string
}

// packageRule checks each package's imports of the module's packages: engine ← companions
// through the root's user surface or package companion, never the reverse.
func packageRule() []string {
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		return []string{"go list: " + err.Error()}
	}
	var breaches []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			return []string{"go list: " + err.Error()}
		}
		from := kind(p.ImportPath)
		check := func(imports []string, test string) {
			for _, imp := range imports {
				if imp == p.ImportPath || imp != module && !strings.HasPrefix(imp, module+"/") {
					continue
				}
				if why := forbidden(p.ImportPath, from, imp, kind(imp), test); why != "" {
					breaches = append(breaches, fmt.Sprintf("%s%s imports %s: %s", p.ImportPath, test, imp, why))
				}
			}
		}
		check(p.Imports, "")
		check(p.TestImports, " (its tests)")
		check(p.XTestImports, " (its external tests)")
	}
	return breaches
}

// forbidden says why a package of kind from may not import imp of kind to, or "".
func forbidden(path, from, imp, to, test string) string {
	external := test == " (its external tests)"
	switch {
	case to == "bridge" && from != "root" && from != "contract":
		return "internal/bridge is the root's hand-over to package companion; a companion reaches the engine through package companion"
	case from == "bridge" || from == "internal":
		return "an internal package imports no other package of the module"
	case from == "root" && to == "contract" && !external:
		return "the root package never imports package companion (it names *sqsfake.Fake)"
	case (from == "root" || from == "contract") && to == "companion" && !external:
		return "the engine and the contract never import a companion"
	case from == "contract" && to != "root" && to != "bridge":
		return "package companion imports the root and internal/bridge only"
	case path == module+"/heartbeat" && test == "":
		return "heartbeat is production code: it depends on no package of the module"
	}
	return ""
}

// The root package's files, by layer: the engine, the doors onto it, the test aids over
// both, and the root's side of the companions' contract (contract.go).
const (
	engine = iota
	door
	aid
	contractSide
)

var layerNames = []string{"engine", "door", "test aid", "contract side"}

// layerOf says which layer a file of the root package belongs to (ARCHITECTURE.md).
func layerOf(file string) int {
	switch {
	case strings.HasPrefix(file, "wire_") || file == "client.go":
		return door
	case file == "contract.go":
		return contractSide
	}
	for _, a := range testAids {
		if file == a {
			return aid
		}
	}
	return engine
}

// testAids are the files of the test aids (ARCHITECTURE.md): inspection, timelines, the call
// record, assertions, faults, waiting, the console.
var testAids = []string{"inspect.go", "inspect_due.go", "history.go", "console.go", "calls.go", "calllog.go",
	"assertions.go", "assertions_calls.go", "faults.go", "idle.go"}

// fileRule checks the root package's files: an engine file names nothing a door declares
// (where the wire knows something the engine needs, the engine defines the notion and the
// wire fills it in); neither an engine nor a door file calls a test aid's exported function
// or method — the aids are a layer over both, and the engine keeps the record, the history
// and the faults through the aids' unexported plumbing and shared vocabulary (Door,
// EventKind) only; no file names what contract.go, the root's side of the companions'
// contract, declares.
func fileRule(dir string) []string {
	fset := token.NewFileSet()
	names, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	var files []*ast.File
	for _, n := range names {
		if strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, nil, parser.SkipObjectResolution)
		if err != nil {
			return []string{err.Error()}
		}
		files = append(files, f)
	}
	// Only the package's own names matter: imports are empty packages, and the type errors
	// they cause are ignored.
	conf := types.Config{
		Importer: importerFunc(func(path string) (*types.Package, error) {
			return types.NewPackage(path, filepath.Base(path)), nil
		}),
		Error: func(error) {},
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf.Check(module, fset, files, info)
	seen := map[string]bool{}
	var breaches []string
	report := func(id *ast.Ident, obj types.Object) {
		if obj == nil || obj.Pkg() == nil || obj.Pkg().Path() != module || !obj.Pos().IsValid() {
			return
		}
		use := filepath.Base(fset.Position(id.Pos()).Filename)
		decl := filepath.Base(fset.Position(obj.Pos()).Filename)
		from, to := layerOf(use), layerOf(decl)
		fn, _ := obj.(*types.Func)
		api := fn != nil && fn.Exported() // a test aid's user API: a function or method a test calls
		var ok bool
		switch from {
		case engine:
			ok = to == engine || to == aid && !api
		case door:
			ok = to == engine || to == door || to == aid && !api
		case aid:
			ok = to != contractSide
		case contractSide:
			ok = true
		}
		if ok {
			return
		}
		b := fmt.Sprintf("%s (%s) names %s of %s (%s)", use, layerNames[from], obj.Name(), decl, layerNames[to])
		if !seen[b] {
			seen[b] = true
			breaches = append(breaches, fmt.Sprintf("%s:%d: %s", use, fset.Position(id.Pos()).Line, b))
		}
	}
	for id, obj := range info.Uses {
		report(id, obj)
	}
	for sel, s := range info.Selections {
		report(sel.Sel, s.Obj())
	}
	sort.Strings(breaches)
	return breaches
}

type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }
