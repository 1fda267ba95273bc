package sqlschema

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// tokenKind says what a token is.
type tokenKind int

const (
	tokEOF    tokenKind = iota
	tokIdent            // a bare word (keywords are words too: the parser decides)
	tokQuoted           // a "quoted" (PostgreSQL) or `quoted` (MySQL) identifier
	tokString           // a 'string' literal ('' inside is one quote)
	tokNumber           // 42, 3.5
	tokParam            // ?, $1 or :name
	tokPunct            // ( ) , ; . = < > <= >= <> != [ ] and other single characters
)

// token is one lexeme and where it starts.
type token struct {
	kind tokenKind
	text string // a quoted identifier's or string's text without its quotes
	pos  Pos
	off  int // byte offset in the source
}

// Pos is a place in the source: line and column, from 1 (the column
// counts bytes).
type Pos struct{ Line, Col int }

// String returns LINE:COL.
func (p Pos) String() string { return fmt.Sprintf("%d:%d", p.Line, p.Col) }

// is reports whether t is the word w (case-insensitive) or the
// punctuation w.
func (t token) is(w string) bool {
	return (t.kind == tokIdent || t.kind == tokPunct) && strings.EqualFold(t.text, w)
}

// name reports whether t can be a name: a word or a quoted identifier.
func (t token) name() bool { return t.kind == tokIdent || t.kind == tokQuoted }

// lexer splits SQL text into tokens, dropping whitespace and comments
// (-- to the end of the line, # to the end of the line as in MySQL, and
// /* ... */).
type lexer struct {
	src       string
	off       int
	line, col int
	toks      []token
}

// lex returns the tokens of src, ending with tokEOF; an unterminated
// string, quoted identifier or comment is an error at its start.
func lex(src string) ([]token, error) {
	l := &lexer{src: src, line: 1, col: 1}
	for {
		l.skipSpace()
		if l.off >= len(l.src) {
			l.toks = append(l.toks, token{kind: tokEOF, pos: Pos{l.line, l.col}, off: l.off})
			return l.toks, nil
		}
		if err := l.next(); err != nil {
			return nil, err
		}
	}
}

// advance moves past n bytes, counting lines.
func (l *lexer) advance(n int) {
	for _, r := range l.src[l.off : l.off+n] {
		if r == '\n' {
			l.line, l.col = l.line+1, 1
		} else {
			l.col += utf8.RuneLen(r)
		}
	}
	l.off += n
}

// skipSpace skips whitespace and comments; an unterminated /* comment
// runs to the end.
func (l *lexer) skipSpace() {
	for l.off < len(l.src) {
		rest := l.src[l.off:]
		switch {
		case rest[0] == ' ' || rest[0] == '\t' || rest[0] == '\n' || rest[0] == '\r' || rest[0] == '\f':
			l.advance(1)
		case strings.HasPrefix(rest, "--") || rest[0] == '#':
			end := strings.IndexByte(rest, '\n')
			if end < 0 {
				end = len(rest)
			}
			l.advance(end)
		case strings.HasPrefix(rest, "/*"):
			end := strings.Index(rest[2:], "*/")
			if end < 0 {
				l.advance(len(rest))
			} else {
				l.advance(end + 4)
			}
		default:
			return
		}
	}
}

// next reads one token at l.off.
func (l *lexer) next() error {
	start, off := Pos{l.line, l.col}, l.off
	rest := l.src[l.off:]
	r, size := utf8.DecodeRuneInString(rest)
	emit := func(kind tokenKind, text string, n int) {
		l.toks = append(l.toks, token{kind: kind, text: text, pos: start, off: off})
		l.advance(n)
	}
	switch {
	case r == '\'' || r == '"' || r == '`':
		kind := tokQuoted
		if r == '\'' {
			kind = tokString
		}
		var b strings.Builder
		for i := 1; i < len(rest); i++ {
			if rest[i] != byte(r) {
				b.WriteByte(rest[i])
				continue
			}
			if i+1 < len(rest) && rest[i+1] == byte(r) { // doubled: one quote
				b.WriteByte(rest[i])
				i++
				continue
			}
			emit(kind, b.String(), i+1)
			return nil
		}
		return fmt.Errorf("%s: %c opened here is never closed", start, r)
	case r == '_' || unicode.IsLetter(r):
		n := 0
		for n < len(rest) {
			c, s := utf8.DecodeRuneInString(rest[n:])
			if c != '_' && c != '$' && !unicode.IsLetter(c) && !unicode.IsDigit(c) {
				break
			}
			n += s
		}
		emit(tokIdent, rest[:n], n)
	case r >= '0' && r <= '9':
		n := 0
		for n < len(rest) && (rest[n] >= '0' && rest[n] <= '9' || rest[n] == '.') {
			n++
		}
		emit(tokNumber, rest[:n], n)
	case r == '?':
		emit(tokParam, "?", 1)
	case (r == '$' || r == ':') && len(rest) > 1 && (rest[1] >= '0' && rest[1] <= '9' || r == ':' && (rest[1] == '_' || unicode.IsLetter(rune(rest[1])))):
		n := 1
		for n < len(rest) && (rest[n] == '_' || rest[n] >= '0' && rest[n] <= '9' || unicode.IsLetter(rune(rest[n]))) {
			n++
		}
		emit(tokParam, rest[:n], n)
	default:
		for _, op := range []string{"<=", ">=", "<>", "!=", "::"} {
			if strings.HasPrefix(rest, op) {
				emit(tokPunct, op, 2)
				return nil
			}
		}
		emit(tokPunct, rest[:size], size)
	}
	return nil
}
