package expr

import "strings"

// tokKind is a lexical token kind.
type tokKind uint8

const (
	tEOF      tokKind = iota
	tIdent            // attribute or function name: [A-Za-z_][A-Za-z0-9_]*
	tName             // expression attribute name: #[A-Za-z0-9_]*
	tValue            // expression attribute value: :[A-Za-z0-9_]*
	tNumber           // list index digits
	tLParen           // (
	tRParen           // )
	tLBracket         // [
	tRBracket         // ]
	tComma            // ,
	tDot              // .
	tEq               // =
	tNe               // <>
	tLt               // <
	tLe               // <=
	tGt               // >
	tGe               // >=
	tPlus             // +
	tMinus            // -
	tAnd              // AND (any case)
	tOr               // OR
	tNot              // NOT
	tBetween          // BETWEEN
	tIn               // IN
	tInvalid          // any other character
)

// token is one lexeme with its byte span in the source.
type token struct {
	kind       tokKind
	start, end int
	text       string
}

// keywords are the words the grammar itself uses; they can never be
// attribute or function names. (UpdateExpression clause words SET,
// REMOVE, ADD and DELETE are recognised by the update parser, because they
// are legal attribute-name spellings elsewhere only through #aliases.)
var keywords = map[string]tokKind{
	"AND": tAnd, "OR": tOr, "NOT": tNot, "BETWEEN": tBetween, "IN": tIn,
}

func isIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isIdentPart(c byte) bool {
	return isIdentStart(c) || c >= '0' && c <= '9'
}

// lex splits src into tokens. It never fails: characters outside the
// language become tInvalid tokens, which the parser reports as syntax
// errors at the right place.
func lex(src string) []token {
	var toks []token
	i := 0
	for {
		for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
			i++
		}
		if i >= len(src) {
			toks = append(toks, token{kind: tEOF, start: len(src), end: len(src), text: "<EOF>"})
			return toks
		}
		start := i
		c := src[i]
		kind := tInvalid
		switch {
		case isIdentStart(c):
			for i < len(src) && isIdentPart(src[i]) {
				i++
			}
			kind = tIdent
			if k, ok := keywords[strings.ToUpper(src[start:i])]; ok {
				kind = k
			}
		case c == '#' || c == ':':
			i++
			for i < len(src) && isIdentPart(src[i]) {
				i++
			}
			kind = tName
			if c == ':' {
				kind = tValue
			}
		case c >= '0' && c <= '9':
			for i < len(src) && src[i] >= '0' && src[i] <= '9' {
				i++
			}
			kind = tNumber
		default:
			i++
			switch c {
			case '(':
				kind = tLParen
			case ')':
				kind = tRParen
			case '[':
				kind = tLBracket
			case ']':
				kind = tRBracket
			case ',':
				kind = tComma
			case '.':
				kind = tDot
			case '=':
				kind = tEq
			case '+':
				kind = tPlus
			case '-':
				kind = tMinus
			case '<':
				kind = tLt
				if i < len(src) && src[i] == '=' {
					i++
					kind = tLe
				} else if i < len(src) && src[i] == '>' {
					i++
					kind = tNe
				}
			case '>':
				kind = tGt
				if i < len(src) && src[i] == '=' {
					i++
					kind = tGe
				}
			default:
				// One invalid character per token; keep multi-byte UTF-8
				// sequences whole so the message shows the character.
				for i < len(src) && src[i]&0xC0 == 0x80 {
					i++
				}
			}
		}
		toks = append(toks, token{kind: kind, start: start, end: i, text: src[start:i]})
	}
}
