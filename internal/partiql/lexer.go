package partiql

import "strings"

// tokKind is a lexical token kind.
type tokKind uint8

const (
	tEOF        tokKind = iota
	tIdent              // bare identifier: [A-Za-z_$][A-Za-z0-9_$]*
	tQuoted             // "quoted identifier" ("" escapes a quote)
	tString             // 'string literal' ('' escapes a quote)
	tNumber             // 12, 1.5, .5, 1e5, 7.31E+6
	tParam              // ?
	tPunct              // * , . ( ) [ ] { } : ; << >> + - / ||
	tOp                 // = <> != < <= > >=
	tBadNumber          // a number literal whose exponent or scale does not fit a 32-bit integer
	tBadComment         // # or an unterminated /* comment
	tInvalid            // any other character
)

// token is one lexeme: its text as written, its byte span, and its
// position as DynamoDB reports it (line and column counted in characters
// from 1).
type token struct {
	kind       tokKind
	text       string
	start, end int
	line, col  int
	// length is the token's length in characters.
	length int
}

// is reports whether t is the keyword kw (any case).
func (t token) is(kw string) bool { return t.kind == tIdent && strings.EqualFold(t.text, kw) }

// isPunct reports whether t is the punctuation p.
func (t token) isPunct(p string) bool { return t.kind == tPunct && t.text == p }

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == '$'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// lexer walks the source once, keeping the line and column of the byte
// it is at.
type lexer struct {
	src       string
	i         int
	line, col int
	toks      []token
}

// lex splits src into tokens, skipping whitespace, -- line comments and
// /* block */ comments. It never fails: a character outside the language
// becomes a tInvalid token, a # or an unterminated block comment a
// tBadComment, and the parser reports them. The last token is tEOF.
func lex(src string) []token {
	lx := &lexer{src: src, line: 1, col: 1}
	for {
		lx.skipSpace()
		if lx.i >= len(src) {
			lx.emit(tEOF, lx.i, lx.line, lx.col)
			return lx.toks
		}
		if !lx.lexOne() {
			return lx.toks
		}
	}
}

// advance moves past n bytes, counting lines and characters.
func (lx *lexer) advance(n int) {
	for ; n > 0 && lx.i < len(lx.src); n-- {
		c := lx.src[lx.i]
		lx.i++
		switch {
		case c == '\n':
			lx.line++
			lx.col = 1
		case c&0xC0 != 0x80: // not a UTF-8 continuation byte
			lx.col++
		}
	}
}

func (lx *lexer) emit(k tokKind, start, line, col int) {
	text := lx.src[start:lx.i]
	n := 0
	for j := 0; j < len(text); j++ {
		if text[j]&0xC0 != 0x80 {
			n++
		}
	}
	lx.toks = append(lx.toks, token{kind: k, text: text, start: start, end: lx.i, line: line, col: col, length: n})
}

// skipSpace skips whitespace and comments; an unterminated block comment
// is left for lexOne to report.
func (lx *lexer) skipSpace() {
	for lx.i < len(lx.src) {
		c := lx.src[lx.i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			lx.advance(1)
		case strings.HasPrefix(lx.src[lx.i:], "--"):
			for lx.i < len(lx.src) && lx.src[lx.i] != '\n' {
				lx.advance(1)
			}
		case strings.HasPrefix(lx.src[lx.i:], "/*"):
			end := strings.Index(lx.src[lx.i+2:], "*/")
			if end < 0 {
				return
			}
			lx.advance(end + 4)
		default:
			return
		}
	}
}

var twoCharOps = []string{"<>", "!=", "<=", ">=", "<<", ">>", "||"}

// lexOne lexes the token at lx.i; false ends the token stream (after a
// token that makes the whole statement unreadable).
func (lx *lexer) lexOne() bool {
	start, line, col := lx.i, lx.line, lx.col
	rest := lx.src[lx.i:]
	c := rest[0]
	switch {
	case strings.HasPrefix(rest, "/*") || c == '#':
		lx.advance(len(rest))
		lx.emit(tBadComment, start, line, col)
		lx.emit(tEOF, lx.i, lx.line, lx.col)
		return false
	case isIdentStart(c):
		n := 1
		for n < len(rest) && isIdentPart(rest[n]) {
			n++
		}
		lx.advance(n)
		lx.emit(tIdent, start, line, col)
	case c == '"' || c == '\'':
		n := quotedLen(rest)
		if n < 0 {
			lx.advance(len(rest))
			lx.emit(tInvalid, start, line, col)
			lx.emit(tEOF, lx.i, lx.line, lx.col)
			return false
		}
		lx.advance(n)
		k := tQuoted
		if c == '\'' {
			k = tString
		}
		lx.emit(k, start, line, col)
	case isDigit(c) || c == '.' && len(rest) > 1 && isDigit(rest[1]):
		n, ok := numberLen(rest)
		lx.advance(n)
		if ok {
			lx.emit(tNumber, start, line, col)
		} else {
			lx.emit(tBadNumber, start, line, col)
		}
	case c == '?':
		lx.advance(1)
		lx.emit(tParam, start, line, col)
	default:
		for _, op := range twoCharOps {
			if strings.HasPrefix(rest, op) {
				lx.advance(2)
				k := tOp
				if op == "<<" || op == ">>" || op == "||" {
					k = tPunct
				}
				lx.emit(k, start, line, col)
				return true
			}
		}
		switch c {
		case '=', '<', '>':
			lx.advance(1)
			lx.emit(tOp, start, line, col)
		case '*', ',', '.', '(', ')', '[', ']', '{', '}', ':', ';', '+', '-', '/', '%':
			lx.advance(1)
			lx.emit(tPunct, start, line, col)
		default:
			lx.advance(1)
			for lx.i < len(lx.src) && lx.src[lx.i]&0xC0 == 0x80 {
				lx.advance(1)
			}
			lx.emit(tInvalid, start, line, col)
		}
	}
	return true
}

// quotedLen is the length of the quoted token at the start of s (a
// doubled quote is an escaped one), or -1 when it is not closed.
func quotedLen(s string) int {
	q := s[0]
	for i := 1; i < len(s); i++ {
		if s[i] == q {
			if i+1 < len(s) && s[i+1] == q {
				i++
				continue
			}
			return i + 1
		}
	}
	return -1
}

// numberLen is the length of the number literal at the start of s:
// digits [ "." digits ] [ ("e"|"E") [sign] digits ], or "." digits ...
// ok is false when the literal is one Java's BigDecimal cannot represent,
// as DynamoDB's parser reads literals: an exponent or a scale (digits
// after the point less the exponent) outside a 32-bit integer
// (tests/tier3/error-messages/partiqlGrammar.test.ts, real DynamoDB,
// October 2026).
func numberLen(s string) (n int, ok bool) {
	for n < len(s) && isDigit(s[n]) {
		n++
	}
	frac := 0
	if n < len(s) && s[n] == '.' {
		n++
		for n < len(s) && isDigit(s[n]) {
			n++
			frac++
		}
	}
	if n < len(s) && (s[n] == 'e' || s[n] == 'E') {
		m := n + 1
		if m < len(s) && (s[m] == '+' || s[m] == '-') {
			m++
		}
		if m < len(s) && isDigit(s[m]) {
			expStart := n + 1
			for m < len(s) && isDigit(s[m]) {
				m++
			}
			exp, fits := parseInt32(s[expStart:m])
			n = m
			if !fits {
				return n, false
			}
			scale := int64(frac) - exp
			if scale > 1<<31-1 || scale < -(1<<31) {
				return n, false
			}
		}
	}
	return n, true
}

// parseInt32 parses an optionally signed decimal integer and reports
// whether it fits a 32-bit integer.
func parseInt32(s string) (int64, bool) {
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	var v int64
	for i := 0; i < len(s); i++ {
		v = v*10 + int64(s[i]-'0')
		if v > 1<<31 {
			return 0, false
		}
	}
	if neg {
		v = -v
	}
	if v > 1<<31-1 || v < -(1<<31) {
		return 0, false
	}
	return v, true
}
