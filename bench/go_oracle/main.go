// The oracle of bench/who_uses_go_bench.py: for every function and method a Go module declares, the
// positions go/types resolves to it (its uses), as JSON on stdout. Usage: go_oracle MODULE_ROOT
package main

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

type pkgKey struct{ dir, name string }

var (
	fset    = token.NewFileSet()
	root    string
	module  string
	parsed  = map[pkgKey][]*ast.File{}
	checked = map[string]*types.Package{}
	infos   []*types.Info
)

type imp struct{}

func (imp) Import(path string) (*types.Package, error) { return imp{}.ImportFrom(path, "", 0) }
func (imp) ImportFrom(path, dir string, mode types.ImportMode) (*types.Package, error) {
	if p, ok := checked[path]; ok {
		return p, nil
	}
	if !strings.HasPrefix(path, module) {
		return nil, fmt.Errorf("outside the module: %s", path)
	}
	d := filepath.Join(root, strings.TrimPrefix(strings.TrimPrefix(path, module), "/"))
	for k, files := range parsed {
		if k.dir == d && !strings.HasSuffix(k.name, "_test") {
			return check(path, files), nil
		}
	}
	return nil, fmt.Errorf("no package at %s", d)
}

func check(path string, files []*ast.File) *types.Package {
	if p, ok := checked[path]; ok {
		return p
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}, Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: imp{}, Error: func(error) {}, FakeImportC: true}
	p, _ := conf.Check(path, fset, files, info)
	checked[path] = p
	infos = append(infos, info)
	return p
}

type ref struct {
	Path string `json:"path"`
	Line int    `json:"line"`
}
type def struct {
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Name     string `json:"name"`
	Receiver string `json:"receiver"`
	Refs     []ref  `json:"refs"`
}

func rel(pos token.Pos) (string, int) {
	p := fset.Position(pos)
	r, _ := filepath.Rel(root, p.Filename)
	return filepath.ToSlash(r), p.Line
}

func main() {
	root, _ = filepath.Abs(os.Args[1])
	mod, _ := os.ReadFile(filepath.Join(root, "go.mod"))
	module = strings.TrimSpace(strings.TrimPrefix(strings.SplitN(string(mod), "\n", 2)[0], "module"))
	filepath.Walk(root, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return nil
		}
		if fi.IsDir() && (strings.HasPrefix(fi.Name(), ".") || fi.Name() == "testdata" || fi.Name() == "vendor") && p != root {
			return filepath.SkipDir
		}
		if !fi.IsDir() && strings.HasSuffix(p, ".go") {
			f, err := parser.ParseFile(fset, p, nil, parser.ParseComments)
			if f == nil {
				fmt.Fprintln(os.Stderr, err)
				return nil
			}
			k := pkgKey{filepath.Dir(p), f.Name.Name}
			parsed[k] = append(parsed[k], f)
		}
		return nil
	})
	keys := make([]pkgKey, 0, len(parsed))
	for k := range parsed {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].dir+keys[i].name < keys[j].dir+keys[j].name })
	for _, k := range keys {
		r, _ := filepath.Rel(root, k.dir)
		path := module
		if r != "." {
			path = module + "/" + filepath.ToSlash(r)
		}
		if strings.HasSuffix(k.name, "_test") {
			path += "_test"
		}
		check(path, parsed[k])
	}
	defs := map[types.Object]*def{}
	var order []types.Object
	for _, info := range infos {
		for id, obj := range info.Defs {
			fn, ok := obj.(*types.Func)
			if !ok || id.Name == "_" {
				continue
			}
			p, l := rel(id.Pos())
			d := &def{Path: p, Line: l, Name: id.Name}
			if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil {
				t := sig.Recv().Type()
				if pt, ok := t.(*types.Pointer); ok {
					t = pt.Elem()
				}
				if nt, ok := t.(*types.Named); ok {
					d.Receiver = nt.Obj().Name()
				}
			}
			defs[obj] = d
			order = append(order, obj)
		}
	}
	for _, info := range infos {
		for id, obj := range info.Uses {
			if f, ok := obj.(*types.Func); ok {
				obj = f.Origin()
			}
			if d, ok := defs[obj]; ok {
				p, l := rel(id.Pos())
				d.Refs = append(d.Refs, ref{p, l})
			}
		}
	}
	out := []*def{}
	for _, o := range order {
		out = append(out, defs[o])
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	json.NewEncoder(os.Stdout).Encode(out)
}
