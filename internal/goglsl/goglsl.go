// Package goglsl translates a package written in a restricted subset of Go
// into GLSL, so that shading the CPU runs natively is the GPU's too,
// written once (render/kernel).
//
// The subset:
//
//   - types: float32 and float64 (both GLSL float: what Go computes in
//     float64 the GPU computes in float32), int and int32 (int), uint32
//     (uint), bool, scene.Vec3 (vec3), scene.Vec4 (vec4: its fields, no
//     methods), arrays of these ([4]float32 is float[4]), the package's
//     struct types (GLSL structs, declared in the translation) and
//     render/layout's (declared in its header);
//   - package-level constants, struct types and functions; methods of the
//     package's struct types (GLSL functions named by type and method:
//     HairBSDF.Eval is hairBSDFEval, its receiver the first parameter);
//   - interface types: what a backend provides (the CPU's arrays, the
//     GPU's buffers). A parameter of one is dropped, and a call of its
//     method is a call of a function named as the method
//     (src.Texel(i) → texel(i)), which the shader that includes the
//     translation defines: the translation declares its prototype. An
//     interface may embed another of the package, whose methods are the
//     same functions; a struct type whose fields are all the package's
//     interfaces is a bundle of providers, dropped as they are
//     (pv.Lights.LightCount() is lightCount(); a bundle is only a
//     parameter, passed on whole or by field);
//   - a pointer parameter or receiver is the value it points to: in where
//     the function (or a function it passes it to) never writes through
//     it, inout where it does (a provider's method's always: the shader's
//     definition may); &x is x;
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
//     Sub, Mul3, Scale, Dot, Cross, Length, Normalize, Min, Max and
//     Finite; the math functions Sqrt, Abs, Floor, Ceil, Exp, Exp2, Log,
//     Log2, Tan, Sinh, Cosh and, as shaders/gomath.glsl writes them to
//     Go's precision (a driver's may be thousands of ulps off, or promise
//     nothing outside [−π, π]), Sin, Cos, Sincos, Pow, Cbrt, Hypot, Asin,
//     Atan and Atan2; math.Inf of a constant sign; math.IsNaN and
//     math.IsInf of either sign (isnan, isinf); math.Float32bits,
//     math.Float32frombits and bits.Reverse32, which GLSL computes
//     exactly.
//
// A function whose doc comment holds the Precise directive has its float
// and vector locals declared precise, so that no driver fuses or reorders
// their arithmetic.
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
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"path/filepath"
	"sort"
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

// Precise is the directive, in a function's doc comment, that declares its
// float and vector locals precise in GLSL: no driver may fuse or reorder
// their arithmetic (a·b + c into one rounding), so that the GPU rounds as
// Go does where a rounding decides something discrete (which texel). A
// function's result is a local then: compute it into one and return that.
const Precise = "//goglsl:precise"

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
	called      map[string]bool           // the functions some translated function calls
	methods     map[*types.Func]*function // the providers' methods, by the interface that declares them
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
