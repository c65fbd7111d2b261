package batch

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"go.yaml.in/yaml/v3"
)

// valueError is a value of the wrong type under a key of a job or the
// defaults.
type valueError struct{ key, problem string }

// place says where the value is: the key's line in mapping m of the YAML
// tree (or in one it merges), where names m ("defaults" or "jobs[I]"),
// the key and the problem.
func (e *valueError) place(m *yaml.Node, where string) string {
	if k, _ := keyIn(m, e.key); k != nil {
		return fmt.Sprintf("line %d (%s): %s: %s", k.Line, where, e.key, e.problem)
	}
	return fmt.Sprintf("%s: %s: %s", where, e.key, e.problem)
}

// inJob says where a value of job i, named name, is: the key's line in
// the job's mapping (or in one it merges) or, where the job takes the
// value from them, in the defaults'.
func (e *valueError) inJob(root *yaml.Node, i int, name string) string {
	job := "job " + shown(name)
	if k, merged := keyIn(jobNode(root, i), e.key); k != nil {
		if merged {
			job = "merged into " + job
		}
		return fmt.Sprintf("line %d (%s): %s: %s", k.Line, job, e.key, e.problem)
	}
	if k, _ := keyIn(section(root, "defaults"), e.key); k != nil {
		return fmt.Sprintf("line %d (defaults, for %s): %s: %s", k.Line, job, e.key, e.problem)
	}
	return fmt.Sprintf("%s: %s: %s", job, e.key, e.problem)
}

// decodeProblem is the first of the decoder's complaints, in one line.
func decodeProblem(err error) *valueError {
	var de *mapstructure.DecodeError
	if !errors.As(err, &de) {
		return &valueError{key: "settings", problem: cutMessage(err.Error())}
	}
	key, _, _ := strings.Cut(de.Name(), "[") // outputs[1] is under outputs
	var value any
	var want reflect.Type
	var pe *mapstructure.ParseError
	var ue *mapstructure.UnconvertibleTypeError
	switch {
	case errors.As(err, &pe):
		value, want = pe.Value, pe.Expected.Type()
	case errors.As(err, &ue):
		value, want = ue.Value, ue.Expected.Type()
	default:
		return &valueError{key: key, problem: cutMessage(de.Unwrap().Error())}
	}
	return &valueError{key: key, problem: fmt.Sprintf("%s is not %s", quoted(value), kindName(want))}
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number, not negative"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice:
		return "a list"
	}
	return "text"
}

// quoted is a value as a message shows it: text quoted; either cut after
// its first shownChars characters where longer, with its length.
func quoted(v any) string {
	if s, ok := v.(string); ok {
		return shown(s)
	}
	text := fmt.Sprint(v)
	if len(text) <= shownChars {
		return text
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice:
		return fmt.Sprintf("%s… (%d values)", cutAt(text, shownChars), rv.Len())
	case reflect.Map:
		return fmt.Sprintf("%s… (%d keys)", cutAt(text, shownChars), rv.Len())
	}
	return fmt.Sprintf("%s… (%d bytes)", cutAt(text, shownChars), len(text))
}

// shownChars is how much of a value a message shows: a 5 MB string in a
// config is cut to this many characters, with its length.
const shownChars = 60

// shown is s quoted, cut after shownChars characters where longer, with
// its length: "abc…"… (5242880 bytes).
func shown(s string) string {
	if c := cutAt(s, shownChars); len(c) < len(s) {
		return fmt.Sprintf("%s… (%d bytes)", strconv.Quote(c), len(s))
	}
	return strconv.Quote(s)
}

// cut is s as shown cuts it, not quoted.
func cut(s string) string {
	if c := cutAt(s, shownChars); len(c) < len(s) {
		return fmt.Sprintf("%s… (%d bytes)", c, len(s))
	}
	return s
}

// cutAt is s's first n characters.
func cutAt(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// cutMessage is another package's message (the YAML parser's, render's)
// in one line, each long quoted value in it cut as shown cuts it (and
// the YAML parser's 'anchor'), and the whole cut after maxMessage
// characters, for what else may quote a value without bound.
func cutMessage(msg string) string {
	var b strings.Builder
	for rest := msg; rest != ""; {
		i := strings.IndexAny(rest, `"'`)
		if i < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		rest = rest[i:]
		n := 1 // the quote, where no long value follows it
		if q, err := strconv.QuotedPrefix(rest); err == nil && rest[0] == '"' {
			n = len(q)
			if s, _ := strconv.Unquote(q); len(s) > shownChars {
				b.WriteString(shown(s))
				rest = rest[n:]
				continue
			}
		} else if end := strings.IndexAny(rest[1:], "' \t"); rest[0] == '\'' && end > shownChars && rest[1+end] == '\'' {
			// An anchor: no spaces, to the next quote.
			b.WriteString("'" + cut(rest[1:1+end]) + "'")
			rest = rest[end+2:]
			continue
		}
		b.WriteString(rest[:n])
		rest = rest[n:]
	}
	msg = strings.Join(strings.Fields(b.String()), " ")
	if c := cutAt(msg, maxMessage); len(c) < len(msg) {
		return fmt.Sprintf("%s… (%d bytes)", c, len(msg))
	}
	return msg
}

// maxMessage is the longest message of another package's that Load passes
// on whole.
const maxMessage = 400
