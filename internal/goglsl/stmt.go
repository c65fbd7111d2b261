package goglsl

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strconv"
	"strings"
)

// The statements.

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
