package design

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// A Template is a key value written in the seeds' notation: literal text
// with variables in angle brackets, e.g. USER#<UserName>,
// STATUS#<Status>#<CreatedAt>#<OrderId>, ORDER#<n:08d>.
//
// A variable is <name> or <name:format>, format one of
//
//	0Nd        a whole number zero-padded to N digits (fixed width)
//	lower      the value lower-cased
//	upper      the value upper-cased
//
// The template ORDER is a constant. Source of the notation: the seeds'
// worksheets (../shared/seeds/004, "USER#<UserName>").
type Template struct {
	Parts []Part
	// Text is the template as written.
	Text string
}

// A Part is a literal (Var "") or a variable.
type Part struct {
	Literal string
	Var     string
	// Width is a 0Nd format's N; Case is "lower" or "upper".
	Width int
	Case  string
}

// ParseTemplate parses the notation. Errors name the position (1-based
// character) and what is wrong.
func ParseTemplate(s string) (Template, error) {
	t := Template{Text: s}
	if s == "" {
		return t, fmt.Errorf("empty key template")
	}
	rest := s
	pos := 1
	for rest != "" {
		i := strings.IndexAny(rest, "<>")
		if i < 0 {
			t.Parts = append(t.Parts, Part{Literal: rest})
			break
		}
		if rest[i] == '>' {
			return t, fmt.Errorf("%q: '>' at character %d closes no variable", s, pos+i)
		}
		if i > 0 {
			t.Parts = append(t.Parts, Part{Literal: rest[:i]})
		}
		j := strings.IndexByte(rest[i:], '>')
		if j < 0 {
			return t, fmt.Errorf("%q: the variable at character %d has no closing '>'", s, pos+i)
		}
		body := rest[i+1 : i+j]
		p, err := parseVar(body)
		if err != nil {
			return t, fmt.Errorf("%q: <%s> at character %d: %v", s, body, pos+i, err)
		}
		if n := len(t.Parts); n > 0 && t.Parts[n-1].Var != "" {
			return t, fmt.Errorf("%q: <%s> at character %d follows another variable with no separator, so a value could not be split back into its parts", s, body, pos+i)
		}
		t.Parts = append(t.Parts, p)
		pos += i + j + 1
		rest = rest[i+j+1:]
	}
	return t, nil
}

func parseVar(body string) (Part, error) {
	name, format, hasFormat := strings.Cut(body, ":")
	if name == "" {
		return Part{}, fmt.Errorf("a variable needs a name")
	}
	for _, r := range name {
		if !(r == '_' || r == '-' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return Part{}, fmt.Errorf("a variable name has letters, digits, '_', '-' or '.', not %q", r)
		}
	}
	p := Part{Var: name}
	switch {
	case !hasFormat:
	case format == "lower" || format == "upper":
		p.Case = format
	case len(format) >= 3 && format[0] == '0' && format[len(format)-1] == 'd':
		w, err := strconv.Atoi(format[1 : len(format)-1])
		if err != nil || w < 1 || w > 38 {
			return Part{}, fmt.Errorf("format %q: a width 0Nd needs N from 1 to 38", format)
		}
		p.Width = w
	default:
		return Part{}, fmt.Errorf("unknown format %q (want 0Nd, lower or upper)", format)
	}
	return p, nil
}

// Vars returns the template's variable names in order.
func (t Template) Vars() []string {
	var vs []string
	for _, p := range t.Parts {
		if p.Var != "" {
			vs = append(vs, p.Var)
		}
	}
	return vs
}

// Constant reports whether the template has no variable.
func (t Template) Constant() bool { return len(t.Vars()) == 0 }

// Prefix returns the literal text before the first variable (all of a
// constant).
func (t Template) Prefix() string {
	var b strings.Builder
	for _, p := range t.Parts {
		if p.Var != "" {
			break
		}
		b.WriteString(p.Literal)
	}
	return b.String()
}

// Shape returns the template with every variable written <>: two keys of
// one shape are built the same way whatever their variables are called.
func (t Template) Shape() string {
	var b strings.Builder
	for _, p := range t.Parts {
		if p.Var != "" {
			b.WriteString("<>")
		} else {
			b.WriteString(p.Literal)
		}
	}
	return b.String()
}

// Uses reports whether the template uses variable v.
func (t Template) Uses(v string) bool {
	for _, p := range t.Parts {
		if p.Var == v {
			return true
		}
	}
	return false
}

// String returns the template as written.
func (t Template) String() string { return t.Text }

// MayStartWith reports whether some value of t may start with some value
// of prefix (variables stand for any text): their literal texts agree up
// to the first variable of either.
func (t Template) MayStartWith(prefix Template) bool {
	a, b := t.Prefix(), prefix.Prefix()
	if t.Constant() {
		return strings.HasPrefix(a, b)
	}
	return strings.HasPrefix(a, b) || strings.HasPrefix(b, a)
}

// AlwaysStartsWith reports whether every value of t starts with the
// value of prefix given the same variable values: prefix's parts are t's
// first parts (same literals, same variables and formats), its last
// literal a prefix of t's literal there. So ISSUE#<Project>#<n:08d>#C
// always starts with ISSUE#<Project>#.
func (t Template) AlwaysStartsWith(prefix Template) bool {
	if prefix.Constant() {
		return strings.HasPrefix(t.Prefix(), prefix.Prefix())
	}
	pp := prefix.Parts
	if len(pp) > len(t.Parts) {
		return false
	}
	for i, p := range pp {
		q := t.Parts[i]
		switch {
		case p.Var != "":
			if p != q {
				return false
			}
		case i == len(pp)-1:
			if q.Var != "" || !strings.HasPrefix(q.Literal, p.Literal) {
				return false
			}
		case p.Literal != q.Literal || q.Var != "":
			return false
		}
	}
	return true
}

// placeholder stands for a variable's value when one template's values
// are matched against another's: no literal contains it.
const placeholder = "\x00"

// regexp returns a regular expression matching t's values, variables of
// e's attributes restricted to their declared values (or a placeholder,
// which stands for another template's variable).
func (t Template) regexp(e *Entity) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for _, p := range t.Parts {
		if p.Var == "" {
			b.WriteString(regexp.QuoteMeta(p.Literal))
			continue
		}
		var a *Attribute
		if e != nil {
			a = e.Attribute(p.Var)
		}
		if a != nil && len(a.Values) > 0 && p.Case == "" && p.Width == 0 {
			alts := []string{regexp.QuoteMeta(placeholder)}
			for _, v := range a.Values {
				alts = append(alts, regexp.QuoteMeta(v))
			}
			b.WriteString("(?:" + strings.Join(alts, "|") + ")")
			continue
		}
		b.WriteString("(?s:.+)")
	}
	b.WriteString("$")
	return cachedRegexp(b.String())
}

// withPlaceholders returns t's text with each variable a placeholder.
func (t Template) withPlaceholders() string {
	var b strings.Builder
	for _, p := range t.Parts {
		if p.Var != "" {
			b.WriteString(placeholder)
		} else {
			b.WriteString(p.Literal)
		}
	}
	return b.String()
}

// Unify says whether a value of the pattern template p can equal a value
// of entity e's template t: certainly when they are written alike
// (USER#<UserId> and USER#<UserId>), maybe when their literals and
// variables can line up (STATUS#open#<shard> and STATUS#<Status>#<shard>
// where open is one of Status's values; USER#<Email> and USER#<UserId>),
// never otherwise.
func Unify(p, t Template, e *Entity) (may, certain bool) {
	if p.Text == t.Text {
		return true, true
	}
	if t.regexp(e).MatchString(p.withPlaceholders()) || p.regexp(nil).MatchString(t.withPlaceholders()) {
		return true, false
	}
	return false, false
}

// Parse splits a value of t back into its variables' values (each
// variable takes the shortest text that lets the rest match); ok is
// false when the value is not one of t's.
func (t Template) Parse(value string) (map[string]string, bool) {
	var b strings.Builder
	b.WriteString("^")
	for _, p := range t.Parts {
		if p.Var == "" {
			b.WriteString(regexp.QuoteMeta(p.Literal))
		} else {
			b.WriteString("(.*?)")
		}
	}
	b.WriteString("$")
	m := cachedRegexp(b.String()).FindStringSubmatch(value)
	if m == nil {
		return nil, false
	}
	out := map[string]string{}
	for i, v := range t.Vars() {
		out[v] = m[i+1]
	}
	return out, true
}

// regexps caches compiled expressions by source: checks match the same
// templates many times.
var regexps sync.Map // string → *regexp.Regexp

func cachedRegexp(src string) *regexp.Regexp {
	if re, ok := regexps.Load(src); ok {
		return re.(*regexp.Regexp)
	}
	re := regexp.MustCompile(src)
	regexps.Store(src, re)
	return re
}

// Render builds the value of t from vals (by variable name), applying
// each variable's format; a missing variable is an error.
func (t Template) Render(vals map[string]string) (string, error) {
	var b strings.Builder
	for _, p := range t.Parts {
		if p.Var == "" {
			b.WriteString(p.Literal)
			continue
		}
		v, ok := vals[p.Var]
		if !ok {
			return "", fmt.Errorf("%s: no value for <%s>", t.Text, p.Var)
		}
		switch {
		case p.Width > 0:
			if len(v) < p.Width {
				v = strings.Repeat("0", p.Width-len(v)) + v
			}
		case p.Case == "lower":
			v = strings.ToLower(v)
		case p.Case == "upper":
			v = strings.ToUpper(v)
		}
		b.WriteString(v)
	}
	return b.String(), nil
}
