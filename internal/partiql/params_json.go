package partiql

import (
	"bytes"
	"encoding/json"

	"github.com/dynago/dynago/internal/attr"
	"github.com/dynago/dynago/internal/ddberr"
)

// CheckParamsJSON finds the first problem CheckParams would report in
// parameters as sent, in document order, map members included: DynamoDB
// reports whichever of a too-deep value and an unconvertible number it
// reaches first (partiqlParameterNumbers.test.ts: {d: <40 levels>, bad:
// "abc"} is the nesting error, {bad: "abc", d: <40 levels>} the number's).
// raw holds each parameter's JSON. It returns nil when it finds nothing,
// or the JSON is not what it expects; CheckParams still runs after it.
func CheckParamsJSON(raw []json.RawMessage) error {
	for _, r := range raw {
		dec := json.NewDecoder(bytes.NewReader(r))
		dec.UseNumber()
		if err := walkJSON(dec, 1); err != nil {
			if _, ok := ddberr.As(err); ok {
				return err
			}
			return nil
		}
	}
	return nil
}

// walkJSON walks one AttributeValue object at nesting level level.
func walkJSON(dec *json.Decoder, level int) error {
	if err := expectDelim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		switch key {
		case "N":
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			if s, ok := tok.(string); ok {
				if err := checkParamNumber(s); err != nil {
					return err
				}
			}
		case "NS":
			if err := walkNumberList(dec); err != nil {
				return err
			}
		case "M", "L":
			if err := walkContainer(dec, key == "M", level); err != nil {
				return err
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
		}
	}
	_, err := dec.Token() // }
	return err
}

func walkNumberList(dec *json.Decoder) error {
	if err := expectDelim(dec, '['); err != nil {
		return err
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if s, ok := tok.(string); ok {
			if err := checkParamNumber(s); err != nil {
				return err
			}
		}
	}
	_, err := dec.Token() // ]
	return err
}

func walkContainer(dec *json.Decoder, isMap bool, level int) error {
	if level >= attr.MaxDepth {
		return ddberr.Validation(msgNesting)
	}
	open, end := json.Delim('['), json.Delim(']')
	if isMap {
		open, end = '{', '}'
	}
	if err := expectDelim(dec, open); err != nil {
		return err
	}
	for dec.More() {
		if isMap {
			if _, err := dec.Token(); err != nil { // member name
				return err
			}
		}
		if err := walkJSON(dec, level+1); err != nil {
			return err
		}
	}
	tok, err := dec.Token()
	if err == nil && tok != end {
		return errUnexpected
	}
	return err
}

var errUnexpected = &json.SyntaxError{}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != d {
		return errUnexpected
	}
	return nil
}
