package goglsl

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The expressions, the types and the constants.

// mathFuncs are the math package's functions in the subset, by Go name:
// GLSL's own, or shaders/gomath.glsl's twins of Go's.
var mathFuncs = map[string]string{"Sqrt": "sqrt", "Abs": "abs", "Floor": "floor", "Ceil": "ceil", "Exp": "exp", "Exp2": "exp2",
	"Log": "log", "Log2": "log2", "Sin": "sinGo", "Cos": "cosGo", "Tan": "tan", "Sinh": "sinh", "Cosh": "cosh",
	"Pow": "powGo", "Cbrt": "cbrtGo", "Hypot": "hypotGo", "Asin": "asinGo", "Atan": "atanGo", "Atan2": "atan2Go"}

// bitFuncs are the functions on bits in the subset: GLSL's own, exact.
var bitFuncs = map[string]string{"math/bits.Reverse32": "bitfieldReverse", "math.Float32bits": "floatBitsToUint",
	"math.Float32frombits": "uintBitsToFloat"}

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
	"Cbrt":  func(a []float64) float64 { return math.Cbrt(a[0]) },
	"Hypot": func(a []float64) float64 { return math.Hypot(a[0], a[1]) },
}

// vecMethods are scene.Vec3's methods in the subset, as GLSL formats of
// the receiver and the argument (govec.glsl's twins where GLSL's own
// would round otherwise).
var vecMethods = map[string]string{"Add": "(%s + %s)", "Sub": "(%s - %s)", "Mul3": "(%s * %s)", "Scale": "(%s * %s)",
	"Dot": "dotGo(%s, %s)", "Cross": "crossGo(%s, %s)", "Length": "lengthGo(%s)", "Normalize": "normalizeGo(%s)", "Finite": "finiteGo(%s)",
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
	if isVec3(xt) || isVec4(xt) {
		switch e.Sel.Name {
		case "X", "Y", "Z", "W":
			x, err := t.expr(e.X)
			return x + "." + strings.ToLower(e.Sel.Name), err
		}
	}
	if isBundle(derefType(xt)) {
		return "", t.errorAt(e, "%s: a bundle's provider is only called or passed on in the GLSL subset", types.ExprString(e))
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
			if isProvider(t.info.Types[a].Type) {
				continue // GLSL drops a provider
			}
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
			if name, ok := bitFuncs[pkg.Imported().Path()+"."+sel.Sel.Name]; ok {
				a, err := args(e.Args)
				if err != nil {
					return "", err
				}
				return name + "(" + strings.Join(a, ", ") + ")", nil
			}
			if pkg.Imported().Path() != "math" {
				return "", t.errorAt(sel, "%s.%s is outside the GLSL subset", pkg.Name(), sel.Sel.Name)
			}
			switch sel.Sel.Name {
			case "IsNaN", "IsInf": // IsInf of either sign: GLSL's isnan and isinf
				if sel.Sel.Name == "IsInf" {
					if v := t.info.Types[e.Args[1]].Value; v == nil || constant.Sign(v) != 0 {
						return "", t.errorAt(sel, "math.IsInf of a sign other than 0 is outside the GLSL subset")
					}
				}
				x, err := t.expr(e.Args[0])
				if err != nil {
					return "", err
				}
				return strings.ToLower(sel.Sel.Name) + "(" + stripParens(x) + ")", nil
			}
			if sel.Sel.Name == "Inf" { // of a constant sign: the infinity's bits
				v := t.info.Types[e.Args[0]].Value
				if v == nil {
					return "", t.errorAt(sel, "math.Inf of a variable sign is outside the GLSL subset")
				}
				if constant.Sign(v) >= 0 {
					return "uintBitsToFloat(0x7F800000u)", nil
				}
				return "uintBitsToFloat(0xFF800000u)", nil
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
			a, err := args(e.Args)
			if err != nil {
				return "", err
			}
			callee, _ := t.callee(e)
			if callee == nil {
				return "", t.errorAt(sel, "method %s is outside the package", types.ExprString(sel))
			}
			t.calledFrom(callee.key)
			if types.IsInterface(s.Recv()) {
				// A provider's (a bundle's field's too): the shader's function.
				return callee.glsl + "(" + strings.Join(a, ", ") + ")", nil
			}
			recv, err := t.expr(sel.X)
			if err != nil {
				return "", err
			}
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

func isVec3(t types.Type) bool { return isSceneType(t, "Vec3") }

// isVec4 reports whether t is scene.Vec4 (GLSL's vec4: its fields only).
func isVec4(t types.Type) bool { return isSceneType(t, "Vec4") }

func isSceneType(t types.Type, name string) bool {
	n, ok := t.(*types.Named)
	return ok && n.Obj().Name() == name && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == scenePath
}

// glslType is the GLSL type of a Go type in the subset.
func (t *translator) glslType(at ast.Node, typ types.Type) (string, error) {
	if isVec3(typ) {
		return "vec3", nil
	}
	if isVec4(typ) {
		return "vec4", nil
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
		if isBundle(u) {
			if at == nil {
				return "", fmt.Errorf("type %s, a bundle of providers, is only a parameter in the GLSL subset", u.Obj().Name())
			}
			return "", t.errorAt(at, "type %s, a bundle of providers, is only a parameter in the GLSL subset", u.Obj().Name())
		}
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
