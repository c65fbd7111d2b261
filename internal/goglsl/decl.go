package goglsl

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"strconv"
	"strings"
)

// The package-level declarations: constants, struct types, functions and
// their signatures, and which pointer parameters a function writes through.

func (t *translator) declarations(f *ast.File) error {
	for _, imp := range f.Imports {
		if path, _ := strconv.Unquote(imp.Path.Value); path != "math" && path != "math/bits" && path != scenePath && path != layoutPath {
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
		if it, ok := ts.Type.(*ast.InterfaceType); ok && ts.TypeParams == nil && ts.Assign == 0 {
			if err := t.provider(ts.Name.Name, it); err != nil {
				return err
			}
			continue
		}
		st, ok := t.info.Defs[ts.Name].Type().Underlying().(*types.Struct)
		if !ok || ts.TypeParams != nil || ts.Assign != 0 {
			return t.errorAt(ts, "type %s: only struct and interface types are in the GLSL subset", ts.Name.Name)
		}
		if isBundle(t.info.Defs[ts.Name].Type()) {
			// Providers bundled: no GLSL type, as a provider has none.
			for i := range st.NumFields() {
				f := st.Field(i)
				if n, ok := f.Type().(*types.Named); f.Embedded() || !ok || n.Obj().Pkg() != t.pkg {
					return t.errorAt(ts, "type %s: a bundle of providers holds the package's interfaces as named fields", ts.Name.Name)
				}
			}
			continue
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

// preciseLocals matches a declaration of a float or vector local.
var preciseLocals = regexp.MustCompile(`(?m)^(\s*)((?:float|vec2|vec3|vec4)(?:\[\d+\])? \w+( = .*)?;)$`)

// hasDirective reports whether a doc comment holds the directive d.
func hasDirective(doc *ast.CommentGroup, d string) bool {
	if doc == nil {
		return false
	}
	for _, c := range doc.List {
		if strings.TrimSpace(c.Text) == d {
			return true
		}
	}
	return false
}

// provider declares the methods of an interface type: what a backend
// provides (the CPU's arrays, the GPU's buffers). A translated function
// takes a value of it as a parameter, which GLSL drops, and calls its
// methods, which become functions the including shader defines, named as
// the method (Scene.LightCount → lightCount): the translation declares
// their prototypes, as it does an ignored file's functions.
//
// An interface of the package that another embeds keeps its methods: the
// embedding one's are the same functions (Lights embeds Geometry: a
// Lights's VertexPosition is vertexPosition).
func (t *translator) provider(name string, it *ast.InterfaceType) error {
	for _, m := range it.Methods.List {
		ft, ok := m.Type.(*ast.FuncType)
		if !ok {
			if n, named := t.info.Types[m.Type].Type.(*types.Named); named && n.Obj().Pkg() == t.pkg && types.IsInterface(n) {
				continue // declared with its own methods
			}
			return t.errorAt(m, "interface %s: an embedded interface from outside the package is outside the GLSL subset", name)
		}
		if len(m.Names) != 1 {
			return t.errorAt(m, "interface %s: declare one method at a time", name)
		}
		if err := t.funcDecl(&ast.FuncDecl{Name: m.Names[0], Type: ft}); err != nil {
			return err
		}
		fn := t.funcs[m.Names[0].Name]
		delete(t.funcs, fn.key)
		fn.key, fn.extern = name+"."+m.Names[0].Name, true
		t.funcs[fn.key] = fn
		if t.methods == nil {
			t.methods = map[*types.Func]*function{}
		}
		t.methods[t.info.Defs[m.Names[0]].(*types.Func)] = fn
		t.order = t.order[:len(t.order)-1]
		t.externOrder = append(t.externOrder, fn.key)
	}
	return nil
}

// isProvider reports whether typ is a provider, which GLSL drops: an
// interface, or a bundle of them (or a pointer to one).
func isProvider(typ types.Type) bool { return types.IsInterface(typ) || isBundle(derefType(typ)) }

// isBundle reports whether typ is a struct type whose fields are all
// interfaces: providers bundled, which GLSL drops as it drops each (a
// call of a field's method is a call of the shader's function, as it is
// of the interface's).
func isBundle(typ types.Type) bool {
	n, ok := typ.(*types.Named)
	if !ok {
		return false
	}
	st, ok := n.Underlying().(*types.Struct)
	if !ok || st.NumFields() == 0 {
		return false
	}
	for i := range st.NumFields() {
		if !types.IsInterface(st.Field(i).Type()) {
			return false
		}
	}
	return true
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
	body := t.out.String()
	if hasDirective(fn.decl.Doc, Precise) {
		body = preciseLocals.ReplaceAllString(body, "${1}precise $2")
	}
	var b bytes.Buffer
	writeDoc(&b, fn.decl.Doc)
	b.WriteString(head + " {\n")
	b.WriteString(body)
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
		if isProvider(v.Type()) {
			return nil
		}
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
	if fn.written == nil && fn.decl.Body == nil {
		// A provider's method: the shader's definition may write through
		// its pointers, which are inout.
		fn.written = map[*types.Var]bool{}
		for i := range fn.sig.Params().Len() {
			if p := fn.sig.Params().At(i); isPointerType(p.Type()) {
				fn.written[p] = true
			}
		}
	}
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
				if recv != nil && callee.recv != nil {
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
		if types.IsInterface(sel.Recv()) {
			// The interface that declares it: the receiver's, or one it embeds.
			if fn := t.methods[sel.Obj().(*types.Func)]; fn != nil {
				return fn, fun.X
			}
			return nil, nil
		}
		if named, ok := derefType(sel.Recv()).(*types.Named); ok && named.Obj().Pkg() == t.pkg {
			return t.funcs[named.Obj().Name()+"."+fun.Sel.Name], fun.X
		}
	}
	return nil, nil
}

// isPointerType reports whether typ is a pointer.
func isPointerType(typ types.Type) bool {
	_, ok := typ.(*types.Pointer)
	return ok
}
