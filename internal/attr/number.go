package attr

import (
	"math"
	"strings"

	"github.com/cockroachdb/apd/v3"

	"github.com/dynago/dynago/internal/ddberr"
)

// Limits of DynamoDB's Number type.
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html#HowItWorks.DataTypes.Number
const (
	// MaxSignificantDigits is the precision of a Number.
	MaxSignificantDigits = 38
	// maxExp and minExp bound E in 0.D×10^E: the largest magnitude is
	// 9.99…E+125 (E = 126) and the smallest 1E-130 (E = -129).
	maxExp = 126
	minExp = -129
)

// Number validation messages, verbatim from DynamoDB.
const (
	msgNotNumeric = "The parameter cannot be converted to a numeric value"
	msgOverflow   = "Number overflow. Attempting to store a number with magnitude larger than supported range"
	msgUnderflow  = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
	msgPrecision  = "Attempting to store more than 38 significant digits in a Number"
)

// decimal is a parsed number: value = ±0.digits × 10^exp, with digits free
// of leading and trailing zeros. Zero has empty digits.
type decimal struct {
	neg    bool
	digits string
	exp    int
	// written is the exponent as written (1e5: 5), saturated at ±2^40.
	written int
}

// parseDecimal parses the number syntax DynamoDB accepts (that of Java's
// BigDecimal): an optional sign, digits with an optional fraction (".5" and
// "5." included), and an optional exponent. Whitespace, quotes, hex,
// "Infinity" and "NaN" are not numbers.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	i := 0
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		d.neg = s[i] == '-'
		i++
	}
	intStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	intPart := s[intStart:i]
	var fracPart string
	if i < len(s) && s[i] == '.' {
		i++
		fs := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		fracPart = s[fs:i]
	}
	if intPart == "" && fracPart == "" {
		return d, false
	}
	exp := 0
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			eneg = s[i] == '-'
			i++
		}
		es := i
		// The exponent must fit in a signed 64-bit integer, as Java's
		// BigDecimal requires: 1e9223372036854775808 is not a number,
		// while 1e9223372036854775807 is one that overflows. Past 2^40
		// the value saturates: anything that large is out of range
		// anyway, and int32 wrapping (OlderLayer) still shows below it.
		var mag uint64
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if mag <= math.MaxInt64 {
				mag = mag*10 + uint64(s[i]-'0')
			}
			i++
		}
		if i == es || mag > math.MaxInt64 {
			return d, false
		}
		exp = int(min(mag, 1<<40))
		if eneg {
			exp = -exp
		}
	}
	if i != len(s) {
		return d, false
	}
	d.written = exp
	// value = intPart.fracPart × 10^exp = 0.(intPart fracPart) × 10^(exp+len(intPart))
	all := intPart + fracPart
	e := exp + len(intPart)
	lead := 0
	for lead < len(all) && all[lead] == '0' {
		lead++
	}
	all = all[lead:]
	e -= lead
	all = strings.TrimRight(all, "0")
	if all == "" {
		// Zero, sign dropped: "-0" is "0". Its exponent still counts:
		// DynamoDB rejects 0e126 as an overflow and 0e-131 as an
		// underflow, judging zero by its written exponent less its
		// fraction digits (BigDecimal's negated scale).
		return decimal{exp: exp - len(fracPart) + 1}, true
	}
	d.digits = all
	d.exp = e
	return d, true
}

// String renders d in DynamoDB's canonical form: plain notation, no
// exponent, no leading zeros, no trailing fraction zeros, no '+', "0" for
// zero.
func (d decimal) String() string {
	if d.digits == "" {
		return "0"
	}
	var b strings.Builder
	b.Grow(len(d.digits) + 4)
	if d.neg {
		b.WriteByte('-')
	}
	switch {
	case d.exp <= 0:
		b.WriteString("0.")
		for i := 0; i < -d.exp; i++ {
			b.WriteByte('0')
		}
		b.WriteString(d.digits)
	case d.exp < len(d.digits):
		b.WriteString(d.digits[:d.exp])
		b.WriteByte('.')
		b.WriteString(d.digits[d.exp:])
	default:
		b.WriteString(d.digits)
		for i := len(d.digits); i < d.exp; i++ {
			b.WriteByte('0')
		}
	}
	return b.String()
}

// ParseNumber validates a Number as DynamoDB does and returns its canonical
// text. Errors are ValidationExceptions with DynamoDB's messages: not a
// number, overflow (magnitude ≥ 1E126), underflow (magnitude < 1E-130), or
// more than 38 significant digits.
func ParseNumber(s string) (string, error) { return parseNumberIn(s, CurrentLayer) }

// parseNumberIn is ParseNumber as layer l reads numbers. The older layer
// keeps the exponent in a 32-bit int, as Java's BigDecimal does, so one
// written within int32 whose value's exponent passes it wraps:
// 1e2147483647 is an underflow there and an overflow in the current layer
// (the conformance suite's tests/tier3/error-messages/valueLayers.test.ts,
// BatchWriteItem, 2026-10-09).
func parseNumberIn(s string, l Layer) (string, error) {
	if isCanonicalFast(s) {
		return s, nil
	}
	d, ok := parseDecimal(s)
	if !ok {
		return "", ddberr.Validation(msgNotNumeric + ": " + s)
	}
	if l == OlderLayer && d.written >= math.MinInt32 && d.written <= math.MaxInt32 &&
		(d.exp > math.MaxInt32 || d.exp < math.MinInt32) {
		d.exp = int(int32(d.exp))
	}
	if err := d.checkRange(); err != nil {
		return "", err
	}
	return d.String(), nil
}

func (d decimal) checkRange() error {
	switch {
	case d.exp > maxExp:
		return ddberr.Validation(msgOverflow)
	case d.exp < minExp:
		return ddberr.Validation(msgUnderflow)
	case len(d.digits) > MaxSignificantDigits:
		return ddberr.Validation(msgPrecision)
	}
	return nil
}

// isCanonicalFast recognises the common already-canonical forms without
// allocating: -?(0|[1-9][0-9]*)(\.[0-9]*[1-9])? with at most 38 significant
// digits and an integer part short enough to be in range, and not "-0".
func isCanonicalFast(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	if i >= len(s) {
		return false
	}
	intStart := i
	if s[i] == '0' {
		i++
	} else {
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		if i == intStart {
			return false
		}
	}
	intLen := i - intStart
	zeroInt := s[intStart] == '0'
	if i == len(s) {
		if zeroInt && intStart > 0 { // "-0"
			return false
		}
		// Trailing zeros of an integer are not significant but are still
		// canonical text; count significant digits without them.
		sig := intLen
		for j := len(s) - 1; j > intStart && s[j] == '0'; j-- {
			sig--
		}
		return sig <= MaxSignificantDigits && intLen <= maxExp
	}
	if s[i] != '.' {
		return false
	}
	i++
	fracStart := i
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i != len(s) || i == fracStart || s[i-1] == '0' {
		return false
	}
	fracLen := i - fracStart
	if zeroInt {
		lead := 0
		for lead < fracLen && s[fracStart+lead] == '0' {
			lead++
		}
		return fracLen-lead <= MaxSignificantDigits && lead <= -minExp
	}
	return intLen+fracLen <= MaxSignificantDigits && intLen <= maxExp
}

// CompareNumbers compares two canonical number texts numerically.
func CompareNumbers(a, b string) int {
	if a == b {
		return 0
	}
	da, _ := parseDecimal(a)
	db, _ := parseDecimal(b)
	return compareDecimal(da, db)
}

func compareDecimal(a, b decimal) int {
	sa, sb := a.sign(), b.sign()
	if sa != sb {
		if sa < sb {
			return -1
		}
		return 1
	}
	if sa == 0 {
		return 0
	}
	c := compareMagnitude(a, b)
	if sa < 0 {
		return -c
	}
	return c
}

func (d decimal) sign() int {
	switch {
	case d.digits == "":
		return 0
	case d.neg:
		return -1
	}
	return 1
}

func compareMagnitude(a, b decimal) int {
	if a.exp != b.exp {
		if a.exp < b.exp {
			return -1
		}
		return 1
	}
	switch {
	case a.digits < b.digits:
		return -1
	case a.digits > b.digits:
		return 1
	}
	return 0
}

// numberSize is the stored size of a canonical number: about one byte per
// two significant digits plus one byte (the developer guide's rule).
//
// Source: https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/CapacityUnitCalculations.html
func numberSize(canonical string) int {
	d, _ := parseDecimal(canonical)
	return (len(d.digits)+1)/2 + 1
}

// ToDecimal returns a canonical number as an apd.Decimal, for arithmetic.
func ToDecimal(canonical string) (*apd.Decimal, error) {
	d, _, err := apd.NewFromString(canonical)
	return d, err
}

// arithContext adds exactly: canonical numbers have at most 38
// significant digits within 1E-130..1E126, so 300 digits hold any sum or
// difference without rounding. DynamoDB then applies its Number rules to
// the exact result.
var arithContext = apd.Context{
	Precision:   300,
	MaxExponent: apd.MaxExponent,
	MinExponent: apd.MinExponent,
	Rounding:    apd.RoundHalfEven,
	Traps:       apd.DefaultTraps,
}

// AddNumbers returns a+b (or a-b when subtract is set) for canonical
// numbers, as DynamoDB's SET a = b + c and ADD compute it: exactly, then
// checked against the Number limits (overflow and underflow are
// ValidationExceptions, never a rounding). A result that needs more than
// 38 significant digits (1e50 + 1) is refused with DynamoDB's overflow
// message, not the 38-digit one a written number gets: ScyllaDB
// Alternator's test_number.py::test_update_expression_plus_imprecise,
// which passes against DynamoDB ("Strangely, DynamoDB says that the error
// is: "Number overflow. Attempting to store a number with magnitude larger
// than supported range""). That test covers SET; ADD shares the
// arithmetic here (an inference).
func AddNumbers(a, b string, subtract bool) (string, error) {
	x, err := ToDecimal(a)
	if err != nil {
		return "", ddberr.Validation(msgNotNumeric)
	}
	y, err := ToDecimal(b)
	if err != nil {
		return "", ddberr.Validation(msgNotNumeric)
	}
	var z apd.Decimal
	if subtract {
		_, err = arithContext.Sub(&z, x, y)
	} else {
		_, err = arithContext.Add(&z, x, y)
	}
	if err != nil {
		return "", ddberr.Validation(msgOverflow)
	}
	if z.IsZero() {
		return "0", nil // an exact zero, whatever the operands' scale
	}
	d, _ := parseDecimal(z.Text('f')) // apd's plain text always parses
	if len(d.digits) > MaxSignificantDigits {
		return "", ddberr.Validation(msgOverflow)
	}
	if err := d.checkRange(); err != nil {
		return "", err
	}
	return d.String(), nil
}
