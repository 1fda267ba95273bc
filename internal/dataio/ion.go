package dataio

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// This file reads the Amazon Ion text subset that DynamoDB's ION exports
// write, one item a line: an optional $ion_1_0 version marker, then
// {Item:{...}} (https://amazon-ion.github.io/ion-docs/docs/spec.html;
// the export format in
// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/S3DataExport.Output.html).
// Ion strings are S; ints and decimals (2013., 8.3, 1d2) N, in DynamoDB's
// syntax (d becomes E, a trailing "." goes); blobs {{base64}} B; true and
// false BOOL; null (and null.<type>) NULL; lists L; structs M; and the
// lists annotated $dynamodb_SS::, $dynamodb_NS::, $dynamodb_BS:: sets.
// Comments are skipped. Long strings ('''...'''), clobs, symbols as
// values, timestamps, floats' nan and inf, s-expressions and other
// annotations are refused. No amzn/ion-go: the Go module proxy does not
// serve it.

// ionParser reads Ion text from one line.
type ionParser struct {
	s     string
	i     int
	depth int
}

// decodeIonLine reads one line of an ION export as an item; a line of
// only $ion_1_0 markers is no item (nil, nil).
func decodeIonLine(line []byte) (Item, error) {
	p := &ionParser{s: string(line)}
	var item Item
	for {
		p.skipSpace()
		if p.i >= len(p.s) {
			break
		}
		if strings.HasPrefix(p.s[p.i:], "$ion_1_0") && !isIdentChar(p.at(p.i+8)) {
			p.i += 8
			continue
		}
		if item != nil {
			return nil, p.errorf("more than one value on the line")
		}
		av, err := p.value()
		if err != nil {
			return nil, err
		}
		m, ok := av.(*types.AttributeValueMemberM)
		if !ok {
			return nil, errors.New("ion: want a struct {Item:{...}}")
		}
		item = m.Value
		if inner, ok := m.Value["Item"].(*types.AttributeValueMemberM); ok && len(m.Value) == 1 {
			item = inner.Value
		}
	}
	return item, nil // nil: a line of only version markers
}

func (p *ionParser) at(i int) byte {
	if i < len(p.s) {
		return p.s[i]
	}
	return 0
}

func (p *ionParser) errorf(format string, args ...any) error {
	return fmt.Errorf("ion: column %d: %s", p.i+1, fmt.Sprintf(format, args...))
}

// skipSpace skips white space and comments.
func (p *ionParser) skipSpace() {
	for p.i < len(p.s) {
		switch c := p.s[p.i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f':
			p.i++
		case strings.HasPrefix(p.s[p.i:], "//"):
			p.i = len(p.s)
		case strings.HasPrefix(p.s[p.i:], "/*"):
			end := strings.Index(p.s[p.i+2:], "*/")
			if end < 0 {
				p.i = len(p.s)
				return
			}
			p.i += end + 4
		default:
			return
		}
	}
}

func isIdentStart(c byte) bool {
	return c == '_' || c == '$' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentChar(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

// ident reads an identifier symbol.
func (p *ionParser) ident() string {
	start := p.i
	for p.i < len(p.s) && isIdentChar(p.s[p.i]) {
		p.i++
	}
	return p.s[start:p.i]
}

// value reads one value, with its annotations.
func (p *ionParser) value() (types.AttributeValue, error) {
	p.skipSpace()
	if p.depth > maxDepth {
		return nil, p.errorf("nested deeper than %d levels", maxDepth)
	}
	if isIdentStart(p.at(p.i)) {
		save := p.i
		name := p.ident()
		p.skipSpace()
		if strings.HasPrefix(p.s[p.i:], "::") {
			p.i += 2
			return p.annotated(name)
		}
		p.i = save
	}
	c := p.at(p.i)
	switch {
	case c == '{' && p.at(p.i+1) == '{':
		return p.blob()
	case c == '{':
		return p.structValue()
	case c == '[':
		l, err := p.list()
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberL{Value: l}, nil
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberS{Value: s}, nil
	case c == '-' || c >= '0' && c <= '9':
		n, err := p.number()
		if err != nil {
			return nil, err
		}
		return &types.AttributeValueMemberN{Value: n}, nil
	case isIdentStart(c):
		return p.keyword()
	case c == 0:
		return nil, p.errorf("truncated: a value expected")
	}
	return nil, p.errorf("unexpected %q", c)
}

// keyword reads true, false, null or null.<type>.
func (p *ionParser) keyword() (types.AttributeValue, error) {
	start := p.i
	switch w := p.ident(); w {
	case "true", "false":
		return &types.AttributeValueMemberBOOL{Value: w == "true"}, nil
	case "null":
		if p.at(p.i) == '.' {
			p.i++
			if t := p.ident(); t == "" {
				return nil, p.errorf("null. without a type")
			}
		}
		return &types.AttributeValueMemberNULL{Value: true}, nil
	default:
		p.i = start
		return nil, p.errorf("the symbol %q is not a DynamoDB value", w)
	}
}

// annotated reads the value after annotation name::, a set.
func (p *ionParser) annotated(name string) (types.AttributeValue, error) {
	t := strings.TrimPrefix(name, "$dynamodb_")
	if t != "SS" && t != "NS" && t != "BS" || t == name {
		return nil, p.errorf("unsupported annotation %q", name)
	}
	p.skipSpace()
	if p.at(p.i) != '[' {
		return nil, p.errorf("%s:: wants a list", name)
	}
	l, err := p.list()
	if err != nil {
		return nil, err
	}
	members := make([]string, len(l))
	for i, e := range l {
		switch v := e.(type) {
		case *types.AttributeValueMemberS:
			if t != "SS" {
				return nil, p.errorf("%s member %d is a string", name, i)
			}
			members[i] = v.Value
		case *types.AttributeValueMemberN:
			if t != "NS" {
				return nil, p.errorf("%s member %d is a number", name, i)
			}
			members[i] = v.Value
		case *types.AttributeValueMemberB:
			if t != "BS" {
				return nil, p.errorf("%s member %d is a blob", name, i)
			}
			members[i] = base64.StdEncoding.EncodeToString(v.Value)
		default:
			return nil, p.errorf("%s member %d is not a set member", name, i)
		}
	}
	return newSet(t, members, func(s string) (string, error) {
		if t == "BS" {
			b, err := base64.StdEncoding.DecodeString(s)
			return string(b), err
		}
		return s, nil
	})
}

// list reads [v, v, ...].
func (p *ionParser) list() ([]types.AttributeValue, error) {
	p.i++ // [
	p.depth++
	defer func() { p.depth-- }()
	l := []types.AttributeValue{}
	for {
		p.skipSpace()
		if p.at(p.i) == ']' {
			p.i++
			return l, nil
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		l = append(l, v)
		p.skipSpace()
		switch p.at(p.i) {
		case ',':
			p.i++
		case ']':
		default:
			return nil, p.errorf("want , or ] in a list")
		}
	}
}

// structValue reads {name: v, ...} as an M.
func (p *ionParser) structValue() (types.AttributeValue, error) {
	p.i++ // {
	p.depth++
	defer func() { p.depth-- }()
	m := map[string]types.AttributeValue{}
	for {
		p.skipSpace()
		if p.at(p.i) == '}' {
			p.i++
			return &types.AttributeValueMemberM{Value: m}, nil
		}
		var name string
		switch c := p.at(p.i); {
		case c == '"' || c == '\'':
			s, err := p.quoted(c)
			if err != nil {
				return nil, err
			}
			name = s
		case isIdentStart(c):
			name = p.ident()
		default:
			return nil, p.errorf("want a field name")
		}
		p.skipSpace()
		if p.at(p.i) != ':' {
			return nil, p.errorf("want : after field %q", name)
		}
		p.i++
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		if _, dup := m[name]; dup {
			return nil, p.errorf("field %q twice", name)
		}
		m[name] = v
		p.skipSpace()
		switch p.at(p.i) {
		case ',':
			p.i++
		case '}':
		default:
			return nil, p.errorf("want , or } in a struct")
		}
	}
}

// blob reads {{ base64 }}.
func (p *ionParser) blob() (types.AttributeValue, error) {
	end := strings.Index(p.s[p.i+2:], "}}")
	if end < 0 {
		return nil, p.errorf("truncated blob")
	}
	body := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f' {
			return -1
		}
		return r
	}, p.s[p.i+2:p.i+2+end])
	if strings.HasPrefix(body, "\"") {
		return nil, p.errorf("a clob is not a DynamoDB value")
	}
	b, err := decodeBase64(body)
	if err != nil {
		return nil, p.errorf("blob: %v", err)
	}
	p.i += end + 4
	return &types.AttributeValueMemberB{Value: b}, nil
}

// str reads a "string"; a string followed by another (Ion's
// concatenation) is refused as the long string form it belongs to.
func (p *ionParser) str() (string, error) { return p.quoted('"') }

// quoted reads a string or quoted symbol delimited by q, with Ion's
// escapes.
func (p *ionParser) quoted(q byte) (string, error) {
	if q == '\'' && strings.HasPrefix(p.s[p.i:], "'''") {
		return "", p.errorf("long strings are not supported")
	}
	p.i++
	var b strings.Builder
	for {
		if p.i >= len(p.s) {
			return "", p.errorf("truncated string")
		}
		c := p.s[p.i]
		switch {
		case c == q:
			p.i++
			if !utf8.ValidString(b.String()) {
				return "", p.errorf("a string that is not UTF-8")
			}
			return b.String(), nil
		case c == '\\':
			if err := p.escape(&b); err != nil {
				return "", err
			}
		case c < 0x20 && c != '\t':
			return "", p.errorf("a control character in a string")
		default:
			b.WriteByte(c)
			p.i++
		}
	}
}

// escapes are Ion's one-letter escapes.
var escapes = map[byte]string{'a': "\a", 'b': "\b", 't': "\t", 'n': "\n", 'f': "\f", 'r': "\r", 'v': "\v", '"': "\"", '\'': "'", '?': "?", '\\': "\\", '/': "/", '0': "\x00"}

// escape reads one backslash escape into b.
func (p *ionParser) escape(b *strings.Builder) error {
	c := p.at(p.i + 1)
	if s, ok := escapes[c]; ok {
		b.WriteString(s)
		p.i += 2
		return nil
	}
	n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
	if n == 0 || p.i+2+n > len(p.s) {
		return p.errorf("invalid escape")
	}
	v, err := strconv.ParseUint(p.s[p.i+2:p.i+2+n], 16, 32)
	if err != nil || v > utf8.MaxRune || v >= 0xD800 && v < 0xE000 {
		return p.errorf("invalid escape %q", p.s[p.i:p.i+2+n])
	}
	b.WriteRune(rune(v))
	p.i += 2 + n
	return nil
}

// number reads an Ion int or decimal as DynamoDB number text: 2013. is
// 2013, 1d2 is 1E2, 0x1F is 31; underscores between digits are dropped.
func (p *ionParser) number() (string, error) {
	start := p.i
	for p.i < len(p.s) && strings.IndexByte("0123456789abcdefABCDEFxXoO_.+-", p.s[p.i]) >= 0 {
		p.i++
	}
	text := p.s[start:p.i]
	n, err := ionNumber(text)
	if err != nil {
		return "", p.errorf("%v", err)
	}
	if err := checkNumber(n); err != nil {
		return "", p.errorf("%v", err)
	}
	return n, nil
}

// ionNumber converts the text of an Ion int, decimal or float to DynamoDB
// number text.
func ionNumber(text string) (string, error) {
	neg := strings.HasPrefix(text, "-")
	body := strings.TrimPrefix(text, "-")
	if strings.Contains(body, "__") || strings.HasPrefix(body, "_") || strings.HasSuffix(body, "_") {
		return "", fmt.Errorf("invalid number %q", text)
	}
	body = strings.ReplaceAll(body, "_", "")
	if len(body) > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X' || body[1] == 'b' || body[1] == 'B') {
		base := 16
		if body[1] == 'b' || body[1] == 'B' {
			base = 2
		}
		v, ok := new(big.Int).SetString(body[2:], base)
		if !ok {
			return "", fmt.Errorf("invalid number %q", text)
		}
		if neg {
			v.Neg(v)
		}
		return v.String(), nil
	}
	mant, exp := body, ""
	if i := strings.IndexAny(body, "dDeE"); i >= 0 {
		mant, exp = body[:i], body[i+1:]
		if exp == "" {
			return "", fmt.Errorf("invalid number %q", text)
		}
	}
	mant = strings.TrimSuffix(mant, ".")
	if mant == "" || strings.ContainsAny(mant, "+-") || strings.Count(mant, ".") > 1 || strings.HasPrefix(mant, ".") {
		return "", fmt.Errorf("invalid number %q", text)
	}
	for _, c := range mant + strings.TrimLeft(exp, "+-") {
		if c != '.' && (c < '0' || c > '9') {
			return "", fmt.Errorf("invalid number %q", text)
		}
	}
	if exp != "" && strings.TrimLeft(exp, "+-") == "" || strings.Count(exp, "-")+strings.Count(exp, "+") > 1 {
		return "", fmt.Errorf("invalid number %q", text)
	}
	out := mant
	if exp != "" {
		out += "E" + exp
	}
	if neg {
		out = "-" + out
	}
	return out, nil
}
