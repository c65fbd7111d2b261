// Package goglsl translates a package written in a restricted subset of Go
// into GLSL, so that shading the CPU runs natively is the GPU's too,
// written once (render/kernel).
//
// The subset:
//
//   - types: float32 and float64 (both GLSL float: what Go computes in
//     float64 the GPU computes in float32), int and int32 (int), uint32
//     (uint), bool, scene.Vec3 (vec3), arrays of these ([4]float32 is
//     float[4]), the package's struct types (GLSL structs, declared in
//     the translation) and render/layout's (declared in its header);
//   - package-level constants, struct types and functions; methods of the
//     package's struct types (GLSL functions named by type and method:
//     HairBSDF.Eval is hairBSDFEval, its receiver the first parameter);
//   - a pointer parameter or receiver is the value it points to: in where
//     the function (or a function it passes it to) never writes through
//     it, inout where it does; &x is x;
//   - several results are out parameters after the others (the function
//     returns void), named results declared zero as Go declares them; a
//     call of several results is a statement (a, b := f(x) or
//     a, b = f(x); _ for what is not kept) or returned whole;
//   - statements :=, =, op=, ++, --, var, if/else (with an init), for in
//     its three forms and over an integer or an array (range), switch
//     with or without a tag (an if chain: no break or fallthrough in it),
//     break, continue, return and blocks; several assignments at once go
//     through temporaries, as Go assigns every right side first;
//   - arithmetic, comparison, logical and (on integers) bit operators;
//     conversions; the builtins min and max; the vector's X, Y, Z, Add,
//     Sub, Mul3, Scale, Dot, Cross, Length, Normalize, Min and Max; the
//     math functions Sqrt, Abs, Floor, Ceil, Exp, Exp2, Log, Log2, Tan,
//     Sinh, Cosh and, as shaders/gomath.glsl writes them to Go's precision
//     (a driver's may be thousands of ulps off, or promise nothing outside
//     [−π, π]), Sin, Cos, Sincos, Pow, Asin, Atan and Atan2.
//
// A constant expression, a math function of constants included, is
// written as its value rounded to float32 (math.Pi·2 as the float32 Go
// folds it to), so the GPU computes with the CPU's constants. Anything
// else is an error naming the file and line.
//
// Names are the Go names with their first word lower-cased (SmithV →
// smithV, GGXDAniso → ggxdAniso), and the functions are written callees
// first, as GLSL wants them declared before use.
//
// Where the GPU may still differ from the Go, by GLSL's leave rather than
// the translation's (the probes bound what the shading meets of it): a
// driver may fuse a·b + c into one rounding where Go rounds twice (no
// precise qualifier is written); min and max of a NaN are undefined, where
// Go's are NaN; a shift by 32 or more is undefined, where Go's gives 0 or
// −1; int is 32 bits; a variable passed both as an inout and an out
// argument of one call is copied back in an undefined order. % on signed
// integers is refused (GLSL's takes the divisor's sign).
package goglsl

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/constant"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// The packages whose names the subset may use: math's functions, the
// scene's vector and the layout's structs and constants.
const (
	scenePath  = "sertrace/scene"
	layoutPath = "sertrace/render/layout"
)

// Ignore is the directive that keeps a file of the package out of the
// translation: Go the CPU alone runs. A function of such a file that a
// translated one calls is the GPU's to provide, by the same name (a
// table's lookup, which reads a buffer there): the translation declares
// its prototype, and the shader that includes it defines it.
const Ignore = "//goglsl:ignore"

// Translate translates the Go files of the package in dir (tests and the
// files marked Ignore left out) into GLSL. guard names the include guard.
// vars gives the values of the render/layout variables the package reads
// (by their Go names, layout.XYZToRec709): each is written as a GLSL
// constant, an array or a float.
func Translate(dir, guard string, vars map[string][]float64) ([]byte, error) {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		return nil, err
	}
	if len(pkgs) != 1 {
		return nil, fmt.Errorf("%s: want one package, found %d", dir, len(pkgs))
	}
	var files []*ast.File
	for _, p := range pkgs {
		for _, f := range p.Files {
			files = append(files, f)
		}
	}
	sort.Slice(files, func(i, j int) bool { return fset.File(files[i].Pos()).Name() < fset.File(files[j].Pos()).Name() })
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
	pkg, err := conf.Check(files[0].Name.Name, fset, files, info)
	if err != nil {
		return nil, err
	}
	t := &translator{fset: fset, info: info, pkg: pkg, funcs: map[string]*function{}, calls: map[string][]string{},
		bodies: map[string]string{}, structs: map[string]string{}, names: map[string]string{}, vars: vars, varUsed: map[string]bool{}}
	// Every declaration first, so that a function may call one declared
	// after it; then the bodies.
	for _, f := range files {
		if ignored(f) {
			if err := t.externs(f); err != nil {
				return nil, err
			}
			continue
		}
		if err := t.declarations(f); err != nil {
			return nil, err
		}
	}
	for _, key := range t.order {
		if err := t.function(t.funcs[key]); err != nil {
			return nil, err
		}
	}
	for _, key := range t.externOrder {
		if !t.called[key] {
			continue
		}
		fn := t.funcs[key]
		t.fn, t.out = fn, &bytes.Buffer{}
		head, _, err := t.signature(fn)
		if err != nil {
			return nil, err
		}
		t.bodies[key] = head + ";\n"
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "// Code generated by sertrace's goglsl from package %s; DO NOT EDIT.\n", pkg.Name())
	fmt.Fprintf(&b, "#ifndef %s\n#define %s\n", guard, guard)
	for _, c := range t.consts {
		b.WriteString(c)
	}
	for _, name := range t.varOrder {
		b.WriteString(t.varDecls[name])
	}
	if len(t.consts)+len(t.varOrder) > 0 {
		b.WriteString("\n")
	}
	done := map[string]bool{}
	var emitStruct func(name string)
	emitStruct = func(name string) {
		if done["type "+name] {
			return
		}
		done["type "+name] = true
		for _, dep := range t.structDeps[name] {
			emitStruct(dep)
		}
		b.WriteString(t.structs[name])
	}
	for _, name := range t.structOrder {
		emitStruct(name)
	}
	// The GPU's own functions that translated ones call: prototypes.
	var externs []string
	for _, key := range t.externOrder {
		if t.called[key] {
			externs = append(externs, key)
		}
	}
	if len(externs) > 0 {
		b.WriteString("// Provided by the shader that includes this file (Go's are in files marked goglsl:ignore).\n")
		for _, key := range externs {
			b.WriteString(t.bodies[key])
			done[key] = true
		}
		b.WriteString("\n")
	}
	// Callees first; a cycle is recursion, which GLSL forbids.
	visiting := map[string]bool{}
	var emit func(key string) error
	emit = func(key string) error {
		if visiting[key] {
			return t.errorAt(t.funcs[key].decl, "%s calls itself: recursion is outside the GLSL subset", key)
		}
		if done[key] {
			return nil
		}
		visiting[key] = true
		for _, callee := range t.calls[key] {
			if err := emit(callee); err != nil {
				return err
			}
		}
		visiting[key], done[key] = false, true
		b.WriteString(t.bodies[key])
		return nil
	}
	for _, key := range t.order {
		if err := emit(key); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(&b, "#endif // %s\n", guard)
	return b.Bytes(), nil
}

type translator struct {
	fset        *token.FileSet
	info        *types.Info
	pkg         *types.Package
	funcs       map[string]*function // by key: F, or T.M for a method
	order       []string             // the functions' keys in source order
	calls       map[string][]string  // each function's callees in the package
	bodies      map[string]string
	consts      []string
	structs     map[string]string   // each struct's GLSL declaration
	structOrder []string            // in source order
	structDeps  map[string][]string // the package's structs each struct holds
	externOrder []string            // the ignored files' functions
	names       map[string]string   // GLSL names given, and to what
	vars        map[string][]float64
	varUsed     map[string]bool
	varOrder    []string
	varDecls    map[string]string
	called      map[string]bool // the functions some translated function calls
	// the function being translated
	fn     *function
	indent int
	out    *bytes.Buffer
	temps  int
}

// function is a function or method of the package.
type function struct {
	key, glsl string
	decl      *ast.FuncDecl
	sig       *types.Signature
	recv      *types.Var          // nil for a function
	outs      []string            // the out parameters' names, for several results
	named     string              // a single named result's name
	idents    map[string]bool     // the GLSL names of its identifiers, which temporaries avoid
	written   map[*types.Var]bool // pointer parameters written through, once known
	visiting  bool
	extern    bool // in an ignored file: the GPU provides it
}

// ignored reports whether a file carries the Ignore directive before its
// package clause.
func ignored(f *ast.File) bool {
	for _, g := range f.Comments {
		if g.Pos() > f.Package {
			break
		}
		for _, c := range g.List {
			if strings.TrimSpace(c.Text) == Ignore {
				return true
			}
		}
	}
	return false
}

// externs declares the functions of an ignored file: a translated
// function may call them, and the GPU provides them.
func (t *translator) externs(f *ast.File) error {
	for _, d := range f.Decls {
		d, ok := d.(*ast.FuncDecl)
		if !ok || d.Recv != nil || d.Type.TypeParams != nil {
			continue
		}
		if err := t.funcDecl(d); err != nil {
			return err
		}
		fn := t.funcs[d.Name.Name]
		fn.extern = true
		t.order = t.order[:len(t.order)-1]
		t.externOrder = append(t.externOrder, fn.key)
	}
	return nil
}

// errorAt is an error naming the file and line of n.
func (t *translator) errorAt(n ast.Node, format string, args ...any) error {
	p := t.fset.Position(n.Pos())
	return fmt.Errorf("%s:%d: %s", filepath.Base(p.Filename), p.Line, fmt.Sprintf(format, args...))
}

// give claims a GLSL name for what: two Go names that GLSL would write
// alike (Foo and foo) are an error.
func (t *translator) give(at ast.Node, name, what string) error {
	if prev, ok := t.names[name]; ok {
		return t.errorAt(at, "%s and %s are both %s in GLSL", prev, what, name)
	}
	t.names[name] = what
	return nil
}

func (t *translator) declarations(f *ast.File) error {
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path != "math" && path != scenePath && path != layoutPath {
			return t.errorAt(imp, "import %s is outside the GLSL subset", path)
		}
	}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.GenDecl:
			switch d.Tok {
			case token.IMPORT:
			case token.CONST:
				if err := t.constDecl(d); err != nil {
					return err
				}
			case token.TYPE:
				if err := t.typeDecl(d); err != nil {
					return err
				}
			default:
				return t.errorAt(d, "a package-level %s declaration is outside the GLSL subset", d.Tok)
			}
		case *ast.FuncDecl:
			if err := t.funcDecl(d); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *translator) constDecl(d *ast.GenDecl) error {
	for _, s := range d.Specs {
		for _, name := range s.(*ast.ValueSpec).Names {
			obj := t.info.Defs[name].(*types.Const)
			if basic, ok := obj.Type().(*types.Basic); ok && basic.Info()&types.IsUntyped != 0 {
				continue // untyped constants are written where they are used
			}
			typ, err := t.glslType(name, obj.Type())
			if err != nil {
				return err
			}
			lit, err := t.literal(name, obj.Val(), obj.Type())
			if err != nil {
				return err
			}
			if err := t.give(name, glslName(name.Name), "constant "+name.Name); err != nil {
				return err
			}
			t.consts = append(t.consts, fmt.Sprintf("const %s %s = %s;\n", typ, glslName(name.Name), lit))
		}
	}
	return nil
}

func (t *translator) typeDecl(d *ast.GenDecl) error {
	if t.structDeps == nil {
		t.structDeps = map[string][]string{}
	}
	for _, s := range d.Specs {
		ts := s.(*ast.TypeSpec)
		st, ok := t.info.Defs[ts.Name].Type().Underlying().(*types.Struct)
		if !ok || ts.TypeParams != nil || ts.Assign != 0 {
			return t.errorAt(ts, "type %s: only struct types are in the GLSL subset", ts.Name.Name)
		}
		if err := t.give(ts, ts.Name.Name, "type "+ts.Name.Name); err != nil {
			return err
		}
		var b bytes.Buffer
		doc := ts.Doc
		if doc == nil {
			doc = d.Doc
		}
		writeDoc(&b, doc)
		fmt.Fprintf(&b, "struct %s {\n", ts.Name.Name)
		for i := range st.NumFields() {
			f := st.Field(i)
			if f.Embedded() {
				return t.errorAt(ts, "type %s: an embedded field is outside the GLSL subset", ts.Name.Name)
			}
			typ, err := t.glslType(ts, f.Type())
			if err != nil {
				return err
			}
			if n, ok := elemOf(f.Type()).(*types.Named); ok && n.Obj().Pkg() == t.pkg {
				t.structDeps[ts.Name.Name] = append(t.structDeps[ts.Name.Name], n.Obj().Name())
			}
			fmt.Fprintf(&b, "    %s %s;\n", typ, glslName(f.Name()))
		}
		b.WriteString("};\n\n")
		t.structs[ts.Name.Name] = b.String()
		t.structOrder = append(t.structOrder, ts.Name.Name)
	}
	return nil
}

// elemOf is an array's element type, or typ.
func elemOf(typ types.Type) types.Type {
	if a, ok := typ.(*types.Array); ok {
		return a.Elem()
	}
	return typ
}

func writeDoc(b *bytes.Buffer, doc *ast.CommentGroup) {
	if doc != nil {
		for _, c := range doc.List {
			b.WriteString(c.Text + "\n")
		}
	}
}

func (t *translator) funcDecl(d *ast.FuncDecl) error {
	if d.Type.TypeParams != nil {
		return t.errorAt(d, "generic function %s is outside the GLSL subset", d.Name.Name)
	}
	obj := t.info.Defs[d.Name].(*types.Func)
	sig := obj.Type().(*types.Signature)
	fn := &function{key: d.Name.Name, glsl: glslName(d.Name.Name), decl: d, sig: sig, idents: map[string]bool{}}
	ast.Inspect(d, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			fn.idents[glslName(id.Name)] = true
		}
		return true
	})
	if d.Recv != nil {
		fn.recv = sig.Recv()
		named, ok := derefType(fn.recv.Type()).(*types.Named)
		if !ok {
			return t.errorAt(d, "method %s: a receiver of type %s is outside the GLSL subset", d.Name.Name, fn.recv.Type())
		}
		fn.key = named.Obj().Name() + "." + d.Name.Name
		fn.glsl = LowerFirst(named.Obj().Name()) + strings.ToUpper(d.Name.Name[:1]) + d.Name.Name[1:]
	}
	if err := t.give(d, fn.glsl, "func "+fn.key); err != nil {
		return err
	}
	if n := sig.Results().Len(); n > 1 {
		// The out parameters take names of their own, which no Go name
		// shadows; named results are locals copied to them at a return.
		for i := range n {
			name := fmt.Sprintf("result%d", i)
			for fn.idents[name] {
				name += "_"
			}
			fn.outs = append(fn.outs, name)
		}
	} else if n == 1 && sig.Results().At(0).Name() != "" {
		fn.named = glslName(sig.Results().At(0).Name())
	}
	t.funcs[fn.key] = fn
	t.order = append(t.order, fn.key)
	return nil
}

func derefType(typ types.Type) types.Type {
	if p, ok := typ.(*types.Pointer); ok {
		return p.Elem()
	}
	return typ
}

// function translates fn's body.
func (t *translator) function(fn *function) error {
	t.fn, t.indent, t.out, t.temps = fn, 1, &bytes.Buffer{}, 0
	head, zeros, err := t.signature(fn)
	if err != nil {
		return err
	}
	for _, z := range zeros {
		t.line("%s", z)
	}
	for _, s := range fn.decl.Body.List {
		if err := t.stmt(s); err != nil {
			return err
		}
	}
	var b bytes.Buffer
	writeDoc(&b, fn.decl.Doc)
	b.WriteString(head + " {\n")
	b.Write(t.out.Bytes())
	b.WriteString("}\n\n")
	t.bodies[fn.key] = b.String()
	return nil
}

// signature is fn's GLSL head, and the statements that declare its named
// results zero.
func (t *translator) signature(fn *function) (string, []string, error) {
	d, sig := fn.decl, fn.sig
	result := "void"
	if sig.Results().Len() == 1 {
		r, err := t.glslType(d.Type.Results, sig.Results().At(0).Type())
		if err != nil {
			return "", nil, err
		}
		result = r
	}
	var params []string
	param := func(v *types.Var, at ast.Node, unnamed int) error {
		typ, err := t.glslType(at, derefType(v.Type()))
		if err != nil {
			return err
		}
		name := v.Name()
		if name == "" || name == "_" {
			name = fmt.Sprintf("unused%d", unnamed)
		}
		qual := ""
		if _, ptr := v.Type().(*types.Pointer); ptr {
			written, err := t.writes(fn, v)
			if err != nil {
				return err
			}
			if written {
				qual = "inout "
			}
		}
		params = append(params, qual+typ+" "+glslName(name))
		return nil
	}
	if fn.recv != nil {
		if err := param(fn.recv, d.Recv, 0); err != nil {
			return "", nil, err
		}
	}
	for i := range sig.Params().Len() {
		if err := param(sig.Params().At(i), d.Type.Params, i); err != nil {
			return "", nil, err
		}
	}
	var zeros []string
	for i, name := range fn.outs {
		r := sig.Results().At(i)
		typ, err := t.glslType(d.Type.Results, r.Type())
		if err != nil {
			return "", nil, err
		}
		params = append(params, "out "+typ+" "+name)
		if r.Name() != "" && r.Name() != "_" {
			zeros = append(zeros, fmt.Sprintf("%s %s = %s;", typ, glslName(r.Name()), t.zero(r.Type())))
		}
	}
	if fn.named != "" {
		zeros = append(zeros, fmt.Sprintf("%s %s = %s;", result, fn.named, t.zero(sig.Results().At(0).Type())))
	}
	return fmt.Sprintf("%s %s(%s)", result, fn.glsl, strings.Join(params, ", ")), zeros, nil
}

// writes reports whether fn writes through its pointer parameter (or
// receiver) v, itself or by passing it to a function that does.
func (t *translator) writes(fn *function, v *types.Var) (bool, error) {
	if fn.written == nil {
		if fn.visiting {
			return false, t.errorAt(fn.decl, "%s calls itself: recursion is outside the GLSL subset", fn.key)
		}
		fn.visiting = true
		defer func() { fn.visiting = false }()
		written := map[*types.Var]bool{}
		var err error
		mark := func(e ast.Expr) {
			if r := t.root(e); r != nil {
				written[r] = true
			}
		}
		ast.Inspect(fn.decl.Body, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.AssignStmt:
				for _, l := range n.Lhs {
					mark(l)
				}
			case *ast.IncDecStmt:
				mark(n.X)
			case *ast.CallExpr:
				callee, recv := t.callee(n)
				if callee == nil || callee == fn {
					if callee == fn {
						err = t.errorAt(n, "%s calls itself: recursion is outside the GLSL subset", fn.key)
					}
					return true
				}
				check := func(arg ast.Expr, p *types.Var) {
					if _, ptr := p.Type().(*types.Pointer); !ptr || err != nil {
						return
					}
					r := t.root(arg)
					if r == nil {
						return
					}
					w, e := t.writes(callee, p)
					if e != nil {
						err = e
					}
					if w {
						written[r] = true
					}
				}
				if recv != nil {
					check(recv, callee.recv)
				}
				for i, a := range n.Args {
					if i < callee.sig.Params().Len() {
						check(a, callee.sig.Params().At(i))
					}
				}
			}
			return true
		})
		if err != nil {
			return false, err
		}
		fn.written = written
	}
	return fn.written[v], nil
}

// root is the variable an expression such as x.f[i], *x or &x is a part
// of, nil if none.
func (t *translator) root(e ast.Expr) *types.Var {
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.UnaryExpr:
			if x.Op != token.AND {
				return nil
			}
			e = x.X
		case *ast.Ident:
			v, _ := t.info.Uses[x].(*types.Var)
			return v
		default:
			return nil
		}
	}
}

// callee is the package's function or method a call calls, and for a
// method the receiver expression; nil for any other call.
func (t *translator) callee(e *ast.CallExpr) (*function, ast.Expr) {
	switch fun := ast.Unparen(e.Fun).(type) {
	case *ast.Ident:
		if obj, ok := t.info.Uses[fun].(*types.Func); ok && obj.Pkg() == t.pkg {
			return t.funcs[fun.Name], nil
		}
	case *ast.SelectorExpr:
		sel := t.info.Selections[fun]
		if sel == nil || sel.Kind() != types.MethodVal {
			return nil, nil
		}
		if named, ok := derefType(sel.Recv()).(*types.Named); ok && named.Obj().Pkg() == t.pkg {
			return t.funcs[named.Obj().Name()+"."+fun.Sel.Name], fun.X
		}
	}
	return nil, nil
}

func (t *translator) line(format string, args ...any) {
	t.out.WriteString(strings.Repeat("    ", t.indent))
	fmt.Fprintf(t.out, format, args...)
	t.out.WriteString("\n")
}

func (t *translator) temp() string {
	for {
		t.temps++
		name := fmt.Sprintf("tmp%d", t.temps)
		if !t.fn.idents[name] {
			return name
		}
	}
}

func (t *translator) block(list []ast.Stmt) error {
	t.indent++
	defer func() { t.indent-- }()
	for _, s := range list {
		if err := t.stmt(s); err != nil {
			return err
		}
	}
	return nil
}

// scoped writes an init statement and then what follows in a block of
// their own, as Go scopes an if's or a switch's init.
func (t *translator) scoped(init ast.Stmt, body func() error) error {
	if init == nil {
		return body()
	}
	t.line("{")
	t.indent++
	err := t.stmt(init)
	if err == nil {
		err = body()
	}
	t.indent--
	t.line("}")
	return err
}

func (t *translator) stmt(s ast.Stmt) error {
	switch s := s.(type) {
	case *ast.ReturnStmt:
		return t.returnStmt(s)
	case *ast.AssignStmt:
		return t.assign(s)
	case *ast.IncDecStmt:
		x, err := t.expr(s.X)
		if err != nil {
			return err
		}
		t.line("%s%s;", x, s.Tok)
	case *ast.IfStmt:
		return t.scoped(s.Init, func() error { return t.ifStmt(s, false) })
	case *ast.ForStmt:
		return t.forStmt(s)
	case *ast.RangeStmt:
		return t.rangeStmt(s)
	case *ast.SwitchStmt:
		return t.scoped(s.Init, func() error { return t.switchStmt(s) })
	case *ast.BranchStmt:
		if s.Label != nil || (s.Tok != token.BREAK && s.Tok != token.CONTINUE) {
			return t.errorAt(s, "%s is outside the GLSL subset", s.Tok)
		}
		t.line("%s;", s.Tok)
	case *ast.BlockStmt:
		t.line("{")
		if err := t.block(s.List); err != nil {
			return err
		}
		t.line("}")
	case *ast.ExprStmt:
		call, ok := s.X.(*ast.CallExpr)
		if !ok {
			return t.errorAt(s, "an expression statement other than a call is outside the GLSL subset")
		}
		return t.callStmt(call, make([]ast.Expr, t.results(call)), token.ASSIGN)
	case *ast.DeclStmt:
		return t.declStmt(s)
	case *ast.EmptyStmt:
	default:
		return t.errorAt(s, "a %T is outside the GLSL subset", s)
	}
	return nil
}

func (t *translator) declStmt(s *ast.DeclStmt) error {
	g, ok := s.Decl.(*ast.GenDecl)
	if !ok || (g.Tok != token.VAR && g.Tok != token.CONST) {
		return t.errorAt(s, "this declaration is outside the GLSL subset")
	}
	if g.Tok == token.CONST {
		return nil // every use of a constant is written as its value
	}
	for _, spec := range g.Specs {
		vs := spec.(*ast.ValueSpec)
		if len(vs.Values) == 1 && len(vs.Names) > 1 {
			lhs := make([]ast.Expr, len(vs.Names))
			for i, n := range vs.Names {
				lhs[i] = n
			}
			if err := t.callStmt(vs.Values[0].(*ast.CallExpr), lhs, token.DEFINE); err != nil {
				return err
			}
			continue
		}
		if len(vs.Names) > 1 && len(vs.Values) > 0 {
			// var a, b = x, y: as a, b := x, y (several at once).
			lhs := make([]ast.Expr, len(vs.Names))
			for i, n := range vs.Names {
				lhs[i] = n
			}
			if err := t.assign(&ast.AssignStmt{Lhs: lhs, Tok: token.DEFINE, Rhs: vs.Values, TokPos: vs.Pos()}); err != nil {
				return err
			}
			continue
		}
		for i, name := range vs.Names {
			obj := t.info.Defs[name]
			typ, err := t.glslType(name, obj.Type())
			if err != nil {
				return err
			}
			v := t.zero(obj.Type())
			if i < len(vs.Values) {
				if v, err = t.expr(vs.Values[i]); err != nil {
					return err
				}
			}
			if name.Name == "_" {
				continue
			}
			t.line("%s %s = %s;", typ, glslName(name.Name), v)
		}
	}
	return nil
}

// results is how many results a call has.
func (t *translator) results(call *ast.CallExpr) int {
	switch typ := t.info.Types[call].Type.(type) {
	case *types.Tuple:
		return typ.Len()
	case nil:
		return 0
	}
	return 1
}

func (t *translator) returnStmt(s *ast.ReturnStmt) error {
	fn := t.fn
	switch {
	case len(s.Results) == 0 && fn.named != "":
		t.line("return %s;", fn.named)
		return nil
	case len(s.Results) == 0 && len(fn.outs) > 0:
		// The named results, as they are.
		for i, out := range fn.outs {
			r := fn.sig.Results().At(i)
			v := t.zero(r.Type())
			if r.Name() != "_" {
				v = glslName(r.Name())
			}
			t.line("%s = %s;", out, v)
		}
		t.line("return;")
		return nil
	case len(s.Results) == 0:
		t.line("return;")
		return nil
	case len(fn.outs) == 0:
		e, err := t.expr(s.Results[0])
		if err != nil {
			return err
		}
		t.line("return %s;", stripParens(e))
		return nil
	}
	if len(s.Results) == 1 {
		// return f(x), f of the same several results
		call, ok := ast.Unparen(s.Results[0]).(*ast.CallExpr)
		if !ok {
			return t.errorAt(s, "this return is outside the GLSL subset")
		}
		args, err := t.call(call)
		if err != nil {
			return err
		}
		t.line("%s;", withOuts(args, fn.outs))
		t.line("return;")
		return nil
	}
	// No Go name is an out parameter's, so each goes straight to its own.
	for i, r := range s.Results {
		e, err := t.expr(r)
		if err != nil {
			return err
		}
		t.line("%s = %s;", fn.outs[i], stripParens(e))
	}
	t.line("return;")
	return nil
}

// withOuts is a translated call "f(a, b)" with the out arguments added.
func withOuts(call string, outs []string) string {
	if len(outs) == 0 {
		return call
	}
	open := strings.HasSuffix(call, "()")
	call = strings.TrimSuffix(call, ")")
	if !open {
		call += ", "
	}
	return call + strings.Join(outs, ", ") + ")"
}

// callStmt writes a call whose results go to lhs (nil entries and _ for
// those not kept), declaring the new ones for tok :=.
func (t *translator) callStmt(call *ast.CallExpr, lhs []ast.Expr, tok token.Token) error {
	n := t.results(call)
	if n != len(lhs) {
		return t.errorAt(call, "a call of %d results with %d kept is outside the GLSL subset", n, len(lhs))
	}
	if n <= 1 {
		c, err := t.expr(call)
		if err != nil {
			return err
		}
		if n == 0 || lhs[0] == nil {
			if n == 1 {
				c = "(" + c + ")" // a value not kept, as a statement
			}
			t.line("%s;", c)
			return nil
		}
		return t.assign(&ast.AssignStmt{Lhs: lhs, Tok: tok, Rhs: []ast.Expr{call}, TokPos: call.Pos()})
	}
	tuple := t.info.Types[call].Type.(*types.Tuple)
	if sel, ok := ast.Unparen(call.Fun).(*ast.SelectorExpr); ok {
		if pkg, ok := t.info.Uses[identOf(sel.X)].(*types.PkgName); ok && pkg.Imported().Path() == "math" && sel.Sel.Name == "Sincos" {
			// s, c := math.Sincos(x): sinGo and cosGo of x, kept once.
			x, err := t.expr(call.Args[0])
			if err != nil {
				return err
			}
			tmp := t.temp()
			t.line("float %s = %s;", tmp, stripParens(x))
			for i, l := range lhs {
				id, isIdent := l.(*ast.Ident)
				if l == nil || isIdent && id.Name == "_" {
					continue
				}
				v := []string{"sinGo", "cosGo"}[i] + "(" + tmp + ")"
				if isIdent && tok == token.DEFINE && t.info.Defs[id] != nil {
					t.line("float %s = %s;", glslName(id.Name), v)
					continue
				}
				dst, err := t.expr(l)
				if err != nil {
					return err
				}
				t.line("%s = %s;", dst, v)
			}
			return nil
		}
	}
	// A new variable that shadows one the call reads is declared after
	// the call, from a temporary: in GLSL it would shadow it already.
	shadows := t.mentions([]ast.Expr{call}, t.newNames(lhs, tok))
	outs := make([]string, n)
	var after []string
	for i, l := range lhs {
		typ, err := t.glslType(call, tuple.At(i).Type())
		if err != nil {
			return err
		}
		id, isIdent := l.(*ast.Ident)
		switch {
		case l == nil || isIdent && id.Name == "_":
			outs[i] = t.temp()
			t.line("%s %s;", typ, outs[i])
		case isIdent && tok == token.DEFINE && t.info.Defs[id] != nil:
			outs[i] = glslName(id.Name)
			if shadows {
				outs[i] = t.temp()
				after = append(after, fmt.Sprintf("%s %s = %s;", typ, glslName(id.Name), outs[i]))
			}
			t.line("%s %s;", typ, outs[i])
		default:
			x, err := t.expr(l)
			if err != nil {
				return err
			}
			outs[i] = x
		}
	}
	c, err := t.call(call)
	if err != nil {
		return err
	}
	t.line("%s;", withOuts(c, outs))
	for _, a := range after {
		t.line("%s", a)
	}
	return nil
}

// newNames are the GLSL names of the variables lhs declares with tok.
func (t *translator) newNames(lhs []ast.Expr, tok token.Token) map[string]bool {
	names := map[string]bool{}
	if tok != token.DEFINE {
		return names
	}
	for _, l := range lhs {
		if id, ok := l.(*ast.Ident); ok && id.Name != "_" && t.info.Defs[id] != nil {
			names[glslName(id.Name)] = true
		}
	}
	return names
}

// mentions reports whether the expressions use a variable by one of the
// names.
func (t *translator) mentions(list []ast.Expr, names map[string]bool) bool {
	found := false
	for _, e := range list {
		ast.Inspect(e, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				if v, isVar := t.info.Uses[id].(*types.Var); isVar && !v.IsField() && names[glslName(id.Name)] {
					found = true
				}
			}
			return !found
		})
	}
	return found
}

func (t *translator) assign(s *ast.AssignStmt) error {
	switch s.Tok {
	case token.ASSIGN, token.DEFINE, token.ADD_ASSIGN, token.SUB_ASSIGN, token.MUL_ASSIGN, token.QUO_ASSIGN:
	case token.AND_ASSIGN, token.OR_ASSIGN, token.XOR_ASSIGN, token.SHL_ASSIGN, token.SHR_ASSIGN, token.REM_ASSIGN:
		if err := t.integerOp(s, s.Tok, t.info.Types[s.Lhs[0]].Type); err != nil {
			return err
		}
	default:
		return t.errorAt(s, "%s is outside the GLSL subset", s.Tok)
	}
	if len(s.Rhs) == 1 && len(s.Lhs) > 1 {
		call, ok := ast.Unparen(s.Rhs[0]).(*ast.CallExpr)
		if !ok {
			return t.errorAt(s, "this assignment is outside the GLSL subset")
		}
		return t.callStmt(call, s.Lhs, s.Tok)
	}
	rhs := make([]string, len(s.Rhs))
	for i, r := range s.Rhs {
		e, err := t.expr(r)
		if err != nil {
			return err
		}
		rhs[i] = stripParens(e)
	}
	// Go assigns every right side before any left one: several at once
	// go through temporaries (unless every left side is new).
	if len(s.Lhs) > 1 {
		fresh := s.Tok == token.DEFINE && !t.mentions(s.Rhs, t.newNames(s.Lhs, s.Tok))
		for _, l := range s.Lhs {
			if id, ok := l.(*ast.Ident); !ok || t.info.Defs[id] == nil && id.Name != "_" {
				fresh = false
			}
		}
		if !fresh {
			for i, r := range s.Rhs {
				typ, err := t.glslType(r, t.info.Types[r].Type)
				if err != nil {
					return err
				}
				tmp := t.temp()
				t.line("%s %s = %s;", typ, tmp, rhs[i])
				rhs[i] = tmp
			}
		}
	}
	for i, l := range s.Lhs {
		id, isIdent := l.(*ast.Ident)
		if isIdent && id.Name == "_" {
			t.line("(%s);", rhs[i]) // evaluated all the same: it may write through a pointer
			continue
		}
		if s.Tok == token.DEFINE && isIdent {
			if obj := t.info.Defs[id]; obj != nil {
				typ, err := t.glslType(id, obj.Type())
				if err != nil {
					return err
				}
				t.line("%s %s = %s;", typ, glslName(id.Name), rhs[i])
				continue
			}
		}
		x, err := t.expr(l)
		if err != nil {
			return err
		}
		op := s.Tok.String()
		if s.Tok == token.DEFINE {
			op = "="
		}
		t.line("%s %s %s;", x, op, rhs[i])
	}
	return nil
}

func (t *translator) ifStmt(s *ast.IfStmt, chained bool) error {
	cond, err := t.expr(s.Cond)
	if err != nil {
		return err
	}
	cond = stripParens(cond)
	if chained {
		t.out.Truncate(t.out.Len() - 1) // the "}" line's newline: "} else if"
		fmt.Fprintf(t.out, " else if (%s) {\n", cond)
	} else {
		t.line("if (%s) {", cond)
	}
	if err := t.block(s.Body.List); err != nil {
		return err
	}
	t.line("}")
	switch e := s.Else.(type) {
	case nil:
	case *ast.IfStmt:
		if e.Init != nil {
			t.out.Truncate(t.out.Len() - 1)
			t.out.WriteString(" else {\n")
			t.indent++
			err := t.scoped(e.Init, func() error { return t.ifStmt(e, false) })
			t.indent--
			t.line("}")
			return err
		}
		return t.ifStmt(e, true)
	case *ast.BlockStmt:
		t.out.Truncate(t.out.Len() - 1)
		t.out.WriteString(" else {\n")
		if err := t.block(e.List); err != nil {
			return err
		}
		t.line("}")
	}
	return nil
}

// switchStmt writes a switch as an if chain, the default last.
func (t *translator) switchStmt(s *ast.SwitchStmt) error {
	tag := ""
	if s.Tag != nil {
		e, err := t.expr(s.Tag)
		if err != nil {
			return err
		}
		tag = e
		if _, simple := ast.Unparen(s.Tag).(*ast.Ident); !simple {
			typ, err := t.glslType(s.Tag, t.info.Types[s.Tag].Type)
			if err != nil {
				return err
			}
			tag = t.temp()
			t.line("%s %s = %s;", typ, tag, stripParens(e))
		}
	}
	var dflt *ast.CaseClause
	first := true
	for _, c := range s.Body.List {
		cc := c.(*ast.CaseClause)
		if err := t.noBreak(cc.Body); err != nil {
			return err
		}
		if cc.List == nil {
			dflt = cc
			continue
		}
		var conds []string
		for _, e := range cc.List {
			x, err := t.expr(e)
			if err != nil {
				return err
			}
			if tag != "" {
				if _, bin := ast.Unparen(e).(*ast.BinaryExpr); bin {
					x = "(" + stripParens(x) + ")"
				}
				x = tag + " == " + x
			}
			conds = append(conds, x)
		}
		cond := strings.Join(conds, " || ")
		if first {
			t.line("if (%s) {", stripParens(cond))
		} else {
			t.out.Truncate(t.out.Len() - 1)
			fmt.Fprintf(t.out, " else if (%s) {\n", stripParens(cond))
		}
		first = false
		if err := t.block(cc.Body); err != nil {
			return err
		}
		t.line("}")
	}
	if dflt != nil {
		if first {
			t.line("{")
		} else {
			t.out.Truncate(t.out.Len() - 1)
			t.out.WriteString(" else {\n")
		}
		if err := t.block(dflt.Body); err != nil {
			return err
		}
		t.line("}")
	}
	return nil
}

// noBreak refuses a break or fallthrough of a switch's case (the if chain
// it becomes has nothing to break).
func (t *translator) noBreak(body []ast.Stmt) error {
	var err error
	for _, s := range body {
		ast.Inspect(s, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ForStmt, *ast.RangeStmt, *ast.FuncLit:
				return false
			case *ast.BranchStmt:
				if n.Tok == token.BREAK || n.Tok == token.FALLTHROUGH {
					err = t.errorAt(n, "%s in a switch is outside the GLSL subset", n.Tok)
				}
			}
			return err == nil
		})
	}
	return err
}

func (t *translator) forStmt(s *ast.ForStmt) error {
	cond := "true"
	if s.Cond != nil {
		c, err := t.expr(s.Cond)
		if err != nil {
			return err
		}
		cond = stripParens(c)
	}
	if s.Init == nil && s.Post == nil {
		t.line("while (%s) {", cond)
	} else {
		// The clauses as one-line statements.
		clause := func(st ast.Stmt) (string, error) {
			if st == nil {
				return "", nil
			}
			saved, indent := t.out, t.indent
			t.out, t.indent = &bytes.Buffer{}, 0
			defer func() { t.out, t.indent = saved, indent }()
			if err := t.stmt(st); err != nil {
				return "", err
			}
			line := strings.TrimSuffix(strings.TrimSpace(t.out.String()), ";")
			if strings.Contains(line, "\n") {
				return "", t.errorAt(st, "this loop clause is outside the GLSL subset")
			}
			return line, nil
		}
		init, err := clause(s.Init)
		if err != nil {
			return err
		}
		post, err := clause(s.Post)
		if err != nil {
			return err
		}
		t.line("for (%s; %s; %s) {", init, cond, post)
	}
	if err := t.block(s.Body.List); err != nil {
		return err
	}
	t.line("}")
	return nil
}

// rangeStmt writes a range over an integer or an array as a counted loop.
func (t *translator) rangeStmt(s *ast.RangeStmt) error {
	if s.Tok == token.ASSIGN {
		return t.errorAt(s, "a range assigning variables declared before it is outside the GLSL subset")
	}
	typ := t.info.Types[s.X].Type
	n, arr := "", ""
	switch u := derefType(typ).Underlying().(type) {
	case *types.Array:
		n = strconv.FormatInt(u.Len(), 10)
		if id, ok := s.Value.(*ast.Ident); ok && id.Name != "_" {
			// Go ranges over a copy of the array, made once before the loop.
			x, err := t.expr(s.X)
			if err != nil {
				return err
			}
			name, err := t.glslType(s.X, derefType(typ))
			if err != nil {
				return err
			}
			tmp := t.temp()
			t.line("%s %s = %s;", name, tmp, stripParens(x))
			arr = tmp
		}
	case *types.Basic:
		if u.Info()&types.IsInteger == 0 {
			return t.errorAt(s, "a range over %s is outside the GLSL subset", typ)
		}
		x, err := t.expr(s.X)
		if err != nil {
			return err
		}
		n = x
		if t.info.Types[s.X].Value == nil {
			// Go evaluates the count once, before the loop.
			name, err := t.glslType(s.X, typ)
			if err != nil {
				return err
			}
			n = t.temp()
			t.line("%s %s = %s;", name, n, stripParens(x))
		}
	default:
		return t.errorAt(s, "a range over %s is outside the GLSL subset", typ)
	}
	key, keyType, zero := "", "int", "0"
	if id, ok := s.Key.(*ast.Ident); ok && id.Name != "_" {
		key = glslName(id.Name)
		kt, err := t.glslType(id, t.info.Defs[id].Type())
		if err != nil {
			return err
		}
		keyType, zero = kt, t.zero(t.info.Defs[id].Type())
		if kt == "uint" && !strings.HasSuffix(n, "u") && t.info.Types[s.X].Value != nil {
			n += "u"
		}
	} else {
		key = t.temp()
	}
	t.line("for (%s %s = %s; %s < %s; %s++) {", keyType, key, zero, key, n, key)
	t.indent++
	if id, ok := s.Value.(*ast.Ident); ok && id.Name != "_" {
		elem, err := t.glslType(id, t.info.Defs[id].Type())
		if err != nil {
			return err
		}
		x := arr
		if x == "" {
			var err error
			if x, err = t.expr(s.X); err != nil {
				return err
			}
		}
		t.line("%s %s = %s[%s];", elem, glslName(id.Name), x, key)
	}
	t.indent--
	if err := t.block(s.Body.List); err != nil {
		return err
	}
	t.line("}")
	return nil
}

// mathFuncs are the math package's functions in the subset, by Go name:
// GLSL's own, or shaders/gomath.glsl's twins of Go's.
var mathFuncs = map[string]string{"Sqrt": "sqrt", "Abs": "abs", "Floor": "floor", "Ceil": "ceil", "Exp": "exp", "Exp2": "exp2",
	"Log": "log", "Log2": "log2", "Sin": "sinGo", "Cos": "cosGo", "Tan": "tan", "Sinh": "sinh", "Cosh": "cosh",
	"Pow": "powGo", "Asin": "asinGo", "Atan": "atanGo", "Atan2": "atan2Go"}

// mathFold computes the math functions of constants, as Go does.
var mathFold = map[string]func(a []float64) float64{
	"Sqrt": func(a []float64) float64 { return math.Sqrt(a[0]) }, "Abs": func(a []float64) float64 { return math.Abs(a[0]) },
	"Floor": func(a []float64) float64 { return math.Floor(a[0]) }, "Ceil": func(a []float64) float64 { return math.Ceil(a[0]) },
	"Exp": func(a []float64) float64 { return math.Exp(a[0]) }, "Exp2": func(a []float64) float64 { return math.Exp2(a[0]) },
	"Log": func(a []float64) float64 { return math.Log(a[0]) }, "Log2": func(a []float64) float64 { return math.Log2(a[0]) },
	"Sin": func(a []float64) float64 { return math.Sin(a[0]) }, "Cos": func(a []float64) float64 { return math.Cos(a[0]) },
	"Tan": func(a []float64) float64 { return math.Tan(a[0]) }, "Sinh": func(a []float64) float64 { return math.Sinh(a[0]) },
	"Cosh": func(a []float64) float64 { return math.Cosh(a[0]) }, "Pow": func(a []float64) float64 { return math.Pow(a[0], a[1]) },
	"Asin": func(a []float64) float64 { return math.Asin(a[0]) }, "Atan": func(a []float64) float64 { return math.Atan(a[0]) },
	"Atan2": func(a []float64) float64 { return math.Atan2(a[0], a[1]) },
}

// vecMethods are scene.Vec3's methods in the subset, as GLSL formats of
// the receiver and the argument (govec.glsl's twins where GLSL's own
// would round otherwise).
var vecMethods = map[string]string{"Add": "(%s + %s)", "Sub": "(%s - %s)", "Mul3": "(%s * %s)", "Scale": "(%s * %s)",
	"Dot": "dotGo(%s, %s)", "Cross": "crossGo(%s, %s)", "Length": "lengthGo(%s)", "Normalize": "normalizeGo(%s)",
	"Min": "min(%s, %s)", "Max": "max(%s, %s)"}

func (t *translator) expr(e ast.Expr) (string, error) {
	tv := t.info.Types[e]
	if tv.Value != nil {
		return t.literal(e, tv.Value, tv.Type)
	}
	switch e := e.(type) {
	case *ast.Ident:
		switch obj := t.info.Uses[e].(type) {
		case *types.Var:
			return glslName(e.Name), nil
		case nil:
			return "", t.errorAt(e, "%s is not known", e.Name)
		default:
			return "", t.errorAt(e, "%s (%T) is outside the GLSL subset", e.Name, obj)
		}
	case *ast.ParenExpr:
		x, err := t.expr(e.X)
		return "(" + stripParens(x) + ")", err
	case *ast.StarExpr:
		return t.expr(e.X) // a pointer is the value it points to
	case *ast.UnaryExpr:
		if e.Op == token.AND {
			return t.expr(e.X)
		}
		if e.Op != token.SUB && e.Op != token.NOT && e.Op != token.ADD {
			return "", t.errorAt(e, "operator %s is outside the GLSL subset", e.Op)
		}
		x, err := t.expr(e.X)
		if _, bin := ast.Unparen(e.X).(*ast.BinaryExpr); bin || strings.HasPrefix(x, "-") || strings.HasPrefix(x, "+") {
			x = "(" + stripParens(x) + ")" // - -x is no GLSL decrement
		}
		return e.Op.String() + x, err
	case *ast.BinaryExpr:
		switch e.Op {
		case token.ADD, token.SUB, token.MUL, token.QUO, token.LSS, token.GTR, token.LEQ, token.GEQ, token.EQL, token.NEQ, token.LAND, token.LOR:
		case token.REM, token.AND, token.OR, token.XOR, token.SHL, token.SHR:
			if err := t.integerOp(e, e.Op, t.info.Types[e.X].Type); err != nil {
				return "", err
			}
		default:
			return "", t.errorAt(e, "operator %s is outside the GLSL subset", e.Op)
		}
		x, err := t.operand(e.X, e.Op)
		if err != nil {
			return "", err
		}
		y, err := t.operand(e.Y, e.Op)
		if err != nil {
			return "", err
		}
		return x + " " + e.Op.String() + " " + y, nil
	case *ast.SelectorExpr:
		return t.selector(e)
	case *ast.IndexExpr:
		if _, ok := derefType(t.info.Types[e.X].Type).Underlying().(*types.Array); !ok {
			return "", t.errorAt(e, "indexing a %s is outside the GLSL subset", t.info.Types[e.X].Type)
		}
		x, err := t.expr(e.X)
		if err != nil {
			return "", err
		}
		i, err := t.expr(e.Index)
		return x + "[" + stripParens(i) + "]", err
	case *ast.CallExpr:
		if n := t.results(e); n > 1 {
			return "", t.errorAt(e, "a call of %d results is a statement of its own in the GLSL subset", n)
		}
		return t.call(e)
	case *ast.CompositeLit:
		return t.composite(e, tv.Type)
	case *ast.FuncLit:
		return "", t.errorAt(e, "a function literal is outside the GLSL subset: write a function of the package")
	}
	return "", t.errorAt(e, "%s is outside the GLSL subset", types.ExprString(e))
}

func (t *translator) selector(e *ast.SelectorExpr) (string, error) {
	if pkg, ok := t.info.Uses[identOf(e.X)].(*types.PkgName); ok {
		if v, ok := t.info.Uses[e.Sel].(*types.Var); ok && pkg.Imported().Path() == layoutPath {
			return t.layoutVar(e, v)
		}
		return "", t.errorAt(e, "%s is outside the GLSL subset", types.ExprString(e))
	}
	xt := t.info.Types[e.X].Type
	if isVec3(xt) {
		switch e.Sel.Name {
		case "X", "Y", "Z":
			x, err := t.expr(e.X)
			return x + "." + strings.ToLower(e.Sel.Name), err
		}
	}
	if sel := t.info.Selections[e]; sel != nil && sel.Kind() == types.FieldVal {
		if named, ok := derefType(xt).(*types.Named); ok && named.Obj().Pkg() != nil {
			x, err := t.expr(e.X)
			if err != nil {
				return "", err
			}
			switch named.Obj().Pkg().Path() {
			case t.pkg.Path():
				return x + "." + glslName(e.Sel.Name), nil
			case layoutPath:
				return x + "." + LowerFirst(e.Sel.Name), nil
			}
		}
	}
	return "", t.errorAt(e, "%s is outside the GLSL subset", types.ExprString(e))
}

// layoutVar is a render/layout variable, as the GLSL constant that holds
// the value Translate was given.
func (t *translator) layoutVar(e *ast.SelectorExpr, v *types.Var) (string, error) {
	key := "layout." + v.Name()
	name := glslName(v.Name())
	if t.varUsed[key] {
		return name, nil
	}
	vals, ok := t.vars[key]
	if !ok {
		return "", t.errorAt(e, "%s is a variable: give Translate its value", key)
	}
	typ, err := t.glslType(e, v.Type())
	if err != nil {
		return "", err
	}
	var lits []string
	for _, f := range vals {
		l, err := t.literal(e, constant.MakeFloat64(f), types.Typ[types.Float64])
		if err != nil {
			return "", err
		}
		lits = append(lits, l)
	}
	val := ""
	switch u := v.Type().Underlying().(type) {
	case *types.Array:
		if int64(len(vals)) != u.Len() {
			return "", t.errorAt(e, "%s has %d values, Translate was given %d", key, u.Len(), len(vals))
		}
		val = typ + "(" + strings.Join(lits, ", ") + ")"
	default:
		if len(vals) != 1 || typ != "float" {
			return "", t.errorAt(e, "%s: a float or an array of floats is in the GLSL subset", key)
		}
		val = lits[0]
	}
	if err := t.give(e, name, "variable "+key); err != nil {
		return "", err
	}
	if t.varDecls == nil {
		t.varDecls = map[string]string{}
	}
	t.varUsed[key] = true
	t.varOrder = append(t.varOrder, key)
	t.varDecls[key] = fmt.Sprintf("const %s %s = %s;\n", typ, name, val)
	return name, nil
}

// composite writes a vector, array or struct literal as its GLSL
// constructor, the elements or fields left out zero.
func (t *translator) composite(e *ast.CompositeLit, typ types.Type) (string, error) {
	name, err := t.glslType(e, typ)
	if err != nil {
		return "", err
	}
	var fields []types.Type
	var names []string
	switch u := typ.Underlying().(type) {
	case *types.Array:
		for range u.Len() {
			fields = append(fields, u.Elem())
		}
	case *types.Struct:
		for i := range u.NumFields() {
			fields = append(fields, u.Field(i).Type())
			names = append(names, u.Field(i).Name())
		}
	default:
		return "", t.errorAt(e, "a literal of type %s is outside the GLSL subset", typ)
	}
	vals := make([]string, len(fields))
	for i, el := range e.Elts {
		k := i
		v := el
		if kv, ok := el.(*ast.KeyValueExpr); ok {
			id, ok := kv.Key.(*ast.Ident)
			if !ok || names == nil {
				return "", t.errorAt(el, "a keyed element of an array literal is outside the GLSL subset")
			}
			k = slices.Index(names, id.Name)
			v = kv.Value
		}
		x, err := t.expr(v)
		if err != nil {
			return "", err
		}
		vals[k] = stripParens(x)
	}
	for i, v := range vals {
		if v == "" {
			vals[i] = t.zero(fields[i])
		}
	}
	return name + "(" + strings.Join(vals, ", ") + ")", nil
}

// zero is the zero value of a type in the subset, as GLSL writes it.
func (t *translator) zero(typ types.Type) string {
	if isVec3(typ) {
		return "vec3(0.0)"
	}
	name, _ := t.glslType(nil, typ)
	switch u := typ.Underlying().(type) {
	case *types.Basic:
		switch {
		case u.Info()&types.IsFloat != 0:
			return "0.0"
		case u.Info()&types.IsUnsigned != 0:
			return "0u"
		case u.Info()&types.IsInteger != 0:
			return "0"
		case u.Info()&types.IsBoolean != 0:
			return "false"
		}
	case *types.Array:
		z := t.zero(u.Elem())
		vals := make([]string, u.Len())
		for i := range vals {
			vals[i] = z
		}
		return name + "(" + strings.Join(vals, ", ") + ")"
	case *types.Struct:
		var vals []string
		for i := range u.NumFields() {
			vals = append(vals, t.zero(u.Field(i).Type()))
		}
		return name + "(" + strings.Join(vals, ", ") + ")"
	}
	return name + "(0)"
}

// integerOp refuses an integer operator on floats, and % on signed
// integers (GLSL's takes the divisor's sign, Go's the dividend's).
func (t *translator) integerOp(at ast.Node, op token.Token, typ types.Type) error {
	if !isInteger(typ) {
		return t.errorAt(at, "operator %s on floats is outside the GLSL subset", op)
	}
	if b, ok := typ.Underlying().(*types.Basic); ok && (op == token.REM || op == token.REM_ASSIGN) && b.Info()&types.IsUnsigned == 0 {
		return t.errorAt(at, "%s on signed integers is outside the GLSL subset (GLSL's takes the divisor's sign): use uint32", op)
	}
	return nil
}

// bitOps are the operators whose precedence differs between Go and GLSL.
var bitOps = map[token.Token]bool{token.AND: true, token.OR: true, token.XOR: true, token.SHL: true, token.SHR: true}

// operand is an operand of a binary operator op: in parentheses where it
// is itself a binary expression and either operator is a bit operator,
// whose precedences differ between Go and GLSL.
func (t *translator) operand(e ast.Expr, op token.Token) (string, error) {
	s, err := t.expr(e)
	if b, ok := e.(*ast.BinaryExpr); ok && t.info.Types[e].Value == nil && (bitOps[op] || bitOps[b.Op]) {
		s = "(" + s + ")"
	}
	return s, err
}

// stripParens is s without the parentheses around all of it.
func stripParens(s string) string {
	for len(s) > 1 && s[0] == '(' && s[len(s)-1] == ')' {
		depth := 0
		for i, c := range s {
			switch c {
			case '(':
				depth++
			case ')':
				depth--
			}
			if depth == 0 && i < len(s)-1 {
				return s // "(a) + (b)"
			}
		}
		s = s[1 : len(s)-1]
	}
	return s
}

// call writes a call of one result or none (the caller adds the out
// arguments of several).
func (t *translator) call(e *ast.CallExpr) (string, error) {
	args := func(list []ast.Expr) ([]string, error) {
		var out []string
		for _, a := range list {
			s, err := t.expr(a)
			if err != nil {
				return nil, err
			}
			out = append(out, stripParens(s))
		}
		return out, nil
	}
	fun := ast.Unparen(e.Fun)
	// A conversion: between float32 and float64 nothing (both are float);
	// otherwise GLSL's constructor.
	if tv := t.info.Types[fun]; tv.IsType() {
		to, err := t.glslType(fun, tv.Type)
		if err != nil {
			return "", err
		}
		from, err := t.glslType(e.Args[0], t.info.Types[e.Args[0]].Type)
		if err != nil {
			return "", err
		}
		x, err := t.expr(e.Args[0])
		if err != nil {
			return "", err
		}
		if from == to {
			switch ast.Unparen(e.Args[0]).(type) {
			case *ast.BinaryExpr, *ast.UnaryExpr:
				return "(" + stripParens(x) + ")", nil
			}
			return x, nil
		}
		return to + "(" + stripParens(x) + ")", nil
	}
	if sel, ok := fun.(*ast.SelectorExpr); ok {
		if pkg, ok := t.info.Uses[identOf(sel.X)].(*types.PkgName); ok {
			if pkg.Imported().Path() != "math" {
				return "", t.errorAt(sel, "%s.%s is outside the GLSL subset", pkg.Name(), sel.Sel.Name)
			}
			name, ok := mathFuncs[sel.Sel.Name]
			if !ok {
				return "", t.errorAt(sel, "math.%s is outside the GLSL subset", sel.Sel.Name)
			}
			// Of constants, the value Go computes.
			var consts []float64
			for _, a := range e.Args {
				if v := t.info.Types[a].Value; v != nil {
					f, _ := constant.Float64Val(constant.ToFloat(v))
					consts = append(consts, f)
				}
			}
			if len(consts) == len(e.Args) {
				return t.literal(e, constant.MakeFloat64(mathFold[sel.Sel.Name](consts)), types.Typ[types.Float64])
			}
			a, err := args(e.Args)
			if err != nil {
				return "", err
			}
			return name + "(" + strings.Join(a, ", ") + ")", nil
		}
		if s := t.info.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
			if isVec3(derefType(s.Recv())) {
				format, ok := vecMethods[sel.Sel.Name]
				if !ok {
					return "", t.errorAt(sel, "Vec3.%s is outside the GLSL subset", sel.Sel.Name)
				}
				// An operator's operands keep their grouping; a
				// function's arguments need none.
				var vals []any
				for _, a := range append([]ast.Expr{sel.X}, e.Args...) {
					x, err := t.expr(a)
					if err != nil {
						return "", err
					}
					switch ast.Unparen(a).(type) {
					case *ast.BinaryExpr, *ast.UnaryExpr:
						x = "(" + stripParens(x) + ")"
					}
					if !strings.HasPrefix(format, "(") {
						x = stripParens(x)
					}
					vals = append(vals, x)
				}
				return fmt.Sprintf(format, vals...), nil
			}
			recv, err := t.expr(sel.X)
			if err != nil {
				return "", err
			}
			a, err := args(e.Args)
			if err != nil {
				return "", err
			}
			callee, _ := t.callee(e)
			if callee == nil {
				return "", t.errorAt(sel, "method %s is outside the package", types.ExprString(sel))
			}
			t.calledFrom(callee.key)
			return callee.glsl + "(" + strings.Join(append([]string{stripParens(recv)}, a...), ", ") + ")", nil
		}
		return "", t.errorAt(e, "a call of %s is outside the GLSL subset", types.ExprString(fun))
	}
	id, ok := fun.(*ast.Ident)
	if !ok {
		return "", t.errorAt(e, "a call of %s is outside the GLSL subset", types.ExprString(fun))
	}
	a, err := args(e.Args)
	if err != nil {
		return "", err
	}
	switch obj := t.info.Uses[id].(type) {
	case *types.Builtin:
		if (id.Name == "min" || id.Name == "max") && len(a) >= 2 {
			// Go's min and max of several: nested left to right.
			s := a[0]
			for _, x := range a[1:] {
				s = id.Name + "(" + s + ", " + x + ")"
			}
			return s, nil
		}
		return "", t.errorAt(e, "builtin %s is outside the GLSL subset", id.Name)
	case *types.Func:
		if obj.Pkg() != t.pkg {
			return "", t.errorAt(e, "%s is outside the package", id.Name)
		}
		t.calledFrom(id.Name)
		return glslName(id.Name) + "(" + strings.Join(a, ", ") + ")", nil
	}
	return "", t.errorAt(e, "a call of %s is outside the GLSL subset", id.Name)
}

// calledFrom records that the function being translated calls key.
func (t *translator) calledFrom(key string) {
	if t.called == nil {
		t.called = map[string]bool{}
	}
	t.called[key] = true
	if !slices.Contains(t.calls[t.fn.key], key) {
		t.calls[t.fn.key] = append(t.calls[t.fn.key], key)
	}
}

func identOf(e ast.Expr) *ast.Ident {
	id, _ := e.(*ast.Ident)
	return id
}

func isInteger(t types.Type) bool {
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

func isVec3(t types.Type) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == "Vec3" && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == scenePath
}

// glslType is the GLSL type of a Go type in the subset.
func (t *translator) glslType(at ast.Node, typ types.Type) (string, error) {
	if isVec3(typ) {
		return "vec3", nil
	}
	switch u := typ.(type) {
	case *types.Basic:
		switch u.Kind() {
		case types.Float32, types.Float64, types.UntypedFloat:
			return "float", nil
		case types.Int, types.Int32, types.UntypedInt:
			return "int", nil
		case types.Uint32:
			return "uint", nil
		case types.Bool, types.UntypedBool:
			return "bool", nil
		}
	case *types.Array:
		if _, nested := u.Elem().(*types.Array); !nested {
			elem, err := t.glslType(at, u.Elem())
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s[%d]", elem, u.Len()), nil
		}
	case *types.Named:
		if _, ok := u.Underlying().(*types.Struct); ok && u.Obj().Pkg() != nil &&
			(u.Obj().Pkg() == t.pkg || u.Obj().Pkg().Path() == layoutPath) {
			return u.Obj().Name(), nil
		}
	}
	if at == nil {
		return "", fmt.Errorf("type %s is outside the GLSL subset", typ)
	}
	return "", t.errorAt(at, "type %s is outside the GLSL subset", typ)
}

// literal is a constant as GLSL writes a value of its Go type: a float32
// (or float64, which the GPU computes as float) as the shortest decimal
// that reads back as the float32 it rounds to.
func (t *translator) literal(at ast.Node, v constant.Value, typ types.Type) (string, error) {
	b, _ := typ.Underlying().(*types.Basic)
	if b == nil {
		return "", t.errorAt(at, "a constant of type %s is outside the GLSL subset", typ)
	}
	switch {
	case b.Info()&types.IsBoolean != 0:
		return strconv.FormatBool(constant.BoolVal(v)), nil
	case b.Kind() == types.Float32 || b.Kind() == types.Float64 || b.Kind() == types.UntypedFloat:
		f, _ := constant.Float64Val(constant.ToFloat(v))
		f32 := float32(f)
		if math.IsInf(float64(f32), 0) || f32 != f32 {
			return "", t.errorAt(at, "the constant %s is no finite float32", v)
		}
		s := strconv.FormatFloat(float64(f32), 'g', -1, 32)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return s, nil
	case b.Kind() == types.Int || b.Kind() == types.Int32 || b.Kind() == types.UntypedInt:
		i, ok := constant.Int64Val(v)
		if !ok || i != int64(int32(i)) {
			return "", t.errorAt(at, "the constant %s is no int32", v)
		}
		return strconv.FormatInt(i, 10), nil
	case b.Kind() == types.Uint32:
		u, _ := constant.Uint64Val(v)
		return strconv.FormatUint(u, 10) + "u", nil
	}
	return "", t.errorAt(at, "a constant of type %s is outside the GLSL subset", typ)
}

// glslName is a Go name with its first word lower-cased (SmithV → smithV,
// GGXDAniso → ggxdAniso, Sqrt32 → sqrt32), and an underscore after a name
// GLSL keeps for itself (cos → cos_).
func glslName(s string) string {
	s = LowerFirst(s)
	if glslReserved[s] {
		s += "_"
	}
	return s
}

// LowerFirst is a Go name with its first word lower-cased, the GLSL names
// of the generated code (the layout header's fields too): a run of
// capitals followed by a lower-case letter starts a word with its last
// capital (SRGBTable → srgbTable); otherwise it is all one word (UV0 →
// uv0, IOR → ior, GGXD → ggxd).
func LowerFirst(s string) string {
	n := 0
	for n < len(s) && s[n] >= 'A' && s[n] <= 'Z' {
		n++
	}
	if n > 1 && n < len(s) && s[n] >= 'a' && s[n] <= 'z' {
		n--
	}
	return strings.ToLower(s[:n]) + s[n:]
}

// glslReserved are GLSL's keywords and the built-in functions a Go name
// could meet.
var glslReserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`attribute const uniform varying buffer shared coherent volatile restrict readonly writeonly
		atomic_uint layout centroid flat smooth noperspective patch sample break continue do for while switch case default
		if else subroutine in out inout float double int void bool true false invariant precise discard return mat2 mat3 mat4
		vec2 vec3 vec4 ivec2 ivec3 ivec4 bvec2 bvec3 bvec4 uint uvec2 uvec3 uvec4 dvec2 dvec3 dvec4 lowp mediump highp
		precision sampler2D struct common partition active asm class union enum typedef template this resource goto inline
		noinline public static extern external interface long short half fixed unsigned superp input output filter sizeof
		cast namespace using radians degrees sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh pow exp log exp2
		log2 sqrt inversesqrt abs sign floor trunc round roundEven ceil fract mod modf min max clamp mix step smoothstep
		isnan isinf fma length distance dot cross normalize reflect refract faceforward any all not`) {
		glslReserved[w] = true
	}
}
